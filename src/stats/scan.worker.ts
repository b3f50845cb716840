/** Worker thread entry: runs scan jobs (stats/scan.ts) posted by the main thread's pool. */
import { parentPort } from 'node:worker_threads';
import { runScan, type ScanJob } from './scan.js';

parentPort!.on('message', (job: ScanJob) => {
  const r = runScan(job);
  parentPort!.postMessage(r, [r.sw.buffer as ArrayBuffer, r.sv.buffer as ArrayBuffer]);
});
