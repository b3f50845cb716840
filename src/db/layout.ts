import { dirname, join, resolve, sep } from 'node:path';
import { SnowdbError } from '../errors.js';
import { compactDate } from '../util/dates.js';

/**
 * Every file and folder name of a database directory, and the one place paths inside it are
 * built. On-disk layout: ARCHITECTURE.md, "On-disk layout"; reference: docs/reference.md.
 */
export const Layout = {
  /** Root config file name. */
  rootConfig: 'snowdb.json',
  /** Pourpoint records folder, relative to the root. */
  pourpoints: 'pourpoints',
  /** Pourpoint index manifest, relative to the root. */
  pourpointIndex: 'pourpoints/index.geojson',
  /** Basins an interrupted import/sync left without current AOI rasters, relative to the root. */
  pourpointPending: 'pourpoints/.pending.json',
  /** Per-dataset folders live under this, relative to the root. */
  data: 'data',
  /** Caches (land-cover download, fetched sources), relative to the root. */
  cache: '.cache',
  /** AWDB stations, their records and forecast points (src/stations/store.ts), relative to the root. */
  stations: 'stations',
  /** Held by the one `snowdb update` running, relative to the root. */
  updateLock: '.update.lock',
} as const;

/** Names inside one dataset folder. */
const DatasetLayout = {
  config: 'dataset.json',
  area: 'area.tif',
  aoi: 'aoi',
  coverageIndex: 'coverage.idx',
  dates: 'cogs',
  manifest: 'manifest.json',
  zones: 'zones',
  series: 'series',
  removed: '.removed-dates.json',
} as const;

/**
 * File stem of a triplet's files: `:` → `_` (`06287000:MT:USGS` → `06287000_MT_USGS`). Only
 * letters, digits, `-` and `:` may name a file, so no id can reach outside its folder.
 * @throws SnowdbError `invalid-name` for anything else (`../x:UT:SNTL`).
 */
export function stemOf(triplet: string): string {
  if (!/^[A-Za-z0-9-]+(?::[A-Za-z0-9-]+)*$/.test(triplet) || triplet.length > 200)
    throw new SnowdbError(
      'invalid-name',
      `${JSON.stringify(triplet.slice(0, 80))} cannot name a file: an id holds letters, digits, '-' and ':' only`,
    );
  return triplet.replaceAll(':', '_');
}

/** Record file name of a triplet: `<stem>.geojson`. */
export function recordFileName(triplet: string): string {
  return `${stemOf(triplet)}.geojson`;
}

/**
 * The basin id a record file name stands for, or null (`06287000_MT_USGS.geojson` →
 * `06287000:MT:USGS`, `huc12_140700010101.geojson` → `huc12:140700010101`): three parts are a
 * triplet, two a set member (neither part holds `_`).
 */
export function tripletOfFileName(name: string): string | null {
  const m = /^([a-zA-Z0-9-]+)_([a-zA-Z]{2})_([a-zA-Z]+)\.geojson$/.exec(name);
  if (m) return `${m[1]}:${m[2]}:${m[3]}`;
  const s = /^([a-z][a-z0-9-]{0,31})_([a-zA-Z0-9-]{1,64})\.geojson$/.exec(name);
  return s ? `${s[1]}:${s[2]}` : null;
}

/** Absolute paths of one database rooted at `root`. */
export interface DbPaths {
  readonly root: string;
  readonly rootConfig: string;
  readonly pourpoints: string;
  readonly pourpointIndex: string;
  readonly pourpointPending: string;
  readonly data: string;
  /** `pourpoints/<stem>.geojson`. */
  record(triplet: string): string;
  /** `.cache/<kind>/`: deletable download caches. */
  cache(kind: string): string;
}

export function dbPaths(root: string): DbPaths {
  return {
    root,
    rootConfig: join(root, Layout.rootConfig),
    pourpoints: join(root, Layout.pourpoints),
    pourpointIndex: join(root, Layout.pourpointIndex),
    pourpointPending: join(root, Layout.pourpointPending),
    data: join(root, Layout.data),
    record: (triplet) => join(root, Layout.pourpoints, recordFileName(triplet)),
    cache: (kind) => join(root, Layout.cache, kind),
  };
}

/** Config path of a created dataset, relative to the root: `data/<name>/dataset.json`. */
export function createdConfigPath(name: string): string {
  return join(Layout.data, name, DatasetLayout.config);
}

/** A dataset's folder: the folder holding its config (`data/<name>/` for created datasets). */
export function datasetDir(root: string, configPath: string): string {
  return dirname(resolve(root, configPath));
}

/** Date folder name: `YYYYMMDD` (an ISO `YYYY-MM-DD` is accepted and compacted). */

