/**
 * Worker thread entry of the runtime's compute pool (stats/compute-pool.ts): one registry of the
 * jobs it runs, each answered with what it transfers back (never copied).
 */
import { setPriority } from 'node:os';
import { parentPort } from 'node:worker_threads';
import type { ComputeJob } from './compute-pool.js';
import { prepareDrawn } from './drawn-prepare.js';
import { runScan } from './scan.js';
import { readWindowJob } from './window-job.js';

// On Linux a nice value is per thread: long scans yield the CPU to the main thread, which answers
// cheap requests meanwhile (elsewhere it would lower the whole process: left alone).
if (process.platform === 'linux') {
  try {
    setPriority(10);
  } catch {
    // not permitted here: run at the normal priority
  }
}

/** Each job kind: its answer and the buffers that move back with it. */
const JOBS: {
  [K in ComputeJob['kind']]: (
    job: Extract<ComputeJob, { kind: K }>['job'],
  ) => [unknown, ArrayBuffer[]] | Promise<[unknown, ArrayBuffer[]]>;
} = {
  scan: (job) => {
    const r = runScan(job);
    return [r, [r.sw.buffer as ArrayBuffer, r.sv.buffer as ArrayBuffer]];
  },
  drawn: (job) => {
    const r = prepareDrawn(job);
    return [r, r.ok ? [r.drawn.weights.buffer as ArrayBuffer] : []];
  },
  window: readWindowJob,
};

// One job at a time (the pool sends the next only after this one's answer); a failed one fails the
// worker (the pool drops it and the caller does the job itself).
parentPort!.on('message', async (m: ComputeJob) => {
  const run = JOBS[m.kind] as (job: ComputeJob['job']) => ReturnType<(typeof JOBS)[ComputeJob['kind']]>;
  const [answer, transfer] = await run(m.job);
  parentPort!.postMessage(answer, transfer);
});
