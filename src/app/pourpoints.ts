import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { currentAoiHashes } from '../datasets/artifacts.js';
import { coverageAgainst, datasetCoverage } from '../datasets/coverage.js';
import {
  type RasterizeRequest,
  type RasterizeRow,
  rasterizeBasins,
  rasterizeIndexed,
  refreshCoverageIndexes,
} from '../datasets/rasterize.js';
import { type Dataset, openDataset, openDatasets } from '../datasets/registry.js';
import { type TilingReport, tilingOf } from '../datasets/tiling.js';
import type { Database } from '../db/database.js';
import { debrisRoots, sweepDebris } from '../db/debris.js';
import { SnowdbError } from '../errors.js';
import { pathExists } from '../io/fs.js';
import type { GitHubSettings } from '../io/github.js';
import { isBasinSet, readBasinSet, type SetOptions } from '../pourpoints/basin-sets.js';
import { type ReindexReport, reindexPourpoints } from '../pourpoints/catalog.js';
import { applyGroupChanges, describeGroupChange, groupChanges, readGroups } from '../pourpoints/groups.js';
import { readIndex, writeIndex } from '../pourpoints/index-file.js';
import { addPending, clearPending, isEmpty, readPending } from '../pourpoints/pending.js';
import { type SourceListing, singleFileSource } from '../pourpoints/sources.js';
import { basinRasterPaths, deleteBasin, indexOf, storedTriplets } from '../pourpoints/store.js';
import { type SyncOptions, type SyncReport, syncPourpoints } from '../pourpoints/sync.js';
import { checkTriplet } from '../pourpoints/triplet.js';
import { extendSeries } from '../series/build.js';

/** A sync's report and how many AOI rasters it built for the basins it imported. */
export interface ImportReport extends SyncReport {
  /** AOI rasters built for imported basins in the registered datasets. */
  readonly aoiBuilt: number;
  /** A basin set's tiling per registered dataset: its members' overlaps and interior gaps. */
  readonly tiling?: readonly TilingReport[];
}

export interface ImportOptions extends Omit<SyncOptions, 'coverage'> {
  /** Progress of building AOI rasters for imported basins in registered datasets. */
  readonly onRasterProgress?: ((done: number, total: number) => void) | undefined;
  /** The basin set imported (its members' tiling is reported), if the source is one. */
  readonly set?: string | null | undefined;
}

/**
 * `pourpoint import` and `sync`: import (or mirror) the records of a source with their coverage
 * against every registered dataset, then finish the journal: the AOI rasters of the new and
 * updated basins (and of any a killed run left pending), series blocks, pruned rasters.
 */
export async function importPourpoints(
  db: Database,
  listing: SourceListing,
  opts: ImportOptions,
): Promise<ImportReport> {
  const datasets = await openDatasets(db);
  await sweepDebris(debrisRoots(db, datasets));
  const coverage = coverageAgainst(datasets);
  // Records stored but the index lost (deleted, or a copy made without it): rebuilt from every
  // record first, so the import adds to the basins instead of leaving only its own indexed.
  if (!opts.dryRun && !(await pathExists(db.paths.pourpointIndex)) && (await storedTriplets(db)).size > 0)
    await reindexPourpoints(db, coverage.of);
  const report = await syncPourpoints(db, listing, { ...opts, coverage });
  const aoiBuilt = report.dryRun ? 0 : await finishPending(db, datasets, opts.onRasterProgress);
  if (report.dryRun || !opts.set) return { ...report, aoiBuilt };
  // Overlaps and gaps among the set's members, from each dataset's coverage index (never silent).
  const members = [...(await readIndex(db.store, db.paths.pourpointIndex)).keys()].filter((t) =>
    t.startsWith(`${opts.set}:`),
  );
  const tiling: TilingReport[] = [];
  for (const d of datasets) {
    const t = await tilingOf(d, members);
    if (t) tiling.push(t);
  }
  return { ...report, aoiBuilt, tiling };
}

/**
 * Do the work the pourpoint journal lists, then clear it: build (or confirm current) the AOI
 * rasters of its indexed basins, add their blocks to each series store (their whole history read
 * from the COGs once), delete what pruned basins left. @returns AOI rasters built.
 */
async function finishPending(
  db: Database,
  datasets: readonly Dataset[],
  onProgress?: (done: number, total: number) => void,
): Promise<number> {
  const pending = await readPending(db);
  if (isEmpty(pending)) return 0;
  const index = await readIndex(db.store, db.paths.pourpointIndex);
  const entries = pending.aoi.flatMap((t) => index.get(t) ?? []);
  let built = 0;
  if (entries.length > 0 && datasets.length > 0) {
    const { rows, fresh } = await rasterizeBasins(db, entries, datasets, { onProgress });
    built = rows.filter((r) => r.action === 'built').length;
    // The coverage index first: the series blocks are read from it (a kill in between leaves the
    // journal, and the next command extends the store again).
    await refreshCoverageIndexes(datasets, [...index.values()], fresh);
    for (const d of datasets) await extendSeries(d, currentAoiHashes(d, index.values()));
  } else if (pending.pruned.length > 0)
    await refreshCoverageIndexes(datasets, [...index.values()], new Map());
  // A journalled basin the index does not hold: a pruned one goes whole, a new one (its import
  // killed before the index was written) keeps its record but not its rasters.
  for (const t of pending.pruned) if (!index.has(t)) await deleteBasin(db, t);
  for (const t of pending.aoi)
    if (!index.has(t)) for (const p of basinRasterPaths(db, t)) await rm(p, { force: true });
  await clearPending(db);
  return built;
}

