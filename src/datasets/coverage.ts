import type { Database } from '../db/database.js';
import type { DatasetCoverage } from '../pourpoints/index-file.js';
import { containment } from '../raster/extent.js';
import { type Dataset, openDatasets } from './registry.js';

/** Coverage of a basin against each of `datasets`: its grid extent, or its footprint. */
export function coverageAgainst(datasets: readonly Dataset[]): DatasetCoverage {
  return {
    datasets: datasets.map((d) => d.name),
    of: (basin) => Object.fromEntries(datasets.map((d) => [d.name, containment(d.grid, basin, d.footprint)])),
  };
}

/** Coverage of a basin against every registered dataset. */
export async function datasetCoverage(db: Database): Promise<DatasetCoverage> {
  return coverageAgainst(await openDatasets(db));
}
