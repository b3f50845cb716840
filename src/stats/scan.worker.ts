/** Worker thread entry: runs scan jobs (stats/scan.ts) posted by the main thread's pool. */
import { setPriority } from 'node:os';
import { parentPort } from 'node:worker_threads';
import { runScan, type ScanJob } from './scan.js';

// On Linux a nice value is per thread: long scans yield the CPU to the main thread, which answers
// cheap requests meanwhile (elsewhere it would lower the whole process: left alone).
if (process.platform === 'linux') {
  try {
    setPriority(10);
  } catch {
    // not permitted here: run at the normal priority
  }
}

parentPort!.on('message', (job: ScanJob) => {
  const r = runScan(job);
  parentPort!.postMessage(r, [r.sw.buffer as ArrayBuffer, r.sv.buffer as ArrayBuffer]);
});