/**
 * The source of `pourpoint import FILE` (or `sync FILE`): a basin set (a GeoJSON
 * FeatureCollection or polygon Feature, a zipped Shapefile, a GeoPackage, or any file with set
 * options), its features checked and made records; else the one record file as it is.
 * @throws SnowdbError as `readBasinSet` and `singleFileSource`.
 */
export async function fileSource(
  spec: string,
  github: GitHubSettings,
  set: SetOptions,
): Promise<{ listing: SourceListing; set: string | null }> {
  const single = await singleFileSource(spec, github);
  const file = single.files[0]!;
  const part = /\.(shp|shx|dbf|prj|cpg)$/i.exec(file.name)?.[1];
  if (part !== undefined) {
    const stem = file.name.slice(0, -part.length - 1);
    throw new SnowdbError(
      'invalid-source',
      `${file.label}: one part of a Shapefile; zip it with its .dbf, .shx and .prj (zip ${stem}.zip ${stem}.shp ${stem}.shx ${stem}.dbf ${stem}.prj) and import the zip`,
    );
  }
  const bytes = await file.read();
  const asked = Object.values(set).some((v) => v !== undefined);
  if (!asked && !isBasinSet(bytes)) return { listing: single, set: null };
  // A URL's bytes go to a temporary file: the set readers read files (zip members, SQLite).
  const local = single.description === file.label && !/^https?:/i.test(file.label);
  const dir = local ? null : await mkdtemp(join(tmpdir(), 'snowdb-set-'));
  try {
    const path = dir === null ? file.label : join(dir, file.name);
    if (dir !== null) await writeFile(path, bytes);
    const listing = await readBasinSet(path, spec, set, bytes);
    return { listing, set: set.set ?? null };
  } finally {
    if (dir !== null) await rm(dir, { recursive: true, force: true });
  }
}

/** `pourpoint reindex`: the index rebuilt from the records, coverage against every registered dataset. */
export async function reindex(db: Database): Promise<ReindexReport> {
  return reindexPourpoints(db, (await datasetCoverage(db)).of);
}

/**
 * `pourpoint rasterize`: AOI rasters built or rebuilt, then new blocks added to the series stores;
 * work an interrupted import left in the journal is finished first.
 */
export async function rasterizePourpoints(db: Database, req: RasterizeRequest): Promise<RasterizeRow[]> {
  await finishPending(db, await openDatasets(db));
  const rows = await rasterizeIndexed(db, req);
  const names = req.datasets?.length ? req.datasets : (await openDatasets(db)).map((d) => d.name);
  if (rows.some((r) => r.action === 'built'))
    for (const name of names) {
      const d = await openDataset(db, name);
      await extendSeries(d, currentAoiHashes(d, (await indexOf(db)).values()));
    }
  return rows;
}

export interface RemoveReport {
  readonly dryRun: boolean;
  /** Groups that held a removed basin, as `describeGroupChange` says it. */
  readonly groups: readonly string[];
  /** Triplets removed (or that would be). */
  readonly removed: readonly string[];
  /** Files deleted (or that would be), absolute: records and AOI rasters present. */
  readonly files: readonly string[];
}

/**
 * `pourpoint remove`: basins out of the database, with their AOI rasters and index entries. The
 * journal lists them first, then the index drops them (one atomic write), then their files go:
 * a kill in between is finished by the next import, sync or remove.
 * A basin that belongs to a group is removed only with `force`: the group then keeps its other
 * members (or is removed when fewer than two are left), and the report says so.
 * @throws SnowdbError `invalid-name`, `pourpoint-not-found`, `usage-error` (a group member
 *   without `force`); nothing is changed then.
 */
export async function removePourpoints(
  db: Database,
  triplets: readonly string[],
  opts: { dryRun?: boolean; force?: boolean } = {},
): Promise<RemoveReport> {
  const index = await readIndex(db.store, db.paths.pourpointIndex);
  const stored = await storedTriplets(db);
  const wanted = [...new Set(triplets.map((t) => checkTriplet(t)))].sort();
  for (const t of wanted)
    if (!index.has(t) && !stored.has(t))
      throw new SnowdbError('pourpoint-not-found', `pourpoint '${t}' is not in the database`);
  const files: string[] = [];
  for (const t of wanted)
    for (const p of [db.paths.record(t), ...basinRasterPaths(db, t)]) if (await pathExists(p)) files.push(p);
  const changes = groupChanges(await readGroups(db), wanted);
  const groups = changes.map(describeGroupChange);
  if (opts.dryRun === true) return { dryRun: true, removed: wanted, files, groups };
  if (changes.length > 0 && opts.force !== true)
    throw new SnowdbError(
      'usage-error',
      `${changes.map((c) => `group:${c.group}`).join(', ')} hold${changes.length === 1 ? 's' : ''} ${[...new Set(changes.flatMap((c) => c.losing))].join(', ')}; give --force to remove ${wanted.length === 1 ? 'it' : 'them'} (${groups.join('; ')})`,
    );
  await addPending(db, { aoi: [], pruned: wanted });
  await applyGroupChanges(db, changes);
  for (const t of wanted) index.delete(t);
  await writeIndex(db.paths.pourpointIndex, index.values());
  await finishPending(db, await openDatasets(db));
  return { dryRun: false, removed: wanted, files, groups };
}
