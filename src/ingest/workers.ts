import { availableParallelism } from 'node:os';
import { Worker } from 'node:worker_threads';
import { openDataset } from '../datasets/registry.js';
import { Database } from '../db/database.js';
import { SnowdbError } from '../errors.js';
import { isoDate as iso } from '../util/dates.js';
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
    const message = SnowdbError.is(e) ? e.message : `internal error: ${(e as Error).stack ?? String(e)}`;
    return { date: iso(m.job.date), action: 'failed', source: m.job.files.join(' '), message };
  }
}

/** Post one job to a worker and wait for its answer (or its death). */
function call(w: Worker, m: JobMessage): Promise<DateResult> {
  return new Promise((resolve, reject) => {
    const onMessage = (r: DateResult) => {
      w.off('error', onError);
      resolve(r);
    };
    const onError = (e: Error) => {
      w.off('message', onMessage);
      reject(e);
    };
    w.once('message', onMessage);
    w.once('error', onError);
    w.postMessage(m);
  });
}

/** Runs date jobs somewhere and gives their results in the jobs' order (`runJobs`: here). */
export type DateExecutor = (
  root: string,
  name: string,
  jobs: readonly DateSource[],
  options: IngestDateOptions,
  onProgress?: (done: number, total: number) => void,
) => Promise<DateResult[]>;

/**
 * Run date jobs on up to min(jobs, cores) worker threads (one job: in this thread). Results keep
 * the jobs' order.
 */
export const runJobs: DateExecutor = async (root, name, jobs, options, onProgress) => {
  let done = 0;
  const tick = () => onProgress?.(++done, jobs.length);
  if (jobs.length <= 1) {
    const out = [];
    for (const job of jobs) {
      out.push(await runJob({ root, name, job, options }));
      tick();
    }
    return out;
  }
  const results = new Array<DateResult>(jobs.length);
  let next = 0;
  const n = Math.min(jobs.length, availableParallelism());
  const url = new URL('./worker.js', import.meta.url);
  await Promise.all(
    Array.from({ length: n }, async () => {
      let w = new Worker(url);
      try {
        while (next < jobs.length) {
          const i = next++;
          const job = jobs[i]!;
          try {
            results[i] = await call(w, { root, name, job, options });
          } catch (e) {
            results[i] = {
              date: iso(job.date),
              action: 'failed',
              source: job.files.join(' '),
              message: `worker died: ${(e as Error).message}`,
            };
            await w.terminate();
            w = new Worker(url);
          }
          tick();
        }
      } finally {
        await w.terminate();
      }
    }),
  );
  return results;
};
