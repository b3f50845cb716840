/**
 * The snow line of a basin: per date, the elevation where a snow-cover fraction crosses a
 * threshold going up, interpolated linearly between the centres of the lowest adjacent pair of
 * elevation bands whose means bracket it (lower ≤ threshold < upper). A view of the typed cube
 * of one fraction variable over `terrain.elevation` bands; bands without a value that date are
 * passed over (the pair is then the nearest bands with values: `span_ft` says how far apart).
 */
import { type DatasetConfig, isSnowFraction } from '../datasets/config.js';
import type { Database } from '../db/database.js';
import { QueryParameterError } from '../errors.js';
import { waterYearOf } from '../util/dates.js';
import { median } from '../util/median.js';
import { M_TO_FT } from '../zones/layers.js';
import { type Cube, columnTable, type ExecuteOptions, executeCube, zonesOf } from './cube.js';
import type { CompactStats } from './engine.js';
import { type Reference, referenceYears } from './normals.js';
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

export interface SnowlineQuery
  extends Omit<StatsQuery, 'zones' | 'variables' | 'validFraction' | 'includeEmptyZones' | 'normals'> {
  /** A snow-cover fraction variable (default `snow_fraction`). */
  readonly variable?: string;
  /** Percent, in [0, 100) (default 50). */
  readonly threshold?: number;
  /** Elevation band height, ft (default 1000). */
  readonly bandStepFt?: number;
  /** Each date against the reference years' snow lines on its day of year. */
  readonly normals?: NormalsOption;
}

/** How a date's bands meet the threshold (the `crossing` column). */
export type Crossing =
  /** Interpolated between two bands. */
  | 'found'
  /** Every band's mean is above the threshold: the line lies below the basin. */
  | 'all_above'
  /** No band's mean is above the threshold: the line lies above the basin (or there is no snow). */
  | 'all_below'
  /** Bands above and below, but none above a band at or below: cover falls with elevation. */
  | 'from_above_only'
  /** No band has a value that date. */
  | 'no_data';

type Value = number | string | null;

/** Per date one row (one cell: the basin): the line, how it was found, and the bracketing bands. */
export interface SnowlineBody extends Omit<CompactStats, 'results'> {
  variable: string;
  /** With normals: the reference water years. */
  reference?: Reference;
  threshold_percent: number;
  band_step_ft: number;
  results: Record<string, Value[][]>;
}

/** The dataset's snow-cover fraction variables (`isSnowFraction`), sorted. */
export const fractionVariables = (config: DatasetConfig): string[] =>
  Object.keys(config.variables)
    .filter((v) => isSnowFraction(v, config.variables[v]!))
    .sort();

/** A snow-line query resolved without reading a raster. */
export interface SnowlinePlan {
  /** The variable's mean over elevation bands, for every selected date. */
  readonly stats: StatsPlan;
  readonly variable: string;
  readonly threshold: number;
  readonly bandStepFt: number;
  /** With normals: the reference years and the plan over their dates. */
  readonly normals: { readonly reference: Reference; readonly stats: StatsPlan } | null;
}

/**
 * Plan a snow line (pure).
 * @throws QueryParameterError for a variable that is not a snow-cover fraction (naming those that
 *   are), a threshold outside [0, 100) or a bad band step.
 */
export function planSnowline(inputs: PlanInputs, q: SnowlineQuery): SnowlinePlan {
  const d = inputs.dataset;
  const fractions = fractionVariables(d.config);
  const variable = q.variable ?? fractions[0] ?? 'snow_fraction';
  if (!fractions.includes(variable))
    throw new QueryParameterError(
      fractions.length === 0
        ? `'${d.name}' has no snow-cover fraction variable (a snow line needs one, e.g. SPIRES snow_fraction)`
        : `'${variable}' is not a snow-cover fraction of '${d.name}'; its fraction variables: ${fractions.join(', ')}`,
      { parameter: 'variable', allowed: fractions },
    );
  const threshold = q.threshold ?? 50;
  if (!Number.isFinite(threshold) || threshold < 0 || threshold >= 100)
    throw new QueryParameterError(`threshold must lie in [0, 100) percent, got ${threshold}`, {
      parameter: 'threshold',
    });
  const bandStepFt = q.bandStepFt ?? 1000;
  if (!Number.isInteger(bandStepFt) || bandStepFt <= 0)
    throw new QueryParameterError(`band_step_ft must be a positive whole number of feet, got ${bandStepFt}`, {
      parameter: 'band_step_ft',
    });
  const bands = {
    ...q,
    zones: [`terrain.elevation:band_step_ft=${bandStepFt}`],
    variables: [variable],
    validFraction: false,
    includeEmptyZones: false,
    normals: undefined,
  };
  const stats = planStats(inputs, bands);
  let normals: SnowlinePlan['normals'] = null;
  if (q.normals) {
    const reference = referenceYears(inputs.dates, d.name, q.normals.years);
    const dates = {
      type: 'DateRange' as const,
      start_date: waterYearSpan(reference.start_water_year).first,
      end_date: waterYearSpan(reference.end_water_year).last,
    };
    normals = { reference, stats: planStats(inputs, { ...bands, dates }) };
  }
  return { stats, variable, threshold, bandStepFt, normals };
}

