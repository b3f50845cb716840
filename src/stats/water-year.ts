import { QueryParameterError } from '../errors.js';
import { waterYearOf } from '../util/dates.js';

/**
 * The water year (1 October of year Y − 1 to 30 September of year Y is water year Y) and its
 * days. A day of the year is its calendar `MM-DD`; 29 February is a day of its own, held by leap
 * years only, so every other day lines up across years on its calendar date.
 */

/** The day of year of an ISO date: `MM-DD`. */
export const dayKey = (iso: string): string => iso.slice(5);

const DAY_MS = 86_400_000;

/** The 366 days of a water year in order, 10-01 … 09-30, with 02-29 between 02-28 and 03-01. */
export const WATER_YEAR_DAYS: readonly string[] = Array.from({ length: 366 }, (_, i) =>
  new Date(Date.UTC(1999, 9, 1) + i * DAY_MS).toISOString().slice(5, 10),
); // water year 2000 is a leap year

/** Position of each `MM-DD` in WATER_YEAR_DAYS. */
export const DAY_INDEX: ReadonlyMap<string, number> = new Map(WATER_YEAR_DAYS.map((d, i) => [d, i]));

/** First and last ISO date of water year `y`. */
export const waterYearSpan = (y: number): { first: string; last: string } => ({
  first: `${y - 1}-10-01`,
  last: `${y}-09-30`,
});

/** Days in water year `y`: 366 when the February inside it has a 29th. */
export const waterYearLength = (y: number): number =>
  (y % 4 === 0 && y % 100 !== 0) || y % 400 === 0 ? 366 : 365;

/** One water year of a dataset's dates: how many it holds, and whether that is every day. */
export interface WaterYearCount {
  readonly water_year: number;
  readonly dates: number;
  readonly complete: boolean;
}

/** Counts by date list: the lists come cached and unchanged (`datesOf`), and each page asks. */
const counted = new WeakMap<readonly string[], readonly WaterYearCount[]>();

/** Per water year with any of `dates` (ISO, distinct), ascending: its date count and completeness. */
export function waterYearCounts(dates: readonly string[]): readonly WaterYearCount[] {
  const known = counted.get(dates);
  if (known !== undefined) return known;
  const count = new Map<number, number>();
  for (const d of dates) {
    const y = waterYearOf(d);
    count.set(y, (count.get(y) ?? 0) + 1);
  }
  const out = [...count]
    .sort(([a], [b]) => a - b)
    .map(([y, n]) => ({ water_year: y, dates: n, complete: n === waterYearLength(y) }));
  counted.set(dates, out);
  return out;
}

/**
 * The default reference water years of a dataset's dates (ISO, ascending): every water year
 * before the current one (the water year of the newest date), and the current one too once it
 * holds 30 September. A year counts for a day of year when it holds that day, so a missing day
 * drops a year from that day's normals only.
 */
export function defaultReferenceYears(dates: readonly string[]): number[] {
  const newest = dates.at(-1);
  if (newest === undefined) return [];
  const current = waterYearOf(newest);
  const over = newest === waterYearSpan(current).last;
  return waterYearCounts(dates)
    .map((c) => c.water_year)
    .filter((y) => y < current || over);
}

/** Water years, inclusive. */
export interface YearSpan {
  readonly start: number;
  readonly end: number;
}

/**
 * `span` itself, checked (the CLI and HTTP parsers already refuse inverted spans; this guards
 * other callers).
 * @throws QueryParameterError naming `parameter` when the start is after the end.
 */
export function checkYearSpan(span: YearSpan | undefined, parameter: string): YearSpan | undefined {
  if (span !== undefined && span.start > span.end)
    throw new QueryParameterError(`water years ${span.start}..${span.end}: the start is after the end`, {
      parameter,
    });
  return span;
}
