/**
 * Water-year summaries of a water variable (SWE): per water year and zone cell, the peak of the
 * mean (value, first date at it, and the volume that date), the melt-out date (the first date
 * after the peak with a mean below a threshold) and the mean and volume on 1 April. A peak below
 * the threshold (a cell that never held snow) has no peak date and no melt-out date.
 */
import type { Database } from '../db/database.js';
import { QueryParameterError } from '../errors.js';
import { waterYearOf } from '../util/dates.js';
import { median } from '../util/median.js';
import { type Cube, columnTable, type ExecuteOptions, executeCube, zonesOf } from './cube.js';
import type { CompactStats } from './engine.js';
import { columnFloor } from './median-floor.js';
import { type Reference, referenceYears } from './normals.js';
import {
  type NormalsOption,
  type PlanInputs,
  planInputs,
  planStats,
  type SharedPlanning,
  type StatsPlan,
  type StatsQuery,
} from './plan.js';
import { statsStateKey } from './state.js';
import { checkYearSpan, DAY_INDEX, WATER_YEAR_DAYS, waterYearSpan, type YearSpan } from './water-year.js';

export interface WaterYearsQuery extends Omit<StatsQuery, 'dates' | 'validFraction' | 'variables'> {
  /** A variable with a volume (default `swe`). */
  readonly variable?: string;
  /** Water years, inclusive (default: every water year with a date). */
  readonly years?: YearSpan;
  /** Melt-out threshold in the mean's unit (default 1 mm, or 0.04 in with US units). */
  readonly meltOutBelow?: number;
  /** Each year against the reference water years' peaks and dates (`years`: default as normals). */
  readonly normals?: NormalsOption;
}

type Value = number | string | null;