/** Every path inside one dataset folder. Dates may be ISO or `YYYYMMDD`. */
export interface DatasetPaths {
  readonly dir: string;
  /** Cell areas, m² (float32, the whole grid). */
  readonly area: string;
  readonly aoiDir: string;
  /** A basin's AOI raster: `aoi/<stem>.tif`. */
  aoi(triplet: string): string;
  /** Every basin's AOI weights in one file (`coverage.idx`, datasets/coverage-index.ts). */
  readonly coverageIndex: string;
  /** Folder of the per-date folders; its signature changes with every ingest. */
  readonly datesDir: string;
  /** `cogs/<YYYYMMDD>`: a symlink to the date's current version folder (or, before 0.x, a folder). */
  date(date: string): string;
  /** `cogs/<YYYYMMDD>/<variable>.tif`. */
  cog(date: string, variable: string): string;
  /** `cogs/<YYYYMMDD>/manifest.json`. */
  manifest(date: string): string;
  /** `cogs/.<YYYYMMDD>.lock`: the per-date ingest lock. */
  dateLock(date: string): string;
  /** `cogs/.<YYYYMMDD>.<tag>.v/`: one version of a date (staged, then linked in). */
  dateVersion(date: string, tag: string): string;
  /** `cogs/.<YYYYMMDD>.<tag>.lnk`: the new link, renamed over `cogs/<YYYYMMDD>`. */
  dateLink(date: string, tag: string): string;
  readonly zonesDir: string;
  /** `zones/<provider>/<file>`. */
  zoneLayer(provider: string, file: string): string;
  /** `zones/.staging-<provider>-<tag>/`. */
  zoneStaging(provider: string, tag: string): string;
  /** The derived time-contiguous store (rebuildable from the COGs): `series/`. */
  readonly seriesDir: string;
  /** `series/blocks.bin`: the grid blocks the store holds. */
  readonly seriesBlocks: string;
  /** `series/<variable>/`: one page file per 8-day page, one pack per closed water year. */
  seriesVariable(variable: string): string;
  /** `series/<variable>/<page>.page`. */
  seriesPage(variable: string, page: string): string;
  /** `series/<variable>/wy<YYYY>.pack`: the pages of a closed water year in one file. */
  seriesPack(variable: string, waterYear: number): string;
  /** `series/stale/`: one empty file per date whose pages wait for an update. */
  readonly seriesStaleDir: string;
  /** `series/stale/<YYYYMMDD>`. */
  seriesStale(date: string): string;
  /** The dates `remove-date` has taken out (written before it starts): a rerun accepts them as done. */
  readonly removed: string;
}

/** Folders `pourpoint sync` stages downloads in, in the system temp dir: `snowdb-sync-<pid>-XXXXXX`. */
export const SYNC_STAGING_PREFIX = 'snowdb-sync-';
/** HTTP exports are written in the system temp dir as `snowdb-export-<pid>-<request>.<ext>`. */
export const EXPORT_TEMP_PREFIX = 'snowdb-export-';

/** Names of the files a date folder holds besides its COGs. */
export const MANIFEST = DatasetLayout.manifest;
/** File name of a dataset's area raster inside its folder. */
export const AREA_RASTER = DatasetLayout.area;

export function datasetPaths(dir: string): DatasetPaths {
  const dates = join(dir, DatasetLayout.dates);
  const zones = join(dir, DatasetLayout.zones);
  const series = join(dir, DatasetLayout.series);
  const aoiDir = join(dir, DatasetLayout.aoi);
  return {
    dir,
    area: join(dir, DatasetLayout.area),
    aoiDir,
    // Joined by hand, as `cog`: a plan of every basin makes one each.
    aoi: (triplet) => `${aoiDir}${sep}${stemOf(triplet)}.tif`,
    coverageIndex: join(dir, DatasetLayout.coverageIndex),
    datesDir: dates,
    date: (date) => join(dates, compactDate(date)),
    // Joined by hand: `dates` is normalized and names hold no separator (a stats plan makes one per date).
    cog: (date, variable) => `${dates}${sep}${compactDate(date)}${sep}${variable}.tif`,
    manifest: (date) => join(dates, compactDate(date), DatasetLayout.manifest),
    dateLock: (date) => join(dates, `.${compactDate(date)}.lock`),
    dateVersion: (date, tag) => join(dates, `.${compactDate(date)}.${tag}.v`),
    dateLink: (date, tag) => join(dates, `.${compactDate(date)}.${tag}.lnk`),
    zonesDir: zones,
    zoneLayer: (provider, file) => join(zones, provider, file),
    zoneStaging: (provider, tag) => join(zones, `.staging-${provider}-${tag}`),
    seriesDir: series,
    seriesBlocks: join(series, 'blocks.bin'),
    seriesVariable: (variable) => join(series, variable),
    seriesPage: (variable, page) => join(series, variable, `${page}.page`),
    seriesPack: (variable, waterYear) => join(series, variable, `wy${waterYear}.pack`),
    seriesStaleDir: join(series, 'stale'),
    seriesStale: (date) => join(series, 'stale', compactDate(date)),
    removed: join(dir, DatasetLayout.removed),
  };
}