/** A key that changes whenever a snow-line plan's answer could. */
export const snowlineStateKey = (p: SnowlinePlan): string =>
  `${statsStateKey(p.stats)}/${p.threshold}${p.normals ? `/${statsStateKey(p.normals.stats)}` : ''}`;

/** One band of a date: its bounds (ft), mean (percent) and in-basin area (m²). */
export interface Band {
  readonly min: number;
  readonly max: number;
  readonly value: number;
  readonly area: number;
}

/** The snow line over one date's bands (ascending, with values): the answer's row. */
export function snowlineRow(bands: readonly Band[], threshold: number): Value[] {
  const empty = (c: Crossing): Value[] => [
    null,
    null,
    c,
    null,
    null,
    null,
    null,
    null,
    null,
    null,
    null,
    null,
  ];
  if (bands.length === 0) return empty('no_data');
  for (let i = 0; i + 1 < bands.length; i++) {
    const lo = bands[i]!;
    const hi = bands[i + 1]!;
    if (lo.value <= threshold && threshold < hi.value) {
      const cLo = (lo.min + lo.max) / 2;
      const cHi = (hi.min + hi.max) / 2;
      const ft = cLo + ((threshold - lo.value) / (hi.value - lo.value)) * (cHi - cLo);
      return [
        ft,
        ft / M_TO_FT,
        'found',
        lo.min,
        lo.max,
        lo.value,
        lo.area,
        hi.min,
        hi.max,
        hi.value,
        hi.area,
        cHi - cLo,
      ];
    }
  }
  if (bands.every((b) => b.value > threshold)) return empty('all_above');
  if (bands.every((b) => b.value <= threshold)) return empty('all_below');
  return empty('from_above_only');
}

/** Per date of the cube, the snow line over its elevation bands (the unclassified cell left out). */
function snowlines(cube: Cube, threshold: number): Record<string, Value[][]> {
  const table = columnTable(cube); // columns: the mean (percent, first), then the covered area
  const K = cube.cells.length;
  const C = cube.plan.columns.length;
  const zones = zonesOf(cube);
  const results: Record<string, Value[][]> = {};
  cube.plan.dates.forEach((date, i) => {
    const bands: Band[] = [];
    zones.forEach((z, k) => {
      const ref = z.zone[0];
      const value = table[(i * K + k) * C]!;
      if (ref?.kind === 'band' && !Number.isNaN(value))
        bands.push({ min: ref.min, max: ref.max, value, area: z.area_m2 });
    });
    results[date] = [snowlineRow(bands, threshold)];
  });
  return results;
}

/**
 * Append to each date's row the median of the reference years' snow lines on its day of year
 * (ft, m; the years with a line that day, no crossing left out) and how many years have one.
 */
function againstNormal(
  results: Record<string, Value[][]>,
  ref: Record<string, Value[][]>,
  reference: Reference,
) {
  const years = new Set(reference.water_years);
  const byDay = new Map<string, number[]>();
  for (const [date, rows] of Object.entries(ref)) {
    const ft = rows[0]![0];
    if (!years.has(waterYearOf(date)) || typeof ft !== 'number') continue;
    const list = byDay.get(date.slice(5)) ?? [];
    list.push(ft);
    byDay.set(date.slice(5), list);
  }
  for (const [date, rows] of Object.entries(results)) {
    const lines = byDay.get(date.slice(5)) ?? [];
    const mid = median(lines);
    rows[0]!.push(mid, mid === null ? null : mid / M_TO_FT, lines.length);
  }
}

/** Execute a snow-line plan. */
export async function executeSnowline(p: SnowlinePlan, opts: ExecuteOptions = {}): Promise<SnowlineBody> {
  const cube = await executeCube(p.stats, opts);
  const results = snowlines(cube, p.threshold);
  if (p.normals)
    againstNormal(
      results,
      snowlines(await executeCube(p.normals.stats, opts), p.threshold),
      p.normals.reference,
    );
  const mean = p.stats.columns[0]!.name; // mean_snow_fraction_percent
  const area = zonesOf(cube).reduce((t, z) => t + z.area_m2, 0);
  return {
    zone_layers: [],
    variables: [
      'snowline_ft',
      'snowline_m',
      'crossing',
      'lower_band_min_ft',
      'lower_band_max_ft',
      `lower_band_${mean}`,
      'lower_band_area_m2',
      'upper_band_min_ft',
      'upper_band_max_ft',
      `upper_band_${mean}`,
      'upper_band_area_m2',
      'span_ft',
      ...(p.normals ? ['median_snowline_ft', 'median_snowline_m', 'snowline_years'] : []),
    ],
    zones: [{ zone: [], area_m2: area }],
    variable: p.variable,
    threshold_percent: p.threshold,
    band_step_ft: p.bandStepFt,
    ...(p.normals && { reference: p.normals.reference }),
    results,
  };
}

/** Plan a snow line against the database. */
export async function openSnowlinePlan(db: Database, q: SnowlineQuery): Promise<SnowlinePlan> {
  return planSnowline(await planInputs(db, q.dataset, q.pourpoint), q);
}

/**
 * The snow line of one basin in an active dataset.
 * @throws QueryParameterError as `planSnowline`.
 */
export async function computeSnowline(
  db: Database,
  q: SnowlineQuery,
  opts: ExecuteOptions = {},
): Promise<SnowlineBody> {
  return executeSnowline(await openSnowlinePlan(db, q), opts);
}
