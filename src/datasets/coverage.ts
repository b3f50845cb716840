import type { Database } from '../db/database.js';
import type { CoverageOf } from '../pourpoints/index-file.js';

/**
 * Coverage of a basin against every registered dataset. Until datasets carry grids (the datasets
 * issue), every registered dataset reads `none`.
 */
export async function datasetCoverage(db: Database): Promise<CoverageOf> {
  const names = Object.keys(db.config.datasets).sort();
  return () => Object.fromEntries(names.map((n) => [n, 'none' as const]));
}
