/**
 * Change metrics of a water variable (SWE) per date and zone cell: the 1-day and 7-day change of
 * its mean and volume, the cumulative gain and melt since 1 October (the sums of the day-to-day
 * rises and falls since that day's value), and, where the dataset holds solid and liquid
 * precipitation, the water-year-to-date precipitation (mean and volume, 1 October through the
 * date). Computed from held dates only: a change whose earlier date is not held is null (never a
 * difference over another span), and a missing or empty day makes the cumulative values null for
 * the rest of its water year. A view of one typed cube over the selected dates extended back to
 * 1 October (and 7 days). With normals, each cumulative value (gain, melt, precipitation) also gets
 * the median of the reference water years' values on the same day of the water year, and the
 * value as a percentage of it (null below the column's floor, as % of median of stats).
 */
import { createHash } from 'node:crypto';
import type { Database } from '../db/database.js';
import { QueryParameterError } from '../errors.js';
import { addDays, waterYearOf } from '../util/dates.js';
import { Slicer } from '../util/slices.js';
import { type Cube, columnTable, type ExecuteOptions, executeCube, zonesOf } from './cube.js';
import { selectDates } from './dates.js';
import type { CompactStats } from './engine.js';
import { columnFloor } from './median-floor.js';
import { quantile, type Reference, referenceYears } from './normals.js';
import {
  type NormalsOption,
  type PlanInputs,
  planInputs,
  planStats,
  type StatsPlan,
  type StatsQuery,
} from './plan.js';
import { statsStateKey } from './state.js';
import { waterYearSpan } from './water-year.js';

export interface ChangesQuery extends Omit<StatsQuery, 'variables' | 'validFraction' | 'normals'> {
  /** A water variable, with a volume (default `swe`). */
  readonly variable?: string;
  /** The cumulative values against the reference water years' on the same day. */
  readonly normals?: NormalsOption;
}

type Value = number | null;

export interface ChangesBody extends Omit<CompactStats, 'results'> {
  variable: string;
  /** With normals: the reference water years. */
  reference?: Reference;
  results: Record<string, Value[][]>;
}

/** The precipitation variables summed for water-year-to-date precipitation. */
const PRECIP = ['precip_solid', 'precip_liquid'] as const;

/** A changes query resolved without reading a raster. */
export interface ChangesPlan {
  /** The variable (and precipitation) over the selected dates extended back to 1 October and 7 days. */
  readonly stats: StatsPlan;
  readonly variable: string;
  /** Whether the dataset holds solid and liquid precipitation (then the answer has WYTD precipitation). */
  readonly precip: boolean;
  /** The selected dates: the answer's rows. */
  readonly shown: readonly string[];
  /** With normals: the reference water years (their dates are in `stats` too). */
  readonly reference: Reference | null;
}

/**
 * Plan change metrics (pure).
 * @throws QueryParameterError for a variable without a volume; as `planStats`.
 */
export function planChanges(inputs: PlanInputs, q: ChangesQuery): ChangesPlan {
  const vars = inputs.dataset.config.variables;
  const variable = q.variable ?? 'swe';
  if (vars[variable]?.volume_m_per_unit === undefined) {
    const water = Object.keys(vars).filter((v) => vars[v]!.volume_m_per_unit !== undefined);
    throw new QueryParameterError(
      `change metrics need a water variable of '${inputs.dataset.name}' (${water.join(', ') || 'none'}), not '${variable}'`,
      { parameter: 'variable', allowed: water },
    );
  }
  const precip = PRECIP.every((p) => vars[p]?.volume_m_per_unit !== undefined);
  const shown = selectDates(inputs.dates, q.dates);
  const first = shown[0];
  const reference = q.normals ? referenceYears(inputs.dates, inputs.dataset.name, q.normals.years) : null;
  // From 1 October of the first date's water year (or of the first reference year), or 7 days
  // before the first date when that is earlier; to the last date or the last reference year's end.
  const start =
    first &&
    [
      waterYearSpan(waterYearOf(first)).first,
      addDays(first, -7),
      ...(reference ? [waterYearSpan(reference.water_years[0]!).first] : []),
    ].sort()[0]!;
  const end =
    first &&
    [shown.at(-1)!, ...(reference ? [waterYearSpan(reference.water_years.at(-1)!).last] : [])].sort().at(-1)!;
  const dates = { type: 'DateRange' as const, start_date: start ?? null, end_date: end ?? null };
  const stats = planStats(inputs, {
    ...q,
    dates: first === undefined ? q.dates : dates, // none selected: the query's own (empty) selection and its note
    variables: [variable, ...(precip ? PRECIP : [])],
    validFraction: false,
    normals: undefined,
  });
  return { stats, variable, precip, shown, reference };
}

