import { resolve } from 'node:path';
import type { Database } from '../db/database.js';
import { type DatasetPaths, datasetDir, datasetPaths } from '../db/layout.js';
import type { DatasetLink } from '../db/root-config.js';
import { SnowdbError } from '../errors.js';
import type { Store } from '../io/store.js';
import type { AreaGeometry } from '../raster/geometry.js';
import type { Grid } from '../raster/grid.js';
import { byString } from '../util/compare.js';
import type { Runtime } from '../util/runtime.js';
import { type DatasetConfig, footprintOf, gridOf, readDatasetConfig } from './config.js';

/** Dataset names: a letter or digit, then letters, digits, `-` or `_` (no path can hide in one). */
export const DATASET_NAME = /^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$/;

export function checkDatasetName(name: string): string {
  if (!DATASET_NAME.test(name)) {
    throw new SnowdbError(
      'invalid-name',
      `'${name}' is not a dataset name: use 1-64 letters, digits, '-' or '_', starting with a letter or digit`,
    );
  }
  return name;
}

/** A registered dataset, opened: its link, config file, folder, validated config and grid. */
export interface Dataset {
  readonly name: string;
  readonly link: DatasetLink;
  readonly configPath: string;
  readonly dir: string;
  /** Every path inside the dataset folder. */
  readonly paths: DatasetPaths;
  readonly config: DatasetConfig;
  readonly grid: Grid;
  readonly footprint: AreaGeometry | null;
  /** Where its files are read from (its database's store). */
  readonly store: Store;
  /** Its database's caches and worker pools. */
  readonly runtime: Runtime;
}

/**
 * Open the dataset a link (registered or about to be) points at, in database `db`; `read` loads
 * the config (default: read and validate the file).
 */
export async function openLink(
  db: Pick<Database, 'root' | 'store' | 'runtime'>,
  name: string,
  link: DatasetLink,
  read: (path: string) => Promise<DatasetConfig> = (p) => readDatasetConfig(db.store, p),
): Promise<Dataset> {
  const configPath = resolve(db.root, link.path);
  const config = await read(configPath);
  const dir = datasetDir(db.root, link.path);
  return {
    name,
    link,
    configPath,
    dir,
    paths: datasetPaths(dir),
    config,
    grid: gridOf(config),
    footprint: footprintOf(config),
    store: db.store,
    runtime: db.runtime,
  };
}

/**
 * Open one registered dataset (active or not).
 * @throws SnowdbError `dataset-not-found` when `name` is not registered.
 */
export async function openDataset(db: Database, name: string): Promise<Dataset> {
  const link = db.config.datasets[name];
  if (link === undefined) {
    const known = Object.keys(db.config.datasets).sort(byString);
    throw new SnowdbError(
      'dataset-not-found',
      `no dataset '${name}' is registered${known.length ? ` (registered: ${known.join(', ')})` : ''}`,
    );
  }
  // The config is parsed again only when its file changed (one stat); while it is the same
  // object, so is the dataset (request caches key on it).
  const config = await db.memo(resolve(db.root, link.path), (p) => readDatasetConfig(db.store, p));
  const byLink = opened.get(config) ?? new Map<string, Dataset>();
  opened.set(config, byLink);
  const key = `${db.root}|${name}|${link.path}`;
  const hit = byLink.get(key);
  if (hit !== undefined) return hit;
  const d = await openLink(db, name, link, async () => config);
  byLink.set(key, d);
  return d;
}

const opened = new WeakMap<DatasetConfig, Map<string, Dataset>>();

/**
 * The named datasets, each once, in the order first named.
 * @throws SnowdbError `dataset-not-found` for the first name not registered.
 */
export async function openNamedDatasets(db: Database, names: readonly string[]): Promise<Dataset[]> {
  const out: Dataset[] = [];
  for (const n of new Set(names)) out.push(await openDataset(db, n));
  return out;
}

/** Every registered dataset, sorted by name. */
export async function openDatasets(db: Database): Promise<Dataset[]> {
  const names = Object.keys(db.config.datasets).sort(byString);
  return Promise.all(names.map((n) => openLink(db, n, db.config.datasets[n]!)));
}

/**
 * A dataset as readers (stats, API) see it: only active ones exist for them.
 * @throws SnowdbError `dataset-not-found`, with a hint when it is registered but inactive.
 */
export async function openActiveDataset(db: Database, name: string): Promise<Dataset> {
  const link = db.config.datasets[name];
  if (link !== undefined && !link.active) {
    throw new SnowdbError(
      'dataset-not-found',
      `dataset '${name}' is not active (activate it with 'snowdb dataset activate ${name}')`,
    );
  }
  if (link === undefined) {
    // Readers are told only of what they may read: the active datasets.
    const active = Object.keys(db.config.datasets)
      .filter((n) => db.config.datasets[n]!.active)
      .sort(byString);
    throw new SnowdbError(
      'dataset-not-found',
      `no active dataset '${name}'${active.length ? ` (active: ${active.join(', ')})` : ''}`,
    );
  }
  return openDataset(db, name);
}
