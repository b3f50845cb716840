import { SnowdbError } from '../errors.js';

/** Which of a dataset's dates a query selects. */
export type DateQuery =
  | { type: 'DateRange'; start_date: string | null; end_date: string | null }
  | { type: 'DayOfYear'; month: number; day: number; start_year: number; end_year: number };

const ISO = /^(\d{4})-(\d{2})-(\d{2})$/;
/** Days per month in a leap year (Feb 29 is a valid day of year). */
const MONTH_DAYS = [31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

const malformed = (parameter: string, msg: string): SnowdbError =>
  new SnowdbError('malformed-query-parameter', msg, { parameter });

function checkIso(text: string, parameter: string): string {
  const m = ISO.exec(text);
  const [y, mo, d] = m ? [Number(m[1]), Number(m[2]), Number(m[3])] : [0, 0, 0];
  const t = new Date(Date.UTC(y, mo - 1, d));
  if (!m || t.getUTCFullYear() !== y || t.getUTCMonth() !== mo - 1 || t.getUTCDate() !== d) {
    const us = /^(\d{1,2})\/(\d{1,2})\/(\d{4})$/.exec(text);
    if (us)
      throw malformed(
        parameter,
        `'${text}' is not a date snowdb reads: write YYYY-MM-DD (${us[3]}-${us[1]!.padStart(2, '0')}-${us[2]!.padStart(2, '0')} if you mean month/day/year)`,
      );
    throw malformed(parameter, `'${text}' is not a calendar date (YYYY-MM-DD)`);
  }
  return text;
}

/**
 * Parse `start/end` (ISO dates, inclusive; `..` or empty leaves an end open).
 * @throws SnowdbError `malformed-query-parameter` (400) for a bad date or an inverted range.
 */
export function parseDateRange(text: string, parameter = 'datetime'): DateQuery {
  const parts = text.split('/');
  if (/^\d{1,2}\/\d{1,2}\/\d{4}(\/|$)/.test(text)) checkIso(text.split('/').slice(0, 3).join('/'), parameter);
  if (parts.length > 2)
    throw malformed(parameter, `'${text}': expected <start>/<end>, e.g. 2024-01-01/2024-06-30`);
  const open = (s: string | undefined) => s === undefined || s === '' || s === '..';
  const start = open(parts[0]) ? null : checkIso(parts[0]!, parameter);
  const end = parts.length === 1 ? start : open(parts[1]) ? null : checkIso(parts[1]!, parameter);
  if (start !== null && end !== null && start > end)
    throw malformed(parameter, `'${text}': the start is after the end`);
  return { type: 'DateRange', start_date: start, end_date: end };
}

/**
 * A day-of-year query: that month/day in every year of [startYear, endYear].
 * @throws SnowdbError `malformed-query-parameter` for Feb 30, month 13, inverted years…
 */
export function dayOfYear(month: number, day: number, startYear: number, endYear: number): DateQuery {
  if (!Number.isInteger(month) || month < 1 || month > 12)
    throw malformed('month', `month ${month} is not 1-12`);
  const max = MONTH_DAYS[month - 1]!;
  if (!Number.isInteger(day) || day < 1 || day > max)
    throw malformed('day', `day ${day} does not exist in month ${month} (1-${max})`);
  for (const [p, y] of [
    ['start_year', startYear],
    ['end_year', endYear],
  ] as const) {
    if (!Number.isInteger(y) || y < 1000 || y > 9999)
      throw malformed(p, `${p} ${y} is not a four-digit year`);
  }
  if (startYear > endYear)
    throw malformed('start_year', `start_year ${startYear} is after end_year ${endYear}`);
  return { type: 'DayOfYear', month, day, start_year: startYear, end_year: endYear };
}

/** Parse the CLI's `--doy MM-DD --years Y1..Y2` (or one year `--years Y`). */
export function parseDoy(doy: string, years: string): DateQuery {
  const d = /^(\d{1,2})-(\d{1,2})$/.exec(doy);
  if (!d) throw malformed('doy', `'${doy}': expected MM-DD, e.g. 04-01`);
  const y = /^(\d{4})(?:\.\.(\d{4}))?$/.exec(years);
  if (!y) throw malformed('years', `'${years}': expected Y1..Y2 or one year, e.g. 2001..2024`);
  return dayOfYear(Number(d[1]), Number(d[2]), Number(y[1]), Number(y[2] ?? y[1]));
}

/**
 * Parse a span of years `Y1..Y2` (or one year `Y`), inclusive.
 * @throws SnowdbError `malformed-query-parameter` naming `parameter`.
 */
export function parseYearSpan(text: string, parameter: string): { start: number; end: number } {
  const m = /^(\d{4})(?:\.\.(\d{4}))?$/.exec(text);
  if (!m) throw malformed(parameter, `'${text}': expected Y1..Y2 or one year, e.g. 1991..2020`);
  const start = Number(m[1]);
  const end = Number(m[2] ?? m[1]);
  if (start > end) throw malformed(parameter, `'${text}': the start is after the end`);
  return { start, end };
}

/** First index of the ascending `xs` whose item is ≥ `x` (> `x` with `after`). */
function lowerBound(xs: readonly string[], x: string, after = false): number {
  let lo = 0;
  let hi = xs.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (xs[mid]! < x || (after && xs[mid] === x)) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** The ISO dates of `available` (ascending) the query selects; a range by binary search. */
export function selectDates(available: readonly string[], q: DateQuery): string[] {
  if (q.type === 'DateRange') {
    const from = q.start_date === null ? 0 : lowerBound(available, q.start_date);
    const to = q.end_date === null ? available.length : lowerBound(available, q.end_date, true);
    return available.slice(from, Math.max(from, to));
  }
  const md = `-${String(q.month).padStart(2, '0')}-${String(q.day).padStart(2, '0')}`;
  return available.filter(
    (d) => d.endsWith(md) && Number(d.slice(0, 4)) >= q.start_year && Number(d.slice(0, 4)) <= q.end_year,
  );
}

/** The query's dates as text: `2025-04-01`, `2025-04-01/..`, `04-01 of 2016..2025`. */
export function dateQueryText(q: DateQuery): string {
  if (q.type === 'DayOfYear')
    return `${String(q.month).padStart(2, '0')}-${String(q.day).padStart(2, '0')} of ${q.start_year}..${q.end_year}`;
  if (q.start_date !== null && q.start_date === q.end_date) return q.start_date;
  return `${q.start_date ?? '..'}/${q.end_date ?? '..'}`;
}

/**
 * When a query selects none of the dataset's dates, the note that says so and names the nearest
 * held dates before and after the asked span; null when it selects any.
 */
export function emptySelectionNote(
  dataset: string,
  available: readonly string[],
  q: DateQuery,
): string | null {
  if (selectDates(available, q).length > 0) return null;
  const asked = dateQueryText(q);
  if (available.length === 0) return `'${dataset}' holds no date yet: nothing to answer for ${asked}`;
  const pad = (n: number) => String(n).padStart(2, '0');
  const first = q.type === 'DateRange' ? q.start_date : `${q.start_year}-${pad(q.month)}-${pad(q.day)}`;
  const last = q.type === 'DateRange' ? q.end_date : `${q.end_year}-${pad(q.month)}-${pad(q.day)}`;
  const before = first === null ? undefined : available[lowerBound(available, first) - 1];
  const after = last === null ? undefined : available[lowerBound(available, last, true)];
  const near = [before && `${before} (before)`, after && `${after} (after)`].filter(Boolean).join(' and ');
  return `no date of '${dataset}' is ingested in ${asked}; the nearest held: ${near || 'none'} (see 'snowdb dataset dates ${dataset}')`;
}
