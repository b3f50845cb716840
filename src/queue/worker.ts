/**
 * A queue worker: takes jobs from a database's queue and runs each in a worker thread of the
 * `processor` module (its default export gets the job), so the thread that renews the job locks
 * never waits behind a job's CPU work.
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
export async function startWorker(o: WorkerOptions, processor: URL): Promise<RunningWorker> {
  const w = new Worker(o.queue, processor, {
    useWorkerThreads: true,
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
