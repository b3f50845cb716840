import { mkdir, readdir, stat } from 'node:fs/promises';
import { SnowdbError } from '../errors.js';
import { FileMemo } from '../io/memo.js';
import { localStore, type Store } from '../io/store.js';
import { Runtime } from '../util/runtime.js';
import { type DbPaths, dbPaths, Layout } from './layout.js';
import { newRootConfig, type RootConfig, readRootConfig, writeRootConfig } from './root-config.js';

/**
 * An opened database directory: its paths and its validated root config. A long-lived holder (the
 * API server) calls `refresh` to pick up a changed root config; files read through `memo` are
 * re-read only when they change.
 */
export class Database {
  readonly paths: DbPaths;
  config: RootConfig;
  private readonly configMemo: FileMemo<RootConfig>;
  /** Per-file memos of this database, by absolute path. */
  private readonly memos = new Map<string, FileMemo<unknown>>();

  private constructor(
    paths: DbPaths,
    configMemo: FileMemo<RootConfig>,
    config: RootConfig,
    /** Where the database is, for people: its folder, or the URL a replica reads. */
    readonly location: string,
    /** Where its files are read from: the local filesystem, or a replica's published copy. */
    readonly store: Store,
    /** The caches and worker pools everything reading through this database uses. */
    readonly runtime: Runtime,
  ) {
    this.paths = paths;
    this.configMemo = configMemo;
    this.config = config;
  }

  get root(): string {
    return this.paths.root;
  }

  /**
   * Open the database at `root`: an existing directory holding `snowdb.json`, or (with `store`) a
   * replica's published copy, its paths under the virtual folder `root`, shown as `location`. It
   * runs on `runtime` (the composition root's), else on a runtime of its own with the defaults.
   */
  static async open(root: string, o: OpenOptions = {}): Promise<Database> {
    const { location = root, store = localStore, runtime = new Runtime() } = o;
    const paths = dbPaths(root);
    const memo = new FileMemo(store, paths.rootConfig, () => readRootConfig(store, paths.rootConfig));
    return new Database(paths, memo, await memo.get(), location, store, runtime);
  }

  /** Re-read the root config if the file changed since it was read (one stat). */
  async refresh(): Promise<void> {
    this.config = await this.configMemo.get();
  }

  /**
   * The value `load` makes of a file of this database, loaded again only when the file changed
   * (one stat per call). One memo per path: the first `load` given for a path is the one kept.
   */
  memo<T>(path: string, load: (path: string) => Promise<T>): Promise<T> {
    let m = this.memos.get(path) as FileMemo<T> | undefined;
    if (m === undefined) {
      m = new FileMemo(this.store, path, () => load(path));
      this.memos.set(path, m as FileMemo<unknown>);
    }
    return m.get();
  }

  /** Persist the root config atomically. */
  async saveConfig(config: RootConfig): Promise<void> {
    await writeRootConfig(this.paths.rootConfig, config);
    this.config = config;
  }
}

export interface OpenOptions {
  readonly location?: string;
  readonly store?: Store;
  readonly runtime?: Runtime;
}

/** What `init` did: created a new database, or found one already there. */
export type InitOutcome =
  | { readonly kind: 'created'; readonly root: string }
  | { readonly kind: 'exists'; readonly root: string };

/**
 * Create a database at `root`: `pourpoints/`, `data/`, then the root config last (its presence
 * marks a database). An existing database is left exactly as it is.
 * @throws SnowdbError `directory-not-empty` for a non-empty directory that is not a database,
 *   `invalid-config` when an existing `snowdb.json` does not validate.
 */
export async function initDatabase(root: string, now: Date = new Date()): Promise<InitOutcome> {
  const paths = dbPaths(root);
  const st = await stat(root).catch(() => null);
  if (st !== null && !st.isDirectory()) {
    throw new SnowdbError('directory-not-empty', `${root} exists and is not a directory`);
  }
  if (st !== null) {
    const entries = await readdir(root);
    if (entries.includes(Layout.rootConfig)) {
      await readRootConfig(localStore, paths.rootConfig);
      return { kind: 'exists', root };
    }
    if (entries.length > 0) {
      throw new SnowdbError(
        'directory-not-empty',
        `${root} is not empty and is not a snowdb database (${entries.length} entr${entries.length === 1 ? 'y' : 'ies'}); choose an empty or new directory`,
      );
    }
  }
  await mkdir(paths.pourpoints, { recursive: true });
  await mkdir(paths.data, { recursive: true });
  await writeRootConfig(paths.rootConfig, newRootConfig(now));
  return { kind: 'created', root };
}
