import { stat } from 'node:fs/promises';
import { join } from 'node:path';
import { datesOf } from '../datasets/inventory.js';
import { type Dataset, openDataset, openDatasets } from '../datasets/registry.js';
import type { Database } from '../db/database.js';
import { Layout } from '../db/layout.js';
import { SnowdbError } from '../errors.js';
import { ARCHIVES, rankOf } from '../fetch/archives.js';
import { type FetchResult, fetchDates } from '../fetch/run.js';
import { readManifest } from '../ingest/date-dir.js';
import { withFileLock } from '../io/lock.js';
import { AwdbClient } from '../stations/awdb.js';
import { readStationList } from '../stations/store.js';
import { syncStations } from '../stations/sync.js';
import { compactDate, todayUtc, waterYearOf } from '../util/dates.js';
import { archiveBase, type FetchChoices, fetchOptions } from './fetch-options.js';
import type { Settings } from './settings.js';

/** One dataset's update. */
export interface DatasetUpdate {
  readonly dataset: string;
  /** Counts of the dates' actions. */
  readonly ingested: number;
  readonly upgraded: number;
  readonly missing: number;
  readonly failed: number;
  /** The newest date ingested after the run (null: none). */
  readonly newest: string | null;
  /** Why the dataset was not updated (no dates yet). */
  readonly note: string | null;
  /** Why the dataset's update failed as a whole (an archive that cannot be read, a login). */
  readonly error: string | null;
  /** Dates that changed, were missing or failed (up-to-date dates and the unpublished tail left out). */
  readonly results: readonly FetchResult[];
}

export interface UpdateReport {
  /** Pid of the update already running; the run then did nothing. */
  readonly running: number | null;
  readonly datasets: readonly DatasetUpdate[];
  /** The stations store's update (null: no stations synced yet, so none to keep current). */
  readonly stations?: StationsUpdate | null;
}

/** What `update` did to the stations store. */
export interface StationsUpdate {
  readonly recorded: number;
  readonly forecastPoints: number;
  readonly moved: number;
  readonly error: string | null;
}

/** Keep a synced stations store current: the list, the records, the forecast points. */
async function updateStations(db: Database, settings: Settings): Promise<StationsUpdate | null> {
  if ((await readStationList(db)) === null) return null;
  try {
    const r = await syncStations(db, new AwdbClient(settings.awdb));
    return {
      recorded: r.recorded.length,
      forecastPoints: r.forecastPoints.length,
      moved: r.moved.length,
      error: null,
    };
  } catch (e) {
    if (!SnowdbError.is(e)) throw e;
    return { recorded: 0, forecastPoints: 0, moved: 0, error: e.message };
  }
}

/** Whether an update found a real failure (a failed date, or a dataset that could not be fetched). */
export const updateFailed = (r: UpdateReport): boolean =>
  r.datasets.some((d) => d.failed > 0 || d.error !== null) || (r.stations?.error ?? null) !== null;

/** How long an update may hold its lock before the next one reports it stalled, ms (6 h). */
export const UPDATE_STALLED_MS = 6 * 3_600_000;

class UpdateRunning extends Error {
  constructor(readonly pid: number) {
    super(`another update is running (pid ${pid})`);
  }
}

/** Lookback for stage upgrades: dates of the current and previous water year below the best rank. */
async function firstUpgradable(d: Dataset, dates: readonly string[], today: string): Promise<string | null> {
  const { best, ranked } = rankOf(ARCHIVES[d.config.ingester]);
  if (!ranked) return null;
  const from = `${waterYearOf(today) - 2}-10-01`;
  for (const iso of dates) {
    if (iso < from) continue;
    if (((await readManifest(d, compactDate(iso)))?.rank ?? best) < best) return iso;
  }
  return null;
}

/** The ISO day after `iso`. */
function nextDay(iso: string): string {
  const t = new Date(`${iso}T00:00:00Z`);
  t.setUTCDate(t.getUTCDate() + 1);
  return t.toISOString().slice(0, 10);
}

/** Update one dataset: every date after its newest, to today, and stage upgrades. */
async function updateOne(
  db: Database,
  settings: Settings,
  d: Dataset,
  c: FetchChoices,
): Promise<DatasetUpdate> {
  const dates = await datesOf(db, d);
  const last = dates.at(-1) ?? null;
  const empty: DatasetUpdate = {
    dataset: d.name,
    ingested: 0,
    upgraded: 0,
    missing: 0,
    failed: 0,
    newest: last,
    note: null,
    error: null,
    results: [],
  };
  if (last === null)
    return {
      ...empty,
      note: `no dates yet: run 'snowdb dataset fetch ${d.name} --dates <start>/<end>' first`,
    };
  const today = todayUtc();
  const upgrade = await firstUpgradable(d, dates, today);
  const after = nextDay(last);
  const start = upgrade !== null && upgrade < after ? upgrade : after;
  if (start > today) return empty;
  let results: readonly FetchResult[];
  try {
    const base = archiveBase(d, settings);
    results = (await fetchDates(db, d.name, base, start, today, await fetchOptions(settings, c))).results;
  } catch (e) {
    if (!SnowdbError.is(e)) throw e;
    return { ...empty, error: e.message };
  }
  // The newest date the producer has: a missing run at the end is not published yet, not a gap.
  let end = results.length;
  while (end > 0 && results[end - 1]!.action === 'missing' && results[end - 1]!.date > last) end--;
  const kept = results.slice(0, end).filter((r) => r.action !== 'up-to-date');
  const n = (a: FetchResult['action']) => kept.filter((r) => r.action === a).length;
  const newest = (await datesOf(db, d)).at(-1) ?? null;
  return {
    dataset: d.name,
    ingested: n('ingested'),
    upgraded: n('upgraded'),
    missing: n('missing'),
    failed: n('failed'),
    newest,
    note: null,
    error: null,
    results: kept,
  };
}

/**
 * `snowdb update [<dataset>…]`: bring every active (or named) dataset up to the newest date its
 * producer has, under a database-wide lock (`.update.lock`): a second run while one holds it does
 * nothing and says so.
 */
export async function updateDatabase(
  db: Database,
  settings: Settings,
  names: readonly string[],
  c: FetchChoices,
): Promise<UpdateReport> {
  const datasets =
    names.length > 0
      ? await Promise.all(names.map((n) => openDataset(db, n)))
      : (await openDatasets(db)).filter((d) => d.link.active);
  try {
    return await withFileLock(
      join(db.root, Layout.updateLock),
      async () => {
        const out: DatasetUpdate[] = [];
        for (const d of datasets) out.push(await updateOne(db, settings, d, c));
        return {
          running: null,
          datasets: out,
          stations: names.length > 0 ? null : await updateStations(db, settings),
        };
      },
      (pid) => new UpdateRunning(pid),
      0,
    );
  } catch (e) {
    if (!(e instanceof UpdateRunning)) throw e;
    // A live holder past UPDATE_STALLED_MS: a stalled run someone must look at (cron mails it).
    const since = await stat(join(db.root, Layout.updateLock)).then(
      (s) => s.mtimeMs,
      () => Date.now(),
    );
    if (Date.now() - since > UPDATE_STALLED_MS)
      throw new SnowdbError(
        'update-stalled',
        `another update (pid ${e.pid}) has held the update lock since ${new Date(since).toISOString()}, over ${UPDATE_STALLED_MS / 3_600_000} h: it may be stalled; look at that process (the lock is ${join(db.root, Layout.updateLock)})`,
      );
    return { running: e.pid, datasets: [] };
  }
}
