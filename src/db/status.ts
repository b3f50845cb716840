import { type DatasetHealth, databaseHealth, type Finding } from '../datasets/health.js';
import type { Database } from './database.js';

/** One registered dataset as `status` reports it: artifacts, dates and a health summary. */
export type DatasetStatus = Omit<DatasetHealth, 'findings'>;

export interface DbStatus {
  /** Absolute database directory. */
  readonly root: string;
  readonly datasets: readonly DatasetStatus[];
  /** Basin-bearing pourpoints in the index. */
  readonly pourpoints: number;
}

/** Inventory of a database: each registered dataset (sorted by name) and the indexed pourpoints. */
export async function readStatus(db: Database): Promise<DbStatus> {
  const { datasets } = await databaseHealth(db);
  return {
    root: db.root,
    datasets: datasets.map(({ findings: _, ...d }) => d),
    pourpoints: (await db.index()).size,
  };
}

export interface DoctorReport {
  readonly root: string;
  readonly ok: boolean;
  readonly failures: number;
  readonly findings: readonly Finding[];
}

/**
 * Every health check: grids and files match the configs, every date complete, every covered
 * basin has a current AOI raster, zone layers present and current, index matches the records.
 * A basin outside a dataset's domain is information, not a failure.
 */
export async function runDoctor(db: Database): Promise<DoctorReport> {
  const { datasets, index } = await databaseHealth(db);
  const findings = [...index, ...datasets.flatMap((d) => d.findings)];
  const failures = findings.filter((f) => f.severity === 'fail').length;
  return { root: db.root, ok: failures === 0, failures, findings };
}
