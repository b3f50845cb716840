import type { Command } from 'commander';
import { type Settings, settingsFrom } from '../app/settings.js';
import { Database } from '../db/database.js';
import { configuredPath, locateDatabase } from '../db/locate.js';
import { type Env, makeOutput, type Output, type Streams } from './output.js';

/** What every command handler gets: its output and a way to open the configured database. */
export interface CliContext {
  readonly out: Output;
  /** What the environment configures (read once, in `settingsFrom`). */
  readonly settings: Settings;
  /** The `--config` value, if given anywhere on the command line. */
  readonly configOption: string | undefined;
  /** Open the database named by --config or SNOWDB_CONFIG. */
  openDatabase(): Promise<Database>;
}

interface GlobalOptions {
  config?: string;
  quiet?: boolean;
}

/** Runs one command handler with its context; domain errors propagate to `runCli`. */
export type Runner = (cmd: Command, fn: (ctx: CliContext) => Promise<void>) => Promise<void>;

/** Build the context for the command being run from its merged global options. */
export function contextFor(cmd: Command, streams: Streams, env: Env): CliContext {
  const opts = cmd.optsWithGlobals<GlobalOptions>();
  const out = makeOutput(streams, env, opts.quiet === true);
  const settings = settingsFrom(env);
  return {
    out,
    settings,
    configOption: opts.config,
    openDatabase: async () =>
      Database.open(await locateDatabase(configuredPath(opts.config, settings.configPath))),
  };
}
