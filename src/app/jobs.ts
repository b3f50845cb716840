/**
 * Work that runs on a job queue's workers (`--queue <redis-url>`): a registry of job kinds, each
 * with what a worker does and the result of a job whose every attempt failed; and the queued
 * forms of ingest, fetch, generate-zones and rebuild-series, which give a local run's report.
 */
import { isAbsolute, resolve } from 'node:path';
import { z } from 'zod';
import { openDataset, openNamedDatasets } from '../datasets/registry.js';
import type { Database } from '../db/database.js';
import { debrisRoots, sweepDebris } from '../db/debris.js';
import { ErrorCatalog, type ErrorKey, SnowdbError } from '../errors.js';
import { type FetchReport, type FetchResult, fetchDates } from '../fetch/run.js';
import type { DateResult, IngestDateOptions } from '../ingest/date.js';
import type { DateSource } from '../ingest/types.js';
import { type DateExecutor, runJob } from '../ingest/workers.js';
import { checkRedis, queueName } from '../queue/connection.js';
import { runOnQueue } from '../queue/enqueue.js';
import { type PageTask, type PageWriter, refreshSeries, writeRebuildPage } from '../series/build.js';
import { isoDate } from '../util/dates.js';
import { type GenerateOptions, generateZones, type ZoneOutcome } from '../zones/generate.js';
import { PROVIDERS, type Provider } from '../zones/layers.js';
import { type FetchChoices, fetchOptions } from './fetch-options.js';
import type { Settings } from './settings.js';

interface JobKind<D, R> {
  /** What a job of this kind carries: a worker runs only payloads it parses. */
  readonly payload: z.ZodType<D>;
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

/** Payload parts: an absolute path (as every worker sees it), a dataset name, a date. */
const absolute = z.string().refine(isAbsolute, 'an absolute path');
const name = z.string().min(1).max(200);
const yyyymmdd = z.string().regex(/^\d{8}$/, 'YYYYMMDD');
const iso = z.string().regex(/^\d{4}-\d{2}-\d{2}$/, 'YYYY-MM-DD');
const queued = { root: absolute };

const ingestPayload = z.strictObject({
  ...queued,
  name,
  job: z.strictObject({
    date: yyyymmdd,
    files: z.array(absolute).min(1),
    fields: z.record(z.string(), z.string()),
    rank: z.int().min(0),
  }),
  options: z.strictObject({ force: z.boolean(), swapPauseMs: z.int().min(0).optional() }),
});

const fetchPayload = z.strictObject({
  ...queued,
  name,
  base: z.string().min(1),
  date: iso,
  keepDownloads: z.boolean(),
});

const ingestDateJob: JobKind<IngestDateJob, DateResult> = {
  payload: ingestPayload,
  run: (db, _settings, m) => runJob(m, db),
  failed: (m, reason) => ({
    date: isoDate(m.job.date),
    action: 'failed',
    source: m.job.files.join(' '),
    message: `on the queue: ${reason}`,
  }),
};

const fetchDateJob: JobKind<FetchDateJob, readonly FetchResult[]> = {
  payload: fetchPayload,
  run: async (db, settings, m) => {
    const o = await fetchOptions(settings, { concurrency: 1, keepDownloads: m.keepDownloads });
    return (await fetchDates(db, m.name, m.base, m.date, m.date, { ...o, series: false })).results;
  },
  failed: (m, reason) => [
    { date: m.date, action: 'failed', source: '', bytes: 0, message: `on the queue: ${reason}` },
  ],
};

/**
 * A domain error that will not go away on a retry (a bad source, an unknown name, a damaged file),
 * carried back as the job's result; transient ones (502/503: locked, unreachable, rate-limited)
 * are thrown, so BullMQ retries them.
 */
interface Carried {
  readonly error: { readonly key: ErrorKey; readonly message: string };
}

async function carrying<R>(work: Promise<R>): Promise<R | Carried> {
  try {
    return await work;
  } catch (e) {
    if (SnowdbError.is(e) && e.kind.status < 502) return { error: { key: e.key, message: e.message } };
    throw e;
  }
}

/** A job's result, or its carried error thrown again as the local run would have thrown it. */
function uncarried<R>(r: R | Carried): R {
  const e = (r as Partial<Carried>).error;
  if (e !== undefined && e.key in ErrorCatalog) throw new SnowdbError(e.key, e.message);
  return r as R;
}

/** Every attempt of a job threw, or its workers died: the run fails as a local run that threw. */
const lost = (what: string, reason: string): Carried => ({
  error: { key: 'queue-job-failed', message: `${what} failed on every attempt on the queue: ${reason}` },
});

/** One provider of `dataset generate-zones`: one shared read of its source for every named dataset. */
interface ZonesJob extends QueuedJob {
  readonly names: readonly string[];
  readonly provider: Provider;
  /** Absolute path of a local source, as every worker sees it; absent = the network default. */
  readonly source?: string;
  readonly urls: GenerateOptions['urls'];
  readonly force: boolean;
}

const zonesJob: JobKind<ZonesJob, ZoneOutcome[] | Carried> = {
  payload: z.strictObject({
    ...queued,
    names: z.array(name).min(1),
    provider: z.enum(PROVIDERS),
    source: absolute.optional(),
    urls: z.strictObject({ threeDep: z.string().min(1), nlcd: z.string().min(1) }),
    force: z.boolean(),
  }),
  run: (db, _settings, m) =>
    carrying(
      generateZones(db, m.names, {
        sources: m.source === undefined ? {} : { [m.provider]: m.source },
        urls: m.urls,
        providers: [m.provider],
        force: m.force,
        sweep: false,
      }),
    ),
  failed: (m, reason) => lost(`generate-zones ${m.provider}`, reason),
};

/** One page of `dataset rebuild-series`. */
interface SeriesPageJob extends QueuedJob {
  readonly name: string;
  readonly task: PageTask;
}

const seriesPageJob: JobKind<SeriesPageJob, number | Carried> = {
  payload: z.strictObject({
    ...queued,
    name,
    task: z.strictObject({
      variable: name,
      page: z.string().min(1).max(40),
      dates: z.array(iso).min(1),
      blockSet: z.int().min(0),
    }),
  }),
  run: async (db, _settings, m) => carrying(writeRebuildPage(await openDataset(db, m.name), m.task)),
  failed: (m, reason) => lost(`series page ${m.task.variable} ${m.task.page}`, reason),
};

const JOB_KINDS: Readonly<Record<string, JobKind<unknown, unknown>>> = {
  'ingest-date': ingestDateJob,
  'fetch-date': fetchDateJob,
  'zones-provider': zonesJob,
  'series-page': seriesPageJob,
};

/**
 * A job's kind and payload checked before any work: what a worker took from Redis is input like
 * any other (another snowdb version, or anyone who can write to the queue, put it there).
 * @throws SnowdbError `invalid-queue-job` naming the kind and what is wrong (no retry mends it).
 */
export function checkedJob(
  kind: string,
  data: unknown,
): { kind: JobKind<unknown, unknown>; root: string; data: unknown } {
  const k = JOB_KINDS[kind];
  if (k === undefined)
    throw new SnowdbError(
      'invalid-queue-job',
      `unknown job kind '${kind}' (a newer snowdb enqueued it?); this worker runs ${Object.keys(JOB_KINDS).join(', ')}`,
    );
  const parsed = k.payload.safeParse(data);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    const at = issue.path.length > 0 ? issue.path.join('.') : 'the payload';
    throw new SnowdbError('invalid-queue-job', `a '${kind}' job is malformed at ${at}: ${issue.message}`);
  }
  return { kind: k, root: (parsed.data as QueuedJob).root, data: parsed.data };
}