/** A key that changes whenever a changes plan's answer could. */
export const changesStateKey = (p: ChangesPlan): string =>
  `${statsStateKey(p.stats)}/${createHash('sha256').update(p.shown.join(',')).digest('base64url').slice(0, 16)}/${p.reference ? p.reference.water_years.join(',') : '-'}`;

/** The cumulative metrics per kind, in column order: gain, melt, precipitation. */
const CUMULATIVE = 3;

/** The answer's rows: per shown date and cell, the variable's value and every metric. */
async function changeRows(
  cube: Cube,
  p: ChangesPlan,
  signal?: AbortSignal,
): Promise<Record<string, Value[][]>> {
  const { plan } = cube;
  const table = columnTable(cube);
  const K = cube.cells.length;
  const C = plan.columns.length;
  const colOf = (variable: string, kind: 'mean' | 'total') =>
    plan.columns.findIndex((c) => c.variable === variable && c.kind === kind);
  const results: Record<string, Value[][]> = {};
  for (const d of p.shown) results[d] = [];
  const last = p.shown.at(-1);
  if (last === undefined) return results;
  // Every calendar day from the first 1 October the answer reads to its last date, with its table
  // row, the rows of the days 1 and 7 before (-1: not held), and whether it starts a water year.
  const end = [last, plan.dates.at(-1)!].sort().at(-1)!;
  const first = [
    waterYearSpan(waterYearOf(p.shown[0]!)).first,
    ...(p.reference ? [waterYearSpan(p.reference.water_years[0]!).first] : []),
  ].sort()[0]!;
  const at = new Map(plan.dates.map((d, i) => [d, i]));
  const days: string[] = [];
  for (let d = first; d <= end; d = addDays(d, 1)) days.push(d);
  const dayAt = new Map(days.map((d, t) => [d, t]));
  const row = Int32Array.from(days, (d) => at.get(d) ?? -1);
  const before1 = Int32Array.from(days, (d) => at.get(addDays(d, -1)) ?? -1);
  const before7 = Int32Array.from(days, (d) => at.get(addDays(d, -7)) ?? -1);
  const october = days.map((d) => d.slice(5) === '10-01');
  // Per shown date, the days of the same month-day in the reference years (-1: none, as 29 February).
  const refYears = p.reference?.water_years ?? [];
  const refDays = p.shown.map((d) =>
    Int32Array.from(refYears, (y) => dayAt.get(`${d.slice(5) >= '10-01' ? y - 1 : y}-${d.slice(5)}`) ?? -1),
  );
  const kinds = ['mean', 'total'] as const;
  const cols = kinds.map((kind) => ({
    value: colOf(p.variable, kind),
    solid: colOf('precip_solid', kind),
    liquid: colOf('precip_liquid', kind),
  }));
  // The floors of % of median per kind and cumulative metric (a volume's is per cell: its area).
  const spec = (v: string) => plan.dataset.config.variables[v]!;
  const areas = zonesOf(cube).map((z) => z.area_m2);
  const floorOf = (k: number, m: number, area: number) => {
    const c = m < 2 ? cols[k]!.value : cols[k]!.solid;
    return columnFloor(plan.columns[c]!, spec(plan.columns[c]!.variable), area);
  };
  /** Table value of row i (-1: not held), cell j, column c; NaN when none. */
  const value = (i: number, j: number, c: number): number =>
    i < 0 ? Number.NaN : table[(i * K + j) * C + c]!;
  const orNull = (v: number): Value => (Number.isNaN(v) ? null : v);
  const metrics = p.precip ? CUMULATIVE : CUMULATIVE - 1;
  // The running values per kind and metric over every day (NaN: not known, a day is missing).
  const cum = Array.from({ length: 2 * CUMULATIVE }, () => new Float64Array(days.length));
  const buf = new Float64Array(refYears.length);
  const slicer = new Slicer(signal);
  for (let j = 0; j < K; j++) {
    // Running sums of the water year per kind: gain, melt, precipitation.
    const gain = [0, 0];
    const melt = [0, 0];
    const wet = [0, 0];
    let ok = false;
    let wetOk = false;
    for (let t = 0; t < days.length; t++) {
      if (october[t]) {
        gain.fill(0);
        melt.fill(0);
        wet.fill(0);
        ok = true;
        wetOk = p.precip;
      }
      for (let k = 0; k < 2; k++) {
        const c = cols[k]!;
        const now = value(row[t]!, j, c.value);
        if (Number.isNaN(now)) ok = false;
        else if (ok && !october[t]) {
          const delta = now - value(before1[t]!, j, c.value); // the day before is held: ok says so
          if (delta > 0) gain[k]! += delta;
          else melt[k]! -= delta;
        }
        if (p.precip) {
          const day = value(row[t]!, j, c.solid) + value(row[t]!, j, c.liquid);
          if (Number.isNaN(day)) wetOk = false;
          else wet[k]! += day;
        }
      }
      for (let k = 0; k < 2; k++) {
        cum[k * CUMULATIVE]![t] = ok ? gain[k]! : Number.NaN;
        cum[k * CUMULATIVE + 1]![t] = ok ? melt[k]! : Number.NaN;
        cum[k * CUMULATIVE + 2]![t] = wetOk ? wet[k]! : Number.NaN;
      }
    }
    p.shown.forEach((date, s) => {
      const t = dayAt.get(date)!;
      const out: Value[] = [];
      for (let k = 0; k < 2; k++) {
        const c = cols[k]!.value;
        const now = value(row[t]!, j, c);
        out.push(orNull(now), orNull(now - value(before1[t]!, j, c)), orNull(now - value(before7[t]!, j, c)));
        for (let m = 0; m < metrics; m++) out.push(orNull(cum[k * CUMULATIVE + m]![t]!));
        if (!p.reference) continue;
        for (let m = 0; m < metrics; m++) {
          const series = cum[k * CUMULATIVE + m]!;
          let n = 0;
          for (const r of refDays[s]!) if (r >= 0 && !Number.isNaN(series[r]!)) buf[n++] = series[r]!;
          buf.subarray(0, n).sort();
          const median = n > 0 ? quantile(buf, n, 0.5) : null;
          const v = series[t]!;
          const floor = floorOf(k, m, areas[j]!);
          out.push(
            median,
            median !== null && median > 0 && median >= floor && !Number.isNaN(v) ? (100 * v) / median : null,
          );
        }
      }
      results[date]!.push(out);
    });
    await slicer.pause(); // many cells: a server's cheap requests go on meanwhile
  }
  return results;
}

