import type { Command } from 'commander';
import { openReplica } from '../app/replica.js';
import { runtimeFrom } from '../app/runtime.js';
import { type Settings, settingsFrom } from '../app/settings.js';
import { Database } from '../db/database.js';
import { configuredPath, isRemoteLocation, locateDatabase } from '../db/locate.js';
import { SnowdbError } from '../errors.js';
import type { Runtime } from '../util/runtime.js';
import { type Env, makeOutput, type Output, type Streams } from './output.js';

/** What every command handler gets: its output and a way to open the configured database. */
export interface CliContext {
  readonly out: Output;
  /** What the environment configures (read once, in `settingsFrom`). */
  readonly settings: Settings;
  /** The caches and worker pools of this command (its composition root). */
  readonly runtime: Runtime;
  /** The `--config` value, if given anywhere on the command line. */
  readonly configOption: string | undefined;
  /**
   * Open the database named by --config or SNOWDB_CONFIG. A command that only reads passes 'read':
   * it may then be given a published copy's URL (a read-only replica, refreshed while it runs).
   * @throws SnowdbError `read-only-database` when a command that writes is given a URL.
   */
  openDatabase(mode?: 'read' | 'write'): Promise<Database>;
}

interface GlobalOptions {
  config?: string;
  quiet?: boolean;
}

/** Runs one command handler with its context; domain errors propagate to `runCli`. */
export type Runner = (cmd: Command, fn: (ctx: CliContext) => Promise<void>) => Promise<void>;

/** A command's words below the program: `dataset remove-date`. */
function commandPath(cmd: Command): string {
  const words: string[] = [];
  for (let c: Command | null = cmd; c?.parent; c = c.parent) words.unshift(c.name());
  return words.join(' ');
}

/** Build the context for the command being run from its merged global options. */
export function contextFor(cmd: Command, streams: Streams, env: Env): CliContext {
  const opts = cmd.optsWithGlobals<GlobalOptions>();
  const out = makeOutput(streams, env, opts.quiet === true);
  const settings = settingsFrom(env);
  const runtime = runtimeFrom(settings);
  return {
    out,
    settings,
    runtime,
    configOption: opts.config,
    openDatabase: async (mode = 'write') => {
      const at = configuredPath(opts.config, settings.configPath);
      if (!isRemoteLocation(at.path)) return Database.open(await locateDatabase(at), { runtime });
      if (mode === 'write')
        throw new SnowdbError(
          'read-only-database',
          `${at.path} (from ${at.origin}) is a published copy, which is read-only: run 'snowdb ${commandPath(cmd)}' on the database it was published from`,
        );
      const replica = await openReplica(at.path, {
        runtime,
        refreshMs: settings.replicaRefreshMs,
        s3: settings.s3,
        onRefreshError: (e) =>
          out.warn(`replica refresh failed (serving the tree held): ${(e as Error).message}`),
      });
      return replica.db;
    },
  };
}