/** Per water year and cell: peak, its date, melt-out date, 1 April, volumes, number of dates. */
export interface WaterYearsBody extends Omit<CompactStats, 'results'> {
  variable: string;
  /** With normals: the reference water years. */
  reference?: Reference;
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

/** The columns a year gains against normal (`mean`: the mean's column name). */
const NORMAL_COLUMNS = (mean: string): string[] => [
  `median_peak_${mean}`,
  `pct_median_peak_${mean}`,
  'median_peak_day',
  'median_melt_out_day',
  'melted_since_peak_pct',
  'reference_years',
];

/** The median day of water year (`MM-DD`) of ISO dates, the lower middle one for an even count (null for none). */
function medianDay(dates: (string | null)[]): string | null {
  const days = dates.filter((d): d is string => d !== null).map((d) => DAY_INDEX.get(d.slice(5))!);
  if (days.length === 0) return null;
  days.sort((a, b) => a - b);
  return WATER_YEAR_DAYS[days[Math.floor((days.length - 1) / 2)]!]!;
}

/**
 * One year's rows with the columns against normal appended: the median of the reference years'
 * peaks (`peak_<mean>`, column 0), the year's peak as a percentage of it (null below the
 * variable's floor), the median peak and melt-out days, how much of the peak had melted by the
 * year's last date, and how many reference years have a peak.
 */
function againstNormal(
  rows: Value[][],
  yearRows: readonly number[],
  p: WaterYearsPlan,
  summaries: ReadonlyMap<number, Value[][]>,
  meanAt: (dateIndex: number, cell: number) => number,
  o: { floor: number },
): Value[][] {
  const ref = p.reference!.water_years.map((y) => summaries.get(y)).filter((r) => r !== undefined);
  const last = yearRows.at(-1)!;
  return rows.map((row, k) => {
    const peaks = ref.map((r) => r[k]![0]).filter((v): v is number => typeof v === 'number');
    const med = median(peaks);
    const peak = row[0] as number | null;
    const now = meanAt(last, k);
    const hadSnow = peak !== null && row[1] !== null; // a peak date: the peak reached the threshold
    return [
      ...row,
      med,
      peak !== null && med !== null && med >= o.floor && med > 0 ? (100 * peak) / med : null,
      medianDay(ref.map((r) => r[k]![1] as string | null)),
      medianDay(ref.map((r) => r[k]![2] as string | null)),
      hadSnow && !Number.isNaN(now) ? (100 * (peak - now)) / peak : null,
      peaks.length,
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
  /** The years the answer has rows for (null: every year with a date). */
  readonly years: YearSpan | null;
  /** With normals: the reference water years (their dates are in `stats` too). */
  readonly reference: Reference | null;
}

/**
 * Plan water-year summaries (pure).
 * @throws QueryParameterError for a variable without a volume, an inverted span or a bad threshold.
 */
export function planWaterYears(
  inputs: PlanInputs,
  q: WaterYearsQuery,
  shared?: SharedPlanning,
): WaterYearsPlan {
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
  const reference = q.normals ? referenceYears(inputs.dates, inputs.dataset.name, q.normals.years) : null;
  // The rows' years, and with normals the reference years too (every date when no years are named).
  const span = q.years && {
    start: Math.min(q.years.start, reference?.start_water_year ?? q.years.start),
    end: Math.max(q.years.end, reference?.end_water_year ?? q.years.end),
  };
  const dates = {
    type: 'DateRange' as const,
    start_date: span ? waterYearSpan(span.start).first : null,
    end_date: span ? waterYearSpan(span.end).last : null,
  };
  const stats = planStats(
    inputs,
    { ...q, dates, variables: [variable], validFraction: false, normals: undefined },
    shared,
  );
  const unit = stats.columns[0]!.name.slice(`mean_${variable}_`.length); // mm, or in with US units
  const below = q.meltOutBelow ?? MELT_OUT_BELOW[unit] ?? 0;
  if (!Number.isFinite(below) || below < 0)
    throw new QueryParameterError(`melt-out threshold ${below} is not a number ≥ 0`, {
      parameter: 'melt_out_below',
    });
  return { stats, variable, below, unit, years: q.years ?? null, reference };
}

/** A key that changes whenever a water-years plan's answer could. */
export const waterYearsStateKey = (p: WaterYearsPlan): string =>
  `${statsStateKey(p.stats)}/${p.below}/${p.years ? `${p.years.start}..${p.years.end}` : '*'}/${p.reference ? `${p.reference.start_water_year}..${p.reference.end_water_year}` : '-'}`;

/** Execute a water-years plan: per water year of its dates, the summaries of each cell. */
export async function executeWaterYears(
  p: WaterYearsPlan,
  opts: ExecuteOptions = {},
): Promise<WaterYearsBody> {
  return waterYearsOf(p, await executeCube(p.stats, opts));
}

/** The water-year summaries of a plan from its executed cube. */
export function waterYearsOf(p: WaterYearsPlan, cube: Cube): WaterYearsBody {
  const table = columnTable(cube);
  const byYear = new Map<number, number[]>();
  p.stats.dates.forEach((date, i) => {
    const y = waterYearOf(date);
    const list = byYear.get(y) ?? [];
    if (list.length === 0) byYear.set(y, list);
    list.push(i);
  });
  const summaries = new Map([...byYear].map(([y, rows]) => [y, summarize(cube, table, rows, y, p.below)]));
  const results: Record<string, Value[][]> = {};
  const shown = (y: number) => p.years === null || (y >= p.years.start && y <= p.years.end);
  const [mean, total] = p.stats.columns;
  const spec = p.stats.dataset.config.variables[p.variable]!;
  for (const [y, rows] of summaries) {
    if (!shown(y)) continue;
    results[String(y)] = p.reference
      ? againstNormal(rows, byYear.get(y)!, p, summaries, (i, k) => table[(i * cube.cells.length + k) * 2]!, {
          floor: columnFloor(mean!, spec, 0),
        })
      : rows;
  }
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
      ...(p.reference ? NORMAL_COLUMNS(mean!.name) : []),
    ],
    zones: zonesOf(cube),
    variable: p.variable,
    ...({ [threshold]: p.below } as Record<typeof threshold, number>),
    ...(p.reference && { reference: p.reference }),
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
