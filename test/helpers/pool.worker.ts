/**
 * A worker for the pool's tests: answers each job with its thread id, after `ms` of busy time
 * (cut short when its shared `cancel` flag is set); `fail` throws, `exit` exits.
 */
import { parentPort, threadId } from 'node:worker_threads';

export interface PoolJob {
  readonly n: number;
  readonly ms?: number;
  readonly fail?: boolean;
  readonly exit?: boolean;
  readonly cancel?: Int32Array;
}

parentPort!.on('message', (job: PoolJob) => {
  if (job.exit) process.exit(3);
  if (job.fail) throw new Error(`job ${job.n} failed`);
  const end = Date.now() + (job.ms ?? 0);
  // Busy, as a scan is: only terminate() stops it, or its cancel flag.
  while (Date.now() < end && !(job.cancel && Atomics.load(job.cancel, 0) !== 0));
  parentPort!.postMessage({ n: job.n, thread: threadId });
});
