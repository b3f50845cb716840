/**
 * Worker-thread entry of `snowdb worker`: one queued job (BullMQ sandboxed processor). Like
 * main.ts it is an entry point (a composition root), so it reads the settings from the environment
 * itself and makes the runtime its databases share. A job whose
 * kind or payload does not check fails at once, without a retry (no retry mends it).
 */
import { UnrecoverableError } from 'bullmq';
import { type CheckedJob, checkedJob, runQueuedJob } from '../app/jobs.js';
import { runtimeFrom } from '../app/runtime.js';
import { settingsFrom } from '../app/settings.js';
import { Database } from '../db/database.js';
import { SnowdbError } from '../errors.js';

const settings = settingsFrom(process.env);
const runtime = runtimeFrom(settings);
const databases = new Map<string, Promise<Database>>(); // root → the open database

export default async function process_(job: { name: string; data: unknown }): Promise<unknown> {
  let checked: CheckedJob;
  try {
    checked = checkedJob(job.name, job.data);
  } catch (e) {
    throw SnowdbError.is(e) ? new UnrecoverableError(e.message) : e;
  }
  let db = databases.get(checked.root);
  if (db === undefined) {
    db = Database.open(checked.root, { runtime });
    databases.set(checked.root, db);
  }
  return runQueuedJob(await db, settings, checked);
}
