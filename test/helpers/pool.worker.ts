/** A worker for the pool's tests: answers each job with its thread id, after `ms` of busy time; `fail` throws, `exit` exits. */
import { parentPort, threadId } from 'node:worker_threads';

export interface PoolJob {
  readonly n: number;
  readonly ms?: number;
  readonly fail?: boolean;
  readonly exit?: boolean;
}

parentPort!.on('message', (job: PoolJob) => {
  if (job.exit) process.exit(3);
  if (job.fail) throw new Error(`job ${job.n} failed`);
  const end = Date.now() + (job.ms ?? 0);
  while (Date.now() < end); // busy, as a scan is: only terminate() stops it
  parentPort!.postMessage({ n: job.n, thread: threadId });
});
