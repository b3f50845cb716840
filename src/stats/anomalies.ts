import { waterYearOf } from '../util/dates.js';
import { type Cube, columnTable, columnTableSliced, type ExecuteOptions, executeCube } from './cube.js';
import { type BoxedRows, type CompactStats, compactOf, type TableRows, tableOf } from './engine.js';
import { columnFloor } from './median-floor.js';
import { gather, quantile, type Reference, referenceTable, type YearSpan } from './normals.js';
import type { StatsPlan } from './plan.js';

import { DAY_INDEX, dayKey } from './water-year.js';

/** A stats body with normals columns, and the reference years behind them. */
export interface StatsWithNormals extends CompactStats {
  reference: Reference;
}

/** The columns added after a stat column `c` (valid fractions get none). */
export const normalsColumns = (c: string): string[] => [
  `median_${c}`,
  `pct_median_${c}`,
  `rank_${c}`,
  `rank_of_${c}`,
];

/**
 * Add normals columns to a plan's body: for each mean and volume column, `median_<c>` (the day's
 * reference median), `pct_median_<c>` (100 × value ÷ median; null when the value or the median is
 * missing or the median is below the column's floor, `median-floor.ts`), `rank_<c>` and
 * `rank_of_<c>`. Every row of an answer ranks within one set per day: the reference years plus
 * the answer's own years that day not among them. `rank_of_<c>` counts that set; `rank_<c>` is 1
 * + the years with a greater value (ties share the better rank), null when no other year holds
 * a value or when the value and another year's both lie below the floor (a tie at no snow).
 */
export async function withNormals(
  cube: Cube,
  years?: YearSpan,
  exec: ExecuteOptions = {},
): Promise<StatsWithNormals> {
  const { plan } = cube;
  const { query } = plan;
  const table = columnTable(cube);
  const body = compactOf(cube, table);
  const K = cube.cells.length;
  const C = plan.columns.length;
  const dates = plan.dates;
  const value = (i: number, k: number, c: number) => table[(i * K + k) * C + c]!; // NaN = none
  // A short series reads only its own days of the reference years; a long one every day (shared with /normals).
  const days = new Set(dates.map(dayKey));
  const t = await referenceTable(plan.inputs, { ...query, years }, days.size > 60 ? undefined : days, exec);
  const ref = t.header.variables;
  if (t.header.zones.length !== K) throw new Error('normals and stats cells differ');
  const pairs = plan.columns.flatMap((col, c) => {
    const r = ref.indexOf(col.name);
    const spec = plan.dataset.config.variables[col.variable];
    if (r < 0 || spec === undefined) return [];
    // Floors per cell, in the column's unit (a volume's depends on the zone's area).
    const floors = Float64Array.from(body.zones, (z) => columnFloor(col, spec, z.area_m2));
    return [{ c, r, floors }];
  });
  const refYears = t.reference.water_years;
  // The answer's dates of each day whose water year is not a reference year: ranked beside them.
  const extraDates = new Map<string, number[]>();
  dates.forEach((date, i) => {
    if (refYears.includes(waterYearOf(date))) return;
    const list = extraDates.get(dayKey(date)) ?? [];
    list.push(i);
    extraDates.set(dayKey(date), list);
  });
  const buf = new Float64Array(refYears.length + dates.length);
  const results: Record<string, (number | null)[][]> = {};
  dates.forEach((date, i) => {
    const d = DAY_INDEX.get(dayKey(date))!;
    const own = refYears.indexOf(waterYearOf(date));
    const others = (extraDates.get(dayKey(date)) ?? []).filter((x) => x !== i);
    results[date] = body.results[date]!.map((row, k) => [
      ...row,
      ...pairs.flatMap(({ c, r, floors }) => {
        const v = value(i, k, c);
        const floor = floors[k]!;
        const all = gather(t, d, k, r, buf);
        const median = all > 0 ? quantile(buf, all, 0.5) : null;
        const pct =
          !Number.isNaN(v) && median !== null && median > 0 && median >= floor ? (100 * v) / median : null;
        if (Number.isNaN(v)) return [median, pct, null, null];
        // The other years of this day's set: reference years but this one, then the answer's extra years.
        let n = gather(t, d, k, r, buf, own);
        for (const x of others) {
          const o = value(x, k, c);
          if (!Number.isNaN(o)) buf[n++] = o;
        }
        let above = 0;
        let lowTie = false;
        for (let j = 0; j < n; j++) {
          if (buf[j]! > v) above++;
          if (v < floor && buf[j]! < floor) lowTie = true;
        }
        const rank = n === 0 || lowTie ? null : 1 + above;
        return [median, pct, rank, n + 1];
      }),
    ]);
  });
  return {
    ...body,
    variables: [...body.variables, ...pairs.flatMap(({ c }) => normalsColumns(body.variables[c]!))],
    results,
    reference: t.reference,
  };
}

/** A cube's answer, with normals columns when its plan's query asks for them. */
export function answerWithNormals(
  cube: Cube,
  opts: ExecuteOptions = {},
): Promise<CompactStats | StatsWithNormals> {
  const normals = cube.plan.query.normals;
  return normals === undefined ? Promise.resolve(compactOf(cube)) : withNormals(cube, normals.years, opts);
}

/** As `answerWithNormals`, its rows kept as the table when there are no normals (an answer going out as JSON). */
export async function answerTable(
  cube: Cube,
  opts: ExecuteOptions = {},
): Promise<CompactStats<BoxedRows | TableRows> | StatsWithNormals> {
  const normals = cube.plan.query.normals;
  return normals === undefined
    ? tableOf(cube, await columnTableSliced(cube, opts.signal))
    : withNormals(cube, normals.years, opts);
}

/** Execute a plan, with normals columns when its query asks for them. */
export async function executeWithNormals(
  plan: StatsPlan,
  opts: ExecuteOptions = {},
): Promise<CompactStats | StatsWithNormals> {
  return answerWithNormals(await executeCube(plan, opts), opts);
}

/** As `executeWithNormals`, its rows kept as the table when there are no normals (an answer going out as JSON). */
export async function executeAnswer(
  plan: StatsPlan,
  opts: ExecuteOptions = {},
): Promise<CompactStats<BoxedRows | TableRows> | StatsWithNormals> {
  return answerTable(await executeCube(plan, opts), opts);
}
