/**
 * A queue worker: takes jobs from a database's queue and runs them through `run(kind, data)`.
 * Its hold on a job is renewed while the job runs; a worker that dies (kill -9, lost machine)
 * lets the hold lapse after `lockMs`, and another worker retries the job (bounded attempts).
 */
import { Worker } from 'bullmq';
import { redisOptions, shownUrl } from './connection.js';

export interface WorkerOptions {
  readonly url: string;
  readonly queue: string;
  readonly concurrency: number;
  readonly lockMs: number;
  readonly log: (line: string) => void;
}

export interface RunningWorker {
  /** Stop taking jobs, let the running ones finish, disconnect. */
  close(): Promise<void>;
}

/** Start a worker; it runs until closed, reconnecting while Redis is away (logged, not fatal). */
export async function startWorker(
  o: WorkerOptions,
  run: (kind: string, data: unknown) => Promise<unknown>,
): Promise<RunningWorker> {
  const w = new Worker(o.queue, (job) => run(job.name, job.data), {
    connection: redisOptions(o.url),
    concurrency: o.concurrency,
    lockDuration: o.lockMs,
    stalledInterval: Math.max(500, Math.floor(o.lockMs / 2)),
    maxStalledCount: 2,
  });
  let lastError = '';
  w.on('error', (e) => {
    if (e.message !== lastError) o.log(`redis ${shownUrl(o.url)}: ${e.message} (retrying)`);
    lastError = e.message;
  });
  w.on('ready', () => {
    lastError = '';
  });
  w.on('active', (job) => o.log(`start ${job.name} ${job.id}`));
  w.on('completed', (job) => o.log(`done ${job.name} ${job.id}`));
  w.on('failed', (job, e) =>
    o.log(`failed ${job?.name ?? ''} ${job?.id ?? ''} (attempt ${job?.attemptsMade ?? '?'}): ${e.message}`),
  );
  await w.waitUntilReady();
  return { close: () => w.close() };
}