/** A job a worker took, its payload checked (`checkedJob`). */
export type CheckedJob = ReturnType<typeof checkedJob>;

/** Run a checked job against the database its payload names (opened by the caller). */
export function runQueuedJob(db: Database, settings: Settings, job: CheckedJob): Promise<unknown> {
  return job.kind.run(db, settings, job.data);
}

/**
 * `dataset ingest --queue`: each date a job on the database's queue. Redis is checked first, so
 * a command that cannot reach it changes nothing (not even by sweeping).
 * @throws SnowdbError `queue-unreachable`.
 */
export async function queuedIngest(url: string, settings: Settings): Promise<DateExecutor> {
  await checkRedis(url);
  return ({ root }, name, jobs, options, onProgress) =>
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

/**
 * `dataset generate-zones --queue`: one job per provider (each one shared read of its source for
 * every named dataset, as a local run), outcomes in the local run's order; what interrupted runs
 * left is swept here, before and after.
 * @throws SnowdbError what the local run would throw (carried back from the worker), or
 *   `queue-unreachable` / `queue-job-failed`.
 */
export async function queuedZones(
  db: Database,
  settings: Settings,
  names: readonly string[],
  opts: GenerateOptions,
  queue: string,
): Promise<ZoneOutcome[]> {
  const datasets = await openNamedDatasets(db, names);
  await checkRedis(queue); // before the sweep: a command that cannot reach it changes nothing
  await sweepDebris(debrisRoots(db, datasets), { tmp: false });
  const providers = opts.providers ?? PROVIDERS;
  const results = await runOnQueue({
    url: queue,
    queue: queueName(db.root),
    kind: 'zones-provider',
    items: providers.map((provider): ZonesJob => {
      const source = opts.sources?.[provider];
      return {
        root: db.root,
        names: datasets.map((d) => d.name),
        provider,
        ...(source === undefined ? {} : { source: resolve(source) }),
        urls: opts.urls,
        force: opts.force === true,
      };
    }),
    failed: zonesJob.failed,
    graceMs: settings.queue.graceMs,
    onResult: (_, done, total) => opts.onProgress?.('zone jobs', done, total),
  });
  await sweepDebris(debrisRoots(db, datasets), { tmp: false });
  return results.flatMap(uncarried);
}

/** `dataset rebuild-series --queue`: each page a job; the rebuild holds the store's lock meanwhile. */
export async function queuedSeriesPages(db: Database, url: string, settings: Settings): Promise<PageWriter> {
  await checkRedis(url);
  return async (d, tasks, progress) =>
    (
      await runOnQueue({
        url,
        queue: queueName(db.root),
        kind: 'series-page',
        items: tasks.map((task): SeriesPageJob => ({ root: db.root, name: d.name, task })),
        failed: seriesPageJob.failed,
        graceMs: settings.queue.graceMs,
        onResult: (_, done, total) => progress(done, total),
      })
    ).map(uncarried);
}
