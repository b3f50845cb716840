import { stat } from 'node:fs/promises';
import { basename, dirname, join, resolve } from 'node:path';
import { ENV } from '../env.js';
import { SnowdbError } from '../errors.js';
import { Layout } from './layout.js';

/** A database location that is a published copy (a read-only replica): `http(s)://…` or `s3://…`. */
export const isRemoteLocation = (location: string): boolean => /^(https?|s3):\/\//i.test(location);

export interface ConfiguredPath {
  /** Absolute path as configured (a database directory or its root config file), or a replica URL. */
  readonly path: string;
  /** Where it came from, for messages. */
  readonly origin: '--config' | typeof ENV.config;
}

/**
 * The configured location, without touching the filesystem: `--config` wins over SNOWDB_CONFIG
 * (`fromEnv`, its value).
 * @throws SnowdbError `config-not-set` when neither is given.
 */
export function configuredPath(option: string | undefined, fromEnv: string | undefined): ConfiguredPath {
  const at = (p: string) => (isRemoteLocation(p) ? p : resolve(p));
  if (option !== undefined && option !== '') return { path: at(option), origin: '--config' };
  if (fromEnv !== undefined && fromEnv !== '') return { path: at(fromEnv), origin: ENV.config };
  throw new SnowdbError(
    'config-not-set',
    `no database configured: pass --config <dir|${Layout.rootConfig}> or set ${ENV.config}`,
  );
}

/** The database directory a configured path stands for (a `snowdb.json` path stands for its folder). */
export function rootOf(path: string): string {
  return basename(path) === Layout.rootConfig ? dirname(path) : path;
}

/**
 * Resolve the configured path to an existing database directory.
 * @throws SnowdbError `database-not-found` or `not-a-database`.
 */
export async function locateDatabase(configured: ConfiguredPath): Promise<string> {
  const { path, origin } = configured;
  const st = await stat(path).catch(() => null);
  if (st === null) throw new SnowdbError('database-not-found', `${path} (from ${origin}) does not exist`);
  if (st.isFile() && basename(path) !== Layout.rootConfig) {
    throw new SnowdbError('not-a-database', `${path} (from ${origin}) is not a ${Layout.rootConfig} file`);
  }
  const root = st.isDirectory() ? path : dirname(path);
  const config = await stat(join(root, Layout.rootConfig)).catch(() => null);
  if (config === null || !config.isFile()) {
    throw new SnowdbError(
      'not-a-database',
      `${root} (from ${origin}) is not a snowdb database: it has no ${Layout.rootConfig} (create one with 'snowdb init ${root}')`,
    );
  }
  return root;
}
