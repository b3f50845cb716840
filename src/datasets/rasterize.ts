import type { Database } from '../db/database.js';
import { type Coverage, type IndexEntry, readIndex, writeIndex } from '../pourpoints/index-file.js';
import { indexedEntry, readStoredBasin } from '../pourpoints/store.js';
import { containment } from '../raster/extent.js';
import { mapPool } from '../util/pool.js';
import { aoiHash, type BuildAction, buildAoi, gridHash, readTag } from './artifacts.js';
import {
  type IndexRow,
  indexedWeights,
  readCoverageIndex,
  type SparseWeights,
  sparseOf,
  writeCoverageIndex,
} from './coverage-index.js';
import { readOnto } from './read-onto.js';
import { type Dataset, openDataset, openDatasets } from './registry.js';

/** One basin on one dataset: its coverage and what happened to its AOI raster. */
export interface RasterizeRow {
  readonly triplet: string;
  readonly dataset: string;
  readonly coverage: Coverage;
  readonly action: BuildAction;
}

export interface RasterizeOptions {
  readonly rebuild?: boolean;
  readonly onProgress?: ((done: number, total: number) => void) | undefined;
}

/** Weights of the AOI rasters a rasterize built: dataset → triplet → weights. */
export type FreshWeights = Map<string, Map<string, SparseWeights>>;

/**
 * Compute coverage and build (or confirm current) the AOI raster of each indexed basin on each
 * dataset, 2 basins at a time. Returns a row per (basin, dataset), the index entries with those
 * datasets' coverage folded in (the caller writes the index) and the weights of the rasters
 * built (the caller refreshes the coverage indexes with them: `refreshCoverageIndexes`).
 */
export async function rasterizeBasins(
  db: Database,
  entries: readonly IndexEntry[],
  datasets: readonly Dataset[],
  opts: RasterizeOptions = {},
): Promise<{ rows: RasterizeRow[]; entries: IndexEntry[]; fresh: FreshWeights }> {
  let done = 0;
  const fresh: FreshWeights = new Map(datasets.map((d) => [d.name, new Map()]));
  opts.onProgress?.(0, entries.length);
  const results = await mapPool(entries, 8, async (entry) => {
    const rec = await readStoredBasin(db, entry.triplet);
    const coverage: Record<string, Coverage> = { ...entry.coverage };
    const rows: RasterizeRow[] = [];
    for (const d of datasets) {
      const c = containment(d.grid, rec.basin, d.footprint);
      coverage[d.name] = c;
      const action = await buildAoi(
        d,
        entry.triplet,
        rec.basin,
        entry.geometryHash,
        c !== 'none',
        opts.rebuild,
        (w) => fresh.get(d.name)!.set(entry.triplet, w),
      );
      rows.push({ triplet: entry.triplet, dataset: d.name, coverage: c, action });
    }
    opts.onProgress?.(++done, entries.length);
    return { rows, entry: { ...entry, coverage } };
  });
  return { rows: results.flatMap((r) => r.rows), entries: results.map((r) => r.entry), fresh };
}

/**
 * Rewrite each dataset's coverage index for `entries` (every indexed basin): a basin's weights
 * from `fresh` (just built), else from the old index where its AOI hash is current, else from
 * its AOI raster when that is current; a basin with none of these is left out (its queries read,
 * and report, its AOI raster). @returns basins indexed per dataset.
 */
export async function refreshCoverageIndexes(
  datasets: readonly Dataset[],
  entries: readonly IndexEntry[],
  fresh: FreshWeights,
): Promise<number[]> {
  const counts: number[] = [];
  for (const d of datasets) {
    const made = fresh.get(d.name) ?? new Map<string, SparseWeights>();
    // An unreadable old index is rebuilt from the AOI rasters.
    const old = await readCoverageIndex(d.store, d.paths.coverageIndex).catch(() => null);
    const grid = gridHash(d);
    const rows: IndexRow[] = [];
    for (const e of entries) {
      if ((e.coverage[d.name] ?? 'none') === 'none') continue;
      const hash = aoiHash(d, e.geometryHash);
      const f = made.get(e.triplet);
      const o = old?.gridHash === grid ? old.basins.get(e.triplet) : undefined;
      let row: IndexRow | null = null;
      if (f)
        row = {
          triplet: e.triplet,
          aoiHash: hash,
          window: f.window,
          pixels: f.at.length,
          weights: async () => f,
        };
      else if (old && o?.aoiHash === hash)
        row = {
          triplet: e.triplet,
          aoiHash: hash,
          window: o.window,
          pixels: o.pixels,
          weights: () => indexedWeights(d.store, old, o),
        };
      else if (
        (await readTag(d.store, d.paths.aoi(e.triplet), 'SNOWDB_AOI_HASH').catch(() => null)) === hash
      ) {
        const aoi = await readOnto(d.store, d.paths.aoi(e.triplet), 'SNOWDB_AOI_WINDOW', null, 0);
        if (aoi) {
          const w = sparseOf(aoi.data, aoi.window);
          row = {
            triplet: e.triplet,
            aoiHash: hash,
            window: w.window,
            pixels: w.at.length,
            weights: async () => w,
          };
        }
      }
      if (row) rows.push(row);
    }
    await writeCoverageIndex(d.paths.coverageIndex, grid, rows);
    counts.push(rows.length);
  }
  return counts;
}

export interface RasterizeRequest extends RasterizeOptions {
  /** One triplet, or every indexed basin when undefined. */
  readonly triplet?: string | undefined;
  /** Dataset names; default every registered dataset. */
  readonly datasets?: readonly string[] | undefined;
}

/**
 * `pourpoint rasterize`: build missing or stale AOI rasters (all of them with `rebuild`) of one or
 * every indexed basin in the chosen datasets, and refresh their coverage in the index.
 * @throws SnowdbError `pourpoint-not-found`, `dataset-not-found`.
 */
export async function rasterizeIndexed(db: Database, req: RasterizeRequest): Promise<RasterizeRow[]> {
  const index = await readIndex(db.store, db.paths.pourpointIndex);
  const entries = req.triplet === undefined ? [...index.values()] : [indexedEntry(index, req.triplet)];
  const datasets = req.datasets?.length
    ? await Promise.all(req.datasets.map((n) => openDataset(db, n)))
    : await openDatasets(db);
  const out = await rasterizeBasins(db, entries, datasets, req);
  for (const e of out.entries) index.set(e.triplet, e);
  await writeIndex(db.paths.pourpointIndex, index.values());
  await refreshCoverageIndexes(datasets, [...index.values()], out.fresh);
  return out.rows;
}
