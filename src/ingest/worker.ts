/** Worker-thread entry of `dataset ingest`: runs date jobs posted by `runJobs`. */
import { parentPort } from 'node:worker_threads';
import { type JobMessage, runJob } from './workers.js';

parentPort?.on('message', (m: JobMessage) => {
  void runJob(m).then((r) => parentPort?.postMessage(r));
});