/** Execute a changes plan. */
export async function executeChanges(p: ChangesPlan, opts: ExecuteOptions = {}): Promise<ChangesBody> {
  const cube = await executeCube(p.stats, opts);
  const name = (variable: string, kind: 'mean' | 'total') =>
    p.stats.columns.find((c) => c.variable === variable && c.kind === kind)!.name;
  const variables = (['mean', 'total'] as const).flatMap((kind) => {
    const n = name(p.variable, kind);
    // mean_precip_solid_mm → wytd_mean_precip_mm
    const wytd = p.precip ? [`wytd_${name('precip_solid', kind).replace('precip_solid_', 'precip_')}`] : [];
    const cumulative = [`gain_${n}`, `melt_${n}`, ...wytd];
    const normals = p.reference ? cumulative.flatMap((c) => [`median_${c}`, `pct_median_${c}`]) : [];
    return [n, `change_1d_${n}`, `change_7d_${n}`, ...cumulative, ...normals];
  });
  return {
    zone_layers: p.stats.axes.map((a) => a.axis.layer),
    variables,
    zones: zonesOf(cube),
    variable: p.variable,
    ...(p.reference && { reference: p.reference }),
    results: await changeRows(cube, p, opts.signal),
  };
}

/** Plan change metrics against the database. */
export async function openChangesPlan(db: Database, q: ChangesQuery): Promise<ChangesPlan> {
  return planChanges(await planInputs(db, q.dataset, q.pourpoint), q);
}

/**
 * Change metrics of one basin in an active dataset.
 * @throws QueryParameterError as `planChanges`.
 */
export async function computeChanges(
  db: Database,
  q: ChangesQuery,
  opts: ExecuteOptions = {},
): Promise<ChangesBody> {
  return executeChanges(await openChangesPlan(db, q), opts);
}
