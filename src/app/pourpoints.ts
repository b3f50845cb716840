import { coverageAgainst, datasetCoverage } from '../datasets/coverage.js';
import {
  type RasterizeRequest,
  type RasterizeRow,
  rasterizeBasins,
  rasterizeIndexed,
} from '../datasets/rasterize.js';
import { openDataset, openDatasets } from '../datasets/registry.js';
import type { Database } from '../db/database.js';
import { type ReindexReport, reindexPourpoints } from '../pourpoints/catalog.js';
import type { SourceListing } from '../pourpoints/sources.js';
import { type SyncOptions, type SyncReport, syncPourpoints } from '../pourpoints/sync.js';
import { extendSeries } from '../series/build.js';

/** A sync's report and how many AOI rasters it built for the basins it imported. */
export interface ImportReport extends SyncReport {
  /** AOI rasters built for imported basins in the registered datasets. */
  readonly aoiBuilt: number;
}

export interface ImportOptions extends Omit<SyncOptions, 'coverage'> {
  /** Progress of building AOI rasters for imported basins in registered datasets. */
  readonly onRasterProgress?: ((done: number, total: number) => void) | undefined;
}

/**
 * `pourpoint import` and `sync`: import (or mirror) the records of a source with their coverage
 * against every registered dataset, then build the AOI rasters of the new and updated basins.
 */
export async function importPourpoints(
  db: Database,
  listing: SourceListing,
  opts: ImportOptions,
): Promise<ImportReport> {
  const datasets = await openDatasets(db);
  const { report, changed } = await syncPourpoints(db, listing, {
    ...opts,
    coverage: coverageAgainst(datasets),
  });
  let aoiBuilt = 0;
  if (changed.length > 0 && datasets.length > 0) {
    const { rows } = await rasterizeBasins(db, changed, datasets, { onProgress: opts.onRasterProgress });
    aoiBuilt = rows.filter((r) => r.action === 'built').length;
    // A new basin's blocks join each series store, its whole history read from the COGs once.
    for (const d of datasets) await extendSeries(d);
  }
  return { ...report, aoiBuilt };
}

/** `pourpoint reindex`: the index rebuilt from the records, coverage against every registered dataset. */
export async function reindex(db: Database): Promise<ReindexReport> {
  return reindexPourpoints(db, (await datasetCoverage(db)).of);
}

/** `pourpoint rasterize`: AOI rasters built or rebuilt, then new blocks added to the series stores. */
export async function rasterizePourpoints(db: Database, req: RasterizeRequest): Promise<RasterizeRow[]> {
  const rows = await rasterizeIndexed(db, req);
  const names = req.datasets?.length ? req.datasets : (await openDatasets(db)).map((d) => d.name);
  if (rows.some((r) => r.action === 'built'))
    for (const name of names) await extendSeries(await openDataset(db, name));
  return rows;
}
