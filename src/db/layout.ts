import { dirname, join, resolve } from 'node:path';

/** File and folder names of a database directory (spec §2.7). */
export const Layout = {
  /** Root config file name. */
  rootConfig: 'snowdb.json',
  /** Pourpoint records folder, relative to the root. */
  pourpoints: 'pourpoints',
  /** Pourpoint index manifest, relative to the root. */
  pourpointIndex: 'pourpoints/index.geojson',
  /** Per-dataset folders live under this, relative to the root. */
  data: 'data',
  /** Caches (land-cover download), relative to the root. */
  cache: '.cache',
} as const;

/** Absolute paths of one database rooted at `root`. */
export interface DbPaths {
  readonly root: string;
  readonly rootConfig: string;
  readonly pourpoints: string;
  readonly pourpointIndex: string;
  readonly data: string;
}

export function dbPaths(root: string): DbPaths {
  return {
    root,
    rootConfig: join(root, Layout.rootConfig),
    pourpoints: join(root, Layout.pourpoints),
    pourpointIndex: join(root, Layout.pourpointIndex),
    data: join(root, Layout.data),
  };
}

/** Folder of per-basin AOI rasters inside a dataset folder. */
export const AOI_DIR = 'aoi';

/** A dataset's folder: the folder holding its config (`data/<name>/` for created datasets). */
export function datasetDir(root: string, configPath: string): string {
  return dirname(resolve(root, configPath));
}

/** Folder of per-date COG folders (`<YYYYMMDD>/`) inside a dataset folder. */
export const DATES_DIR = 'cogs';

/** Folder of zone layers inside a dataset folder. */
export const ZONES_DIR = 'zones';
