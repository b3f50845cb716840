import type { Database } from '../db/database.js';
import type { CoverageOf } from '../pourpoints/index-file.js';
import { containment } from '../raster/extent.js';
import { type Dataset, openDatasets } from './registry.js';

/** Coverage of a basin against each of `datasets`: its grid extent, or its footprint. */
export function coverageAgainst(datasets: readonly Dataset[]): CoverageOf {
  return (basin) =>
    Object.fromEntries(datasets.map((d) => [d.name, containment(d.grid, basin, d.footprint)]));
}

/** Coverage of a basin against every registered dataset. */
export async function datasetCoverage(db: Database): Promise<CoverageOf> {
  return coverageAgainst(await openDatasets(db));
}
