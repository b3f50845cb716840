import { readFile } from 'node:fs/promises';
import { setTimeout as sleep } from 'node:timers/promises';
import { datesOf } from '../datasets/inventory.js';
import { type Dataset, openDataset } from '../datasets/registry.js';
import type { Database } from '../db/database.js';
import { debrisRoots, sweepDebris } from '../db/debris.js';
import { SnowdbError } from '../errors.js';
import { daysBetween } from '../fetch/plan.js';
import { removeDateDir } from '../ingest/date-dir.js';
import { writeJsonAtomic } from '../io/atomic.js';
import { refreshSeries } from '../series/build.js';
import { markSeriesStale } from '../series/stale.js';
import { parseDateRange } from '../stats/dates.js';
import { compactDate, isoDate, todayUtc } from '../util/dates.js';

export interface DatesReport {
  readonly dataset: string;
  /** `ingested`: the ingested dates in range; `missing`: the days in range with no date. */
  readonly kind: 'ingested' | 'missing';
  readonly from: string | null;
  readonly to: string | null;
  readonly dates: readonly string[];
}

/** An ISO date option (`YYYY-MM-DD` or `YYYYMMDD`), checked. */
export function dateOption(text: string | undefined, parameter: string): string | null {
  if (text === undefined) return null;
  const iso = /^\d{8}$/.test(text) ? isoDate(text) : text;
  const q = parseDateRange(iso, parameter);
  return q.type === 'DateRange' ? q.start_date : null;
}

/**
 * `dataset dates`: the ingested dates in [from, to], or with `missing` the days in that range
 * with no date (default range: first to last ingested; `--missing` with a start and no end runs
 * to today).
 */
export async function datasetDates(
  db: Database,
  name: string,
  opts: { missing?: boolean; from?: string | undefined; to?: string | undefined },
): Promise<DatesReport> {
  const d = await openDataset(db, name);
  const from = dateOption(opts.from, 'from');
  const to = dateOption(opts.to, 'to');
  if (from !== null && to !== null && from > to)
    throw new SnowdbError('malformed-query-parameter', `--from ${from} is after --to ${to}`, {
      parameter: 'from',
    });
  const all = await datesOf(db, d);
  const inRange = all.filter((x) => (from === null || x >= from) && (to === null || x <= to));
  if (opts.missing !== true) return { dataset: name, kind: 'ingested', from, to, dates: inRange };
  const start = from ?? all[0] ?? null;
  if (start === null)
    throw new SnowdbError(
      'malformed-query-parameter',
      `${name} has no dates yet: give --from (and --to) to list the missing days of a range`,
      { parameter: 'from' },
    );
  const end = to ?? (from !== null ? todayUtc() : all.at(-1)!);
  const have = new Set(all);
  const gaps = daysBetween(start, end)
    .map(isoDate)
    .filter((x) => !have.has(x));
  return { dataset: name, kind: 'missing', from: start, to: end, dates: gaps };
}

export interface RemoveDatesReport {
  readonly dataset: string;
  readonly dryRun: boolean;
  readonly removed: readonly string[];
}

/**
 * Refuse dates a dataset does not hold, naming them all.
 * @throws SnowdbError `date-not-found`.
 */
export function requireIngested(name: string, have: ReadonlySet<string>, wanted: readonly string[]): void {
  const absent = wanted.filter((x) => !have.has(x));
  if (absent.length > 0)
    throw new SnowdbError(
      'date-not-found',
      `${name} has no date ${absent.join(', ')} (see 'snowdb dataset dates ${name}')`,
    );
}

/** The dates `remove-date` has taken out, or was taking out when it was stopped. */
async function removedBefore(d: Dataset): Promise<Set<string>> {
  const b = await readFile(d.paths.removed, 'utf8').catch(() => null);
  const dates = b === null ? [] : (JSON.parse(b) as { dates?: unknown }).dates;
  return new Set(Array.isArray(dates) ? dates.filter((x): x is string => typeof x === 'string') : []);
}

/**
 * `dataset remove-date`: dates out of a dataset, each in one atomic step, then the series store
 * brought level. Every date is checked first: one that is not ingested changes nothing, unless
 * a run took it out before (the log `.removed-dates.json`, written before any date goes, says
 * so): the same command run again, after a kill or not, finishes the work and exits 0.
 * @throws SnowdbError `malformed-query-parameter`, `date-not-found`.
 */
export async function removeDates(
  db: Database,
  name: string,
  dates: readonly string[],
  opts: { dryRun?: boolean; pauseMs?: number | undefined } = {},
): Promise<RemoveDatesReport> {
  const d = await openDataset(db, name);
  const have = new Set(await datesOf(db, d));
  const wanted = [...new Set(dates.map((x) => dateOption(x, 'date')!))].sort();
  const before = await removedBefore(d);
  requireIngested(
    name,
    have,
    wanted.filter((x) => !before.has(x)),
  );
  if (opts.dryRun === true) return { dataset: name, dryRun: true, removed: wanted };
  // What a killed run left (a half-written log, a date's staging) goes first, as other writers do.
  await sweepDebris(debrisRoots(db, [d]), { tmp: false });
  const log = [...new Set([...before, ...wanted])].sort();
  if (log.length > before.size) await writeJsonAtomic(d.paths.removed, { dates: log });
  for (const x of wanted.filter((w) => have.has(w))) {
    await markSeriesStale(d, x);
    await removeDateDir(d, compactDate(x));
    if (opts.pauseMs) await sleep(opts.pauseMs); // test hook: crash tests kill between dates
  }
  await refreshSeries(d);
  return { dataset: name, dryRun: false, removed: wanted };
}
