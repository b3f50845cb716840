/**
 * Worker-thread entry of `snowdb worker`: one queued job (BullMQ sandboxed processor). Like
 * main.ts it is an entry point, so it reads the settings from the environment itself.
 */
import { type QueuedJob, runQueuedJob } from '../app/jobs.js';
import { settingsFrom } from '../app/settings.js';
import { Database } from '../db/database.js';

const settings = settingsFrom(process.env);
const databases = new Map<string, Promise<Database>>(); // root → the open database

export default function process_(job: { name: string; data: QueuedJob }): Promise<unknown> {
  const { root } = job.data;
  let db = databases.get(root);
  if (db === undefined) {
    db = Database.open(root);
    databases.set(root, db);
  }
  return db.then((d) => runQueuedJob(d, settings, job.name, job.data));
}
