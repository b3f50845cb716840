import { mkdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { datesOf } from '../datasets/inventory.js';
import { type Dataset, openDataset } from '../datasets/registry.js';
import type { Database } from '../db/database.js';
import { SnowdbError } from '../errors.js';
import { readManifest } from '../ingest/date-dir.js';
import { ingestSources } from '../ingest/run.js';
import { compactDate, isoDate } from '../util/dates.js';
import { mapPool } from '../util/pool.js';
import { type Alternative, ARCHIVES, type Archive, rankOf } from './archives.js';
import { daysBetween, listedNames, type PlannedDate, planFetch } from './plan.js';
import { fetchFile, fetchListing, hostDownCause, type TransferSettings } from './transfer.js';
import { releaseTransports } from './transports.js';

/** What happened to one date. */
export type FetchAction = 'ingested' | 'upgraded' | 'up-to-date' | 'missing' | 'failed' | 'would-fetch';

export interface FetchResult {
  /** ISO date. */
  readonly date: string;
  readonly action: FetchAction;
  /** The producer's file names behind the action (what was or would be fetched). */
  readonly source: string;
  /** Bytes downloaded for this date by this run. */
  readonly bytes: number;
  readonly message?: string;
}

export interface FetchReport {
  readonly dataset: string;
  /** The archive folder the files came from. */
  readonly archive: string;
  readonly results: readonly FetchResult[];
}

export interface FetchOptions extends TransferSettings {
  /** Downloads in flight at once (dates; a date's own files go one after another). */
  readonly concurrency: number;
  readonly dryRun: boolean;
  readonly keepDownloads: boolean;
  readonly swapPauseMs?: number | undefined;
  /** Bring the series store up to date after each batch (default); off when the caller does it once. */
  readonly series?: boolean | undefined;
  /** Progress: bytes as they arrive, and each date as it is settled. */
  readonly onBytes?: (n: number) => void;
  readonly onPlanned?: (dates: number) => void;
  readonly onDate?: (r: FetchResult) => void;
}

/** A date's files, downloaded and checked; or why it has none. */
type Got =
  | { readonly date: string; readonly paths: string[]; readonly alt: Alternative; readonly bytes: number }
  | { readonly date: string; readonly result: FetchResult };

/** The download cache of a dataset: `.cache/sources/<dataset>/`, producers' file names. */
export const sourceCache = (db: Database, name: string): string => join(db.paths.cache('sources'), name);

/** Ranks of the ingested dates among `dates` (the stage precedence matters only with choices). */
async function ingestedRanks(
  d: Dataset,
  archive: Archive,
  ingested: readonly string[],
  dates: readonly string[],
) {
  const want = new Set(dates);
  const { ranked } = rankOf(archive);
  const out = new Map<string, number>();
  for (const iso of ingested) {
    const date = compactDate(iso);
    if (!want.has(date)) continue;
    out.set(date, ranked ? ((await readManifest(d, date))?.rank ?? 0) : 0);
  }
  return out;
}

/** Download the first alternative the archive has in full; 404s move on to the next. */
async function getDate(
  p: Extract<PlannedDate, { state: 'fetch' }>,
  archive: Archive,
  cache: string,
  o: FetchOptions,
): Promise<Got> {
  const iso = isoDate(p.date);
  let bytes = 0;
  const absent: string[] = [];
  try {
    for (const alt of p.alternatives) {
      const paths: string[] = [];
      let whole = true;
      for (const f of alt.files) {
        const path = join(cache, f.name);
        const n = await fetchFile(f, path, archive, o, (k) => {
          bytes += k;
          o.onBytes?.(k);
        });
        if (n === 'absent') {
          whole = false;
          absent.push(f.name);
        } else paths.push(path);
      }
      if (whole) return { date: p.date, paths, alt, bytes };
      // An incomplete set (SPIRES tiles) is not ingested: a mosaic with holes is not the day.
      if (!o.keepDownloads) await Promise.all(paths.map((x) => rm(x, { force: true })));
    }
  } catch (e) {
    // A login refused or a host down fails the whole run once, not every date.
    if (!SnowdbError.is(e) || e.key === 'source-login-required' || hostDownCause(e) !== null) throw e;
    return { date: p.date, result: { date: iso, action: 'failed', source: '', bytes, message: e.message } };
  }
  const result: FetchResult =
    p.ingestedRank === null
      ? {
          date: iso,
          action: 'missing',
          source: '',
          bytes,
          message: `the archive has no ${absent.join(', ')}`,
        }
      : { date: iso, action: 'up-to-date', source: '', bytes };
  return { date: p.date, result };
}

/** Ingest downloaded dates in one run (worker threads), then drop their files unless kept. */
async function ingestGot(
  db: Database,
  name: string,
  got: readonly Got[],
  plan: ReadonlyMap<string, PlannedDate>,
  o: FetchOptions,
): Promise<FetchResult[]> {
  const ready = got.filter((g): g is Extract<Got, { paths: string[] }> => 'paths' in g);
  const out: FetchResult[] = got.flatMap((g) => ('result' in g ? [g.result] : []));
  if (ready.length === 0) return out;
  const report = await ingestSources(
    db,
    name,
    ready.flatMap((g) => g.paths),
    { swapPauseMs: o.swapPauseMs, series: o.series },
  );
  for (const g of ready) {
    const iso = isoDate(g.date);
    const source = g.alt.files.map((f) => f.name).join(' ');
    const r = report.results.find(
      (x) => x.date === iso || (x.date === '' && g.paths.some((p) => x.source.includes(p))),
    );
    const had = plan.get(g.date);
    const upgrade = had?.state === 'fetch' && had.ingestedRank !== null;
    const action: FetchAction =
      r === undefined || r.action === 'failed'
        ? 'failed'
        : r.action === 'ingested'
          ? upgrade
            ? 'upgraded'
            : 'ingested'
          : 'up-to-date';
    out.push({ date: iso, action, source, bytes: g.bytes, ...(r?.message ? { message: r.message } : {}) });
    if (!o.keepDownloads) await Promise.all(g.paths.map((x) => rm(x, { force: true })));
  }
  return out;
}

/**
 * `dataset fetch`: plan the dates of [start, end] (ISO) against what is ingested and what the
 * archive lists, then download the dates in batches (at most `concurrency` at once) into the
 * source cache and ingest each batch through the ingest path while the next one downloads.
 */
export async function fetchDates(
  db: Database,
  name: string,
  base: string,
  start: string,
  end: string,
  o: FetchOptions,
): Promise<FetchReport> {
  try {
    const d = await openDataset(db, name);
    const archive = ARCHIVES[d.config.ingester];
    const dates = daysBetween(start, end);
    const ingested = await ingestedRanks(d, archive, await datesOf(db, d), dates);
    const listings = new Map<string, Set<string> | null>();
    if (archive.listing) {
      const folders = [...new Set(dates.map((x) => archive.listing!(base, x)))];
      for (const url of folders) {
        const body = await fetchListing(url, archive, o);
        listings.set(url, body === null ? null : listedNames(body));
      }
    }
    const plan = planFetch(archive, base, dates, ingested, listings);
    const byDate = new Map(plan.map((p) => [p.date, p]));
    const settled: FetchResult[] = [];
    const settle = (r: FetchResult) => {
      settled.push(r);
      o.onDate?.(r);
    };
    const todo = plan.filter((p): p is Extract<PlannedDate, { state: 'fetch' }> => p.state === 'fetch');
    for (const p of plan) {
      if (p.state === 'up-to-date')
        settle({ date: isoDate(p.date), action: 'up-to-date', source: '', bytes: 0 });
      if (p.state === 'missing')
        settle({ date: isoDate(p.date), action: 'missing', source: '', bytes: 0, message: p.why });
      if (p.state === 'fetch' && o.dryRun) {
        const a = p.alternatives[0]!;
        settle({
          date: isoDate(p.date),
          action: 'would-fetch',
          source: a.files.map((f) => f.url).join(' '),
          bytes: 0,
        });
      }
    }
    // Every date settled from here on is one of `todo`.
    if (!o.dryRun) o.onPlanned?.(todo.length);
    if (!o.dryRun && todo.length > 0) {
      const cache = sourceCache(db, name);
      await mkdir(cache, { recursive: true });
      const size = Math.max(8, 2 * o.concurrency);
      const batches = Array.from({ length: Math.ceil(todo.length / size) }, (_, i) =>
        todo.slice(i * size, (i + 1) * size),
      );
      const download = (b: readonly Extract<PlannedDate, { state: 'fetch' }>[]) =>
        mapPool(b, o.concurrency, (p) => getDate(p, archive, cache, o));
      // Batch k+1 downloads while batch k is ingested.
      let next = batches.length > 0 ? download(batches[0]!) : null;
      for (let i = 0; i < batches.length; i++) {
        const got = await next!;
        next = i + 1 < batches.length ? download(batches[i + 1]!) : null;
        next?.catch(() => {}); // awaited on the next turn; a login error must not go unhandled meanwhile
        for (const r of await ingestGot(db, name, got, byDate, o)) settle(r);
      }
    }
    settled.sort((a, b) => (a.date < b.date ? -1 : a.date > b.date ? 1 : 0));
    return { dataset: name, archive: base, results: settled };
  } catch (e) {
    const why = SnowdbError.is(e) ? hostDownCause(e) : null;
    if (why === null) throw e;
    const host = URL.canParse(base) ? new URL(base).host : base;
    throw new SnowdbError(
      'source-unreachable',
      `${name}: the archive's host ${host} ${why === 'ENOTFOUND' ? 'does not resolve' : 'does not answer'} (${why}): nothing fetched; check the network, or the archive URL (${base})`,
      { host },
      { cause: e },
    );
  } finally {
    releaseTransports(); // FTP sessions log out
  }
}
