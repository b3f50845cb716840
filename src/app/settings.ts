import { ENV } from '../env.js';
import type { GitHubSettings } from '../io/github.js';
import { NLCD_URL, THREEDEP_URL, type ZoneSourceUrls } from '../zones/sources.js';

/** What the environment configures (variable names: `ENV` in src/env.ts). */
export interface Settings {
  /** The configured database location, if the environment names one. */
  readonly configPath: string | undefined;
  readonly zoneSources: ZoneSourceUrls;
  readonly github: GitHubSettings;
  /** Test hook: ms to pause between the steps of a date swap (crash tests kill inside it). */
  readonly swapPauseMs: number | undefined;
}

const trim = (u: string) => u.replace(/\/+$/, '');
const set = (v: string | undefined) => (v === undefined || v === '' ? undefined : v);

/** Read the settings from an environment (the process's, or a test's). Unset or empty = default. */
export function settingsFrom(env: Readonly<Record<string, string | undefined>>): Settings {
  return {
    configPath: set(env[ENV.config]),
    zoneSources: {
      threeDep: trim(set(env[ENV.threeDepUrl]) ?? THREEDEP_URL),
      nlcd: set(env[ENV.nlcdUrl]) ?? NLCD_URL,
    },
    github: {
      apiUrl: trim(set(env[ENV.githubApiUrl]) ?? 'https://api.github.com'),
      rawUrl: trim(set(env[ENV.githubRawUrl]) ?? 'https://raw.githubusercontent.com'),
      token: set(env[ENV.githubToken]),
    },
    swapPauseMs: Number(set(env[ENV.testSwapPauseMs]) ?? 0) || undefined,
  };
}
