/**
 * Work that runs on a job queue's workers (`--queue <redis-url>`): a registry of job kinds, each
 * with what a worker does and the result of a job whose every attempt failed; and the queued
 * forms of ingest and fetch, which give the same report as a local run.
 */
import { openDataset } from '../datasets/registry.js';
import type { Database } from '../db/database.js';
import { debrisRoots, sweepDebris } from '../db/debris.js';
import { type FetchReport, type FetchResult, fetchDates } from '../fetch/run.js';
import type { DateResult, IngestDateOptions } from '../ingest/date.js';
import type { DateSource } from '../ingest/types.js';
import { type DateExecutor, runJob } from '../ingest/workers.js';
import { checkRedis, queueName } from '../queue/connection.js';
import { runOnQueue } from '../queue/enqueue.js';
import { refreshSeries } from '../series/build.js';
import { isoDate } from '../util/dates.js';
import { type FetchChoices, fetchOptions } from './fetch-options.js';
import type { Settings } from './settings.js';

interface JobKind<D, R> {
  /** Run on a worker, against the worker's own database and settings. */
  run(db: Database, settings: Settings, data: D): Promise<R>;
  /** The result of a job whose every attempt threw or whose workers died. */
  failed(data: D, reason: string): R;
}

/** What every job carries: its database's absolute path (the same on every machine). */
export interface QueuedJob {
  readonly root: string;
}

/** One date of `dataset ingest` (source paths as every worker sees them). */
interface IngestDateJob extends QueuedJob {
  readonly name: string;
  readonly job: DateSource;
  readonly options: IngestDateOptions;
}

/** One date of `dataset fetch`: the worker downloads and ingests it. */
interface FetchDateJob extends QueuedJob {
  readonly name: string;
  readonly base: string;
  /** ISO. */
  readonly date: string;
  readonly keepDownloads: boolean;
}

const ingestDateJob: JobKind<IngestDateJob, DateResult> = {
  run: (db, _settings, m) => runJob(m, db),
  failed: (m, reason) => ({
    date: isoDate(m.job.date),
    action: 'failed',
    source: m.job.files.join(' '),
    message: `on the queue: ${reason}`,
  }),
};

const fetchDateJob: JobKind<FetchDateJob, readonly FetchResult[]> = {
  run: async (db, settings, m) => {
    const o = await fetchOptions(settings, { concurrency: 1, keepDownloads: m.keepDownloads });
    return (await fetchDates(db, m.name, m.base, m.date, m.date, { ...o, series: false })).results;
  },
  failed: (m, reason) => [
    { date: m.date, action: 'failed', source: '', bytes: 0, message: `on the queue: ${reason}` },
  ],
};

const JOB_KINDS: Readonly<Record<string, JobKind<never, unknown>>> = {
  'ingest-date': ingestDateJob,
  'fetch-date': fetchDateJob,
};

/** Run a job a worker took. */
export function runQueuedJob(
  db: Database,
  settings: Settings,
  kind: string,
  data: unknown,
): Promise<unknown> {
  const k = JOB_KINDS[kind];
  if (k === undefined) throw new Error(`unknown job kind '${kind}' (a newer snowdb enqueued it?)`);
  return k.run(db, settings, data as never);
}

/**
 * `dataset ingest --queue`: each date a job on the database's queue. Redis is checked first, so
 * a command that cannot reach it changes nothing (not even by sweeping).
 * @throws SnowdbError `queue-unreachable`.
 */
export async function queuedIngest(url: string, settings: Settings): Promise<DateExecutor> {
  await checkRedis(url);
  return (root, name, jobs, options, onProgress) =>
    runOnQueue({
      url,
      queue: queueName(root),
      kind: 'ingest-date',
      items: jobs.map((job): IngestDateJob => ({ root, name, job, options })),
      failed: ingestDateJob.failed,
      graceMs: settings.queue.graceMs,
      onResult: (_, done, total) => onProgress?.(done, total),
    });
}

/**
 * `dataset fetch --queue`: each date of [start, end] a job (its worker plans, downloads and
 * ingests it), then the series store brought up to date once, here, and what dead workers left
 * swept.
 */
export async function queuedFetch(
  db: Database,
  settings: Settings,
  name: string,
  base: string,
  dates: readonly string[],
  c: FetchChoices & { readonly queue: string },
): Promise<FetchReport> {
  const d = await openDataset(db, name);
  await checkRedis(c.queue); // before the sweep: a command that cannot reach it changes nothing
  await sweepDebris(debrisRoots(db, [d]), { tmp: false });
  c.onPlanned?.(dates.length);
  const lists = await runOnQueue({
    url: c.queue,
    queue: queueName(db.root),
    kind: 'fetch-date',
    items: dates.map(
      (date): FetchDateJob => ({ root: db.root, name, base, date, keepDownloads: c.keepDownloads === true }),
    ),
    failed: fetchDateJob.failed,
    graceMs: settings.queue.graceMs,
    onResult: (rs) => {
      for (const r of rs) c.onDate?.(r);
    },
  });
  const results = lists.flat();
  if (results.some((r) => r.action === 'ingested' || r.action === 'upgraded')) await refreshSeries(d);
  await sweepDebris(debrisRoots(db, [d]), { tmp: false });
  return { dataset: name, archive: base, results };
}
