import type { Database } from '../db/database.js';
import { type Coverage, type IndexEntry, readIndex, writeIndex } from '../pourpoints/index-file.js';
import { indexedEntry, readStoredBasin } from '../pourpoints/store.js';
import { containment } from '../raster/extent.js';
import { mapPool } from '../util/pool.js';
import { type BuildAction, buildAoi } from './artifacts.js';
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

/**
 * Compute coverage and build (or confirm current) the AOI raster of each indexed basin on each
 * dataset, 2 basins at a time. Returns a row per (basin, dataset) and the index entries with
 * those datasets' coverage folded in (the caller writes the index).
 */
export async function rasterizeBasins(
  db: Database,
  entries: readonly IndexEntry[],
  datasets: readonly Dataset[],
  opts: RasterizeOptions = {},
): Promise<{ rows: RasterizeRow[]; entries: IndexEntry[] }> {
  let done = 0;
  opts.onProgress?.(0, entries.length);
  const results = await mapPool(entries, 2, async (entry) => {
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
      );
      rows.push({ triplet: entry.triplet, dataset: d.name, coverage: c, action });
    }
    opts.onProgress?.(++done, entries.length);
    return { rows, entry: { ...entry, coverage } };
  });
  return { rows: results.flatMap((r) => r.rows), entries: results.map((r) => r.entry) };
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
  return out.rows;
}
