import { openDataset } from '../datasets/registry.js';
import { Database } from '../db/database.js';
import { operatorError, SnowdbError } from '../errors.js';
import { isoDate as iso } from '../util/dates.js';
import { mapPool } from '../util/pool.js';
import { type DateResult, type IngestDateOptions, ingestDate } from './date.js';
import type { DateSource } from './types.js';

/** Message a worker receives, and what it answers. */
export interface JobMessage {
  readonly root: string;
  readonly name: string;
  readonly job: DateSource;
  readonly options: IngestDateOptions;
}

/**
 * Run one job here, in `db` when the caller has it open (else opened from `m.root`); a domain
 * error becomes a `failed` row (each date succeeds or fails alone).
 */
export async function runJob(m: JobMessage, db?: Database): Promise<DateResult> {
  try {
    const d = await openDataset(db ?? (await Database.open(m.root)), m.name);
    return await ingestDate(d, m.job, m.options);
  } catch (e) {
    const known = SnowdbError.is(e) ? e : operatorError(e);
    const message = known !== null ? known.message : `internal error: ${(e as Error).stack ?? String(e)}`;
    return { date: iso(m.job.date), action: 'failed', source: m.job.files.join(' '), message };
  }
}

/** Runs date jobs of database `db` somewhere and gives their results in the jobs' order (`runJobs`: here). */
export type DateExecutor = (
  db: Pick<Database, 'root' | 'runtime'>,
  name: string,
  jobs: readonly DateSource[],
  options: IngestDateOptions,
  onProgress?: (done: number, total: number) => void,
) => Promise<DateResult[]>;

/** The row of a date whose worker died under it. */
const died = (job: DateSource, e: unknown): DateResult => ({
  date: iso(job.date),
  action: 'failed',
  source: job.files.join(' '),
  message: `worker died: ${(e as Error).message}`,
});

/**
 * Run date jobs on up to min(jobs, threads) worker threads of the runtime's ingest pool (one job:
 * in this thread). Results keep the jobs' order; idle threads stop after 10 s (their borrowed
 * grid buffers go with them), or when the runtime closes.
 */
export const runJobs: DateExecutor = async (db, name, jobs, options, onProgress) => {
  const { root } = db;
  let done = 0;
  const tick = <T>(r: T): T => {
    onProgress?.(++done, jobs.length);
    return r;
  };
  if (jobs.length <= 1) {
    const out = [];
    for (const job of jobs) out.push(tick(await runJob({ root, name, job, options })));
    return out;
  }
  const pool = db.runtime.pool<JobMessage, DateResult>(new URL('./worker.js', import.meta.url));
  return mapPool(jobs, Math.min(jobs.length, pool.size), async (job) =>
    tick(await pool.run({ root, name, job, options }).catch((e: unknown) => died(job, e))),
  );
};
