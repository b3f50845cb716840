/**
 * Water-year summaries of a water variable (SWE): per water year and zone cell, the peak of the
 * mean (value, first date at it, and the volume that date), the melt-out date (the first date
 * after the peak with a mean below a threshold) and the mean and volume on 1 April. A peak below
 * the threshold (a cell that never held snow) has no peak date and no melt-out date.
 */
import type { Database } from '../db/database.js';
import { QueryParameterError } from '../errors.js';
import { waterYearOf } from '../util/dates.js';
import { type Cube, columnTable, type ExecuteOptions, executeCube, zonesOf } from './cube.js';
import type { CompactStats } from './engine.js';
import { type PlanInputs, planInputs, planStats, type StatsPlan, type StatsQuery } from './plan.js';
import { statsStateKey } from './state.js';
import { checkYearSpan, waterYearSpan, type YearSpan } from './water-year.js';

export interface WaterYearsQuery extends Omit<StatsQuery, 'dates' | 'validFraction' | 'variables'> {
  /** A variable with a volume (default `swe`). */
  readonly variable?: string;
  /** Water years, inclusive (default: every water year with a date). */
  readonly years?: YearSpan;
  /** Melt-out threshold in the mean's unit (default 1 mm, or 0.04 in with US units). */
  readonly meltOutBelow?: number;
}

type Value = number | string | null;

/** Per water year and cell: peak, its date, melt-out date, 1 April, volumes, number of dates. */
export interface WaterYearsBody extends Omit<CompactStats, 'results'> {
  variable: string;
  /** The melt-out threshold, named with its unit (`melt_out_below_mm`). */
  [threshold: `melt_out_below_${string}`]: number;
  results: Record<string, Value[][]>;
}

/** Default melt-out thresholds by the mean's unit. */
const MELT_OUT_BELOW: Record<string, number> = { mm: 1, in: 0.04 };

/**
 * Summarize one water year of a cube whose columns are [mean, total]: `table` is its column
 * table, `rows` the year's date indices (ascending).
 */
function summarize(
  cube: Cube,
  table: Float64Array,
  rows: readonly number[],
  y: number,
  below: number,
): Value[][] {
  const K = cube.cells.length;
  const dates = cube.plan.dates;
  const at = (i: number, k: number, c: number): number | null => {
    const v = table[(i * K + k) * 2 + c]!;
    return Number.isNaN(v) ? null : v;
  };
  const apr1 = rows.find((i) => dates[i] === `${y}-04-01`);
  return Array.from({ length: K }, (_, k) => {
    let peak = -1;
    let top = Number.NEGATIVE_INFINITY;
    for (const i of rows) {
      const v = at(i, k, 0);
      if (v !== null && v > top) [top, peak] = [v, i];
    }
    const peakValue = peak < 0 ? null : at(peak, k, 0);
    const peakTotal = peak < 0 ? null : at(peak, k, 1);
    // A peak below the melt-out threshold is no snow season: it has no peak or melt-out date.
    if (top < below) peak = -1;
    let meltOut: string | null = null;
    if (peak >= 0)
      for (const i of rows) {
        const v = at(i, k, 0);
        if (i > peak && v !== null && v < below) {
          meltOut = dates[i]!;
          break;
        }
      }
    return [
      peakValue,
      peak < 0 ? null : dates[peak]!,
      meltOut,
      apr1 === undefined ? null : at(apr1, k, 0),
      peakTotal,
      apr1 === undefined ? null : at(apr1, k, 1),
      rows.length,
    ];
  });
}

/** A water-years query resolved without reading a raster. */
export interface WaterYearsPlan {
  /** The variable's mean and volume over the years' dates. */
  readonly stats: StatsPlan;
  readonly variable: string;
  /** The melt-out threshold in the mean's unit, and that unit (mm or in). */
  readonly below: number;
  readonly unit: string;
}

/**
 * Plan water-year summaries (pure).
 * @throws QueryParameterError for a variable without a volume, an inverted span or a bad threshold.
 */
export function planWaterYears(inputs: PlanInputs, q: WaterYearsQuery): WaterYearsPlan {
  const variable = q.variable ?? 'swe';
  const spec = inputs.dataset.config.variables[variable];
  if (spec?.volume_m_per_unit === undefined) {
    const water = Object.keys(inputs.dataset.config.variables).filter(
      (v) => inputs.dataset.config.variables[v]!.volume_m_per_unit !== undefined,
    );
    throw new QueryParameterError(
      `water-year summaries need a water variable of '${inputs.dataset.name}' (${water.join(', ') || 'none'}), not '${variable}'`,
      { parameter: 'variable', allowed: water },
    );
  }
  checkYearSpan(q.years, 'years');
  const dates = {
    type: 'DateRange' as const,
    start_date: q.years ? waterYearSpan(q.years.start).first : null,
    end_date: q.years ? waterYearSpan(q.years.end).last : null,
  };
  const stats = planStats(inputs, { ...q, dates, variables: [variable], validFraction: false });
  const unit = stats.columns[0]!.name.slice(`mean_${variable}_`.length); // mm, or in with US units
  const below = q.meltOutBelow ?? MELT_OUT_BELOW[unit] ?? 0;
  if (!Number.isFinite(below) || below < 0)
    throw new QueryParameterError(`melt-out threshold ${below} is not a number ≥ 0`, {
      parameter: 'melt_out_below',
    });
  return { stats, variable, below, unit };
}

/** A key that changes whenever a water-years plan's answer could. */
export const waterYearsStateKey = (p: WaterYearsPlan): string => `${statsStateKey(p.stats)}/${p.below}`;

/** Execute a water-years plan: per water year of its dates, the summaries of each cell. */
export async function executeWaterYears(
  p: WaterYearsPlan,
  opts: ExecuteOptions = {},
): Promise<WaterYearsBody> {
  const cube = await executeCube(p.stats, opts);
  const table = columnTable(cube);
  const byYear = new Map<number, number[]>();
  p.stats.dates.forEach((date, i) => {
    const y = waterYearOf(date);
    const list = byYear.get(y) ?? [];
    if (list.length === 0) byYear.set(y, list);
    list.push(i);
  });
  const results: Record<string, Value[][]> = {};
  for (const [y, rows] of byYear) results[String(y)] = summarize(cube, table, rows, y, p.below);
  const [mean, total] = p.stats.columns;
  const threshold = `melt_out_below_${p.unit}` as const;
  return {
    zone_layers: p.stats.axes.map((a) => a.axis.layer),
    variables: [
      `peak_${mean!.name}`,
      'peak_date',
      'melt_out_date',
      `apr1_${mean!.name}`,
      `peak_${total!.name}`,
      `apr1_${total!.name}`,
      'dates',
    ],
    zones: zonesOf(cube),
    variable: p.variable,
    ...({ [threshold]: p.below } as Record<typeof threshold, number>),
    results,
  };
}

/** Plan water-year summaries against the database. */
export async function openWaterYearsPlan(db: Database, q: WaterYearsQuery): Promise<WaterYearsPlan> {
  return planWaterYears(await planInputs(db, q.dataset, q.pourpoint), q);
}

/**
 * Water-year summaries of one basin in an active dataset.
 * @throws QueryParameterError for a variable without a volume, an inverted span or a bad threshold.
 */
export async function computeWaterYears(
  db: Database,
  q: WaterYearsQuery,
  opts: ExecuteOptions = {},
): Promise<WaterYearsBody> {
  return executeWaterYears(await openWaterYearsPlan(db, q), opts);
}
