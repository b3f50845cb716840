import type { Database } from '../db/database.js';
import type { CoverageOf } from '../pourpoints/index-file.js';
import { containment } from '../raster/extent.js';
import { openDatasets } from './registry.js';

/** Coverage of a basin against every registered dataset: its grid extent, or its footprint. */
export async function datasetCoverage(db: Database): Promise<CoverageOf> {
  const datasets = await openDatasets(db);
  return (basin) =>
    Object.fromEntries(datasets.map((d) => [d.name, containment(d.grid, basin, d.footprint)]));
}
