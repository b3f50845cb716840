/**
 * Change metrics of a water variable (SWE) per date and zone cell: the 1-day and 7-day change of
 * its mean and volume, the cumulative gain and melt since 1 October (the sums of the day-to-day
 * rises and falls since that day's value), and, where the dataset holds solid and liquid
 * precipitation, the water-year-to-date precipitation (mean and volume, 1 October through the
 * date). Computed from held dates only: a change whose earlier date is not held is null (never a
 * difference over another span), and a missing or empty day makes the cumulative values null for
 * the rest of its water year. A view of one typed cube over the selected dates extended back to
 * 1 October (and 7 days).
 */
import { createHash } from 'node:crypto';
import type { Database } from '../db/database.js';
import { QueryParameterError } from '../errors.js';
import { addDays, waterYearOf } from '../util/dates.js';
import { Slicer } from '../util/slices.js';
import { type Cube, columnTable, type ExecuteOptions, executeCube, zonesOf } from './cube.js';
import { selectDates } from './dates.js';
import type { CompactStats } from './engine.js';
import { type PlanInputs, planInputs, planStats, type StatsPlan, type StatsQuery } from './plan.js';
import { statsStateKey } from './state.js';
import { waterYearSpan } from './water-year.js';

export interface ChangesQuery extends Omit<StatsQuery, 'variables' | 'validFraction' | 'normals'> {
  /** A water variable, with a volume (default `swe`). */
  readonly variable?: string;
}

type Value = number | null;

export interface ChangesBody extends Omit<CompactStats, 'results'> {
  variable: string;
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
  // From 1 October of the first date's water year, or 7 days before it when that is earlier.
  const start = first && [waterYearSpan(waterYearOf(first)).first, addDays(first, -7)].sort()[0]!;
  const dates = { type: 'DateRange' as const, start_date: start ?? null, end_date: shown.at(-1) ?? null };
  const stats = planStats(inputs, {
    ...q,
    dates: first === undefined ? q.dates : dates, // none selected: the query's own (empty) selection and its note
    variables: [variable, ...(precip ? PRECIP : [])],
    validFraction: false,
    normals: undefined,
  });
  return { stats, variable, precip, shown };
}

/** A key that changes whenever a changes plan's answer could. */
export const changesStateKey = (p: ChangesPlan): string =>
  `${statsStateKey(p.stats)}/${createHash('sha256').update(p.shown.join(',')).digest('base64url').slice(0, 16)}`;

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
  // Every calendar day from 1 October of the first shown date's water year to the last shown one,
  // with its table row, the rows of the days 1 and 7 before (-1: not held), and whether it is shown.
  const at = new Map(plan.dates.map((d, i) => [d, i]));
  const shown = new Set(p.shown);
  const days: string[] = [];
  for (let d = waterYearSpan(waterYearOf(p.shown[0]!)).first; d <= last; d = addDays(d, 1)) days.push(d);
  const row = Int32Array.from(days, (d) => at.get(d) ?? -1);
  const before1 = Int32Array.from(days, (d) => at.get(addDays(d, -1)) ?? -1);
  const before7 = Int32Array.from(days, (d) => at.get(addDays(d, -7)) ?? -1);
  const october = days.map((d) => d.slice(5) === '10-01');
  const kinds = ['mean', 'total'] as const;
  const cols = kinds.map((kind) => ({
    value: colOf(p.variable, kind),
    solid: colOf('precip_solid', kind),
    liquid: colOf('precip_liquid', kind),
  }));
  /** Table value of row i (-1: not held), cell j, column c; NaN when none. */
  const value = (i: number, j: number, c: number): number =>
    i < 0 ? Number.NaN : table[(i * K + j) * C + c]!;
  const orNull = (v: number): Value => (Number.isNaN(v) ? null : v);
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
      if (!shown.has(days[t]!)) continue;
      const out: Value[] = [];
      for (let k = 0; k < 2; k++) {
        const c = cols[k]!.value;
        const now = value(row[t]!, j, c);
        out.push(
          orNull(now),
          orNull(now - value(before1[t]!, j, c)),
          orNull(now - value(before7[t]!, j, c)),
          ok ? gain[k]! : null,
          ok ? melt[k]! : null,
          ...(p.precip ? [wetOk ? wet[k]! : null] : []),
        );
      }
      results[days[t]!]!.push(out);
    }
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
    return [n, `change_1d_${n}`, `change_7d_${n}`, `gain_${n}`, `melt_${n}`, ...wytd];
  });
  return {
    zone_layers: p.stats.axes.map((a) => a.axis.layer),
    variables,
    zones: zonesOf(cube),
    variable: p.variable,
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
