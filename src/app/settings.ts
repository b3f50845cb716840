import { ENV } from '../env.js';
import { SnowdbError } from '../errors.js';
import type { S3Settings } from '../io/bucket.s3.js';
import type { GitHubSettings } from '../io/github.js';
import type { QueueSettings } from '../queue/connection.js';
import { AWDB_URL, type AwdbSettings } from '../stations/awdb.js';
import { CACHES, type CacheBudgets, type CacheName, isCache } from '../util/caches.js';
import { NLCD_URL, THREEDEP_URL, type ZoneSourceUrls } from '../zones/sources.js';

/** What the environment configures (variable names: `ENV` in src/env.ts). */
export interface Settings {
  /** The configured database location, if the environment names one. */
  readonly configPath: string | undefined;
  readonly zoneSources: ZoneSourceUrls;
  readonly github: GitHubSettings;
  /** Archive folders the environment overrides, per ingester (SNOWDB_<KIND>_URL). */
  readonly archives: Readonly<Partial<Record<'snodas' | 'swann' | 'spires', string>>>;
  readonly fetch: {
    readonly retries: number;
    readonly backoffMs: number;
    readonly idleMs: number;
    /** The most one file's download may take, ms (SNOWDB_FETCH_FILE_S; default 30 min). */
    readonly fileMs: number;
    readonly earthdataToken: string | undefined;
    /** `$HOME/.netrc`, when HOME is set. */
    readonly netrcPath: string | undefined;
  };
  /** The AWDB REST API: where, and how gently (retries and backoff are the fetch settings'). */
  readonly awdb: AwdbSettings;
  /** Test hook: ms to pause between the steps of a date swap (crash tests kill inside it). */
  readonly swapPauseMs: number | undefined;
  readonly queue: QueueSettings;
  /** Where S3 is, for `publish s3://…` and replicas reading one. */
  readonly s3: S3Settings;
  /** A replica asks for a newer published tree this often, ms (0: never). */
  readonly replicaRefreshMs: number;
  /** Cache budgets as the environment names them (`name=MiB,…`; `cacheSizesFrom` checks them). */
  readonly cacheMb: string | undefined;
  /** Worker threads per pool (stats scans, ingest dates) as the environment names it. */
  readonly threads: string | undefined;
}

const trim = (u: string) => u.replace(/\/+$/, '');
const set = (v: string | undefined) => (v === undefined || v === '' ? undefined : v);

const maybe = <T>(f: (v: string) => T, v: string | undefined): T | undefined =>
  v === undefined ? undefined : f(v);
/** A non-negative integer setting, or its default when unset or not one. */
const count = (v: string | undefined, dflt: number): number => {
  const n = Number(set(v) ?? Number.NaN);
  return Number.isInteger(n) && n >= 0 ? n : dflt;
};

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
    archives: {
      snodas: maybe(trim, set(env[ENV.snodasUrl])),
      swann: maybe(trim, set(env[ENV.swannUrl])),
      spires: maybe(trim, set(env[ENV.spiresUrl])),
    },
    fetch: {
      retries: count(env[ENV.fetchRetries], 5),
      backoffMs: count(env[ENV.fetchBackoffMs], 1000),
      idleMs: count(env[ENV.fetchIdleMs], 60_000) || 60_000,
      fileMs: 1000 * (count(env[ENV.fetchFileS], 1800) || 1800),
      earthdataToken: set(env[ENV.earthdataToken]),
      netrcPath: maybe((h) => `${h}/.netrc`, set(env[ENV.home])),
    },
    awdb: {
      url: trim(set(env[ENV.awdbUrl]) ?? AWDB_URL),
      retries: count(env[ENV.fetchRetries], 5),
      backoffMs: count(env[ENV.fetchBackoffMs], 1000),
      minIntervalMs: count(env[ENV.awdbIntervalMs], 250),
      bounds: {
        maxBytes: 2 ** 20 * (count(env[ENV.awdbMaxMb], 64) || 64),
        idleMs: count(env[ENV.fetchIdleMs], 60_000) || 60_000,
        totalMs: 1000 * (count(env[ENV.fetchFileS], 600) || 600),
      },
    },
    swapPauseMs: Number(set(env[ENV.testSwapPauseMs]) ?? 0) || undefined,
    queue: {
      lockMs: count(env[ENV.queueLockMs], 30_000) || 30_000,
      graceMs: count(env[ENV.queueGraceMs], 10_000),
    },
    s3: {
      endpoint: set(env[ENV.s3EndpointS3]) ?? set(env[ENV.s3Endpoint]),
      region: set(env[ENV.awsRegion]) ?? set(env[ENV.awsDefaultRegion]),
    },
    replicaRefreshMs: 1000 * count(env[ENV.replicaRefreshS], 60),
    cacheMb: set(env[ENV.cacheMb]),
    threads: set(env[ENV.threads]),
  };
}

/**
 * The threads each worker pool may run, from the settings (`SNOWDB_THREADS=2`; undefined: the
 * machine's cores).
 * @throws SnowdbError `usage-error` when it is not a whole number from 1 to 256.
 */
export function threadsFrom(s: Settings): number | undefined {
  if (s.threads === undefined) return undefined;
  const n = Number(s.threads);
  if (!Number.isInteger(n) || n < 1 || n > 256)
    throw new SnowdbError(
      'usage-error',
      `${ENV.threads}: '${s.threads}' is not a whole number from 1 to 256`,
    );
  return n;
}

/**
 * The cache budgets the settings name (`SNOWDB_CACHE_MB=series-blocks=256,normals=0`), MiB by
 * name; the rest keep their defaults.
 * @throws SnowdbError `usage-error` for a malformed entry or a name that is no cache.
 */
export function cacheBudgetsFrom(s: Settings): CacheBudgets {
  const mib: Partial<Record<CacheName, number>> = {};
  const unknown: string[] = [];
  for (const part of (s.cacheMb ?? '').split(',').filter((p) => p.trim() !== '')) {
    const m = /^\s*([a-z][a-z-]*)\s*=\s*(\d+(?:\.\d+)?)\s*$/.exec(part);
    if (m === null)
      throw new SnowdbError(
        'usage-error',
        `${ENV.cacheMb}: '${part}' is not name=MiB (e.g. series-blocks=256)`,
      );
    const name = m[1]!;
    if (isCache(name)) mib[name] = Number(m[2]);
    else unknown.push(name);
  }
  if (unknown.length > 0)
    throw new SnowdbError(
      'usage-error',
      `${ENV.cacheMb}: no cache named ${unknown.map((n) => `'${n}'`).join(', ')}; the caches: ${Object.keys(CACHES).join(', ')}`,
    );
  return mib;
}
