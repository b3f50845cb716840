/**
 * The snow line of a basin, as the reference tool (snowtool) defines it: per date, over the
 * basin's elevation bands sorted by elevation, the first adjacent pair whose means bracket the
 * threshold going up (lower < threshold ≤ upper; a pair with a band without a value that date is
 * skipped), interpolated linearly between the two bands' centres; none when no pair crosses.
 * Any variable (a snow-cover fraction in percent by default, SWE in mm at a threshold…). A view
 * of the typed cube of that variable over `terrain.elevation` bands. The body holds the
 * reference's `results` and, beside it, snowdb's table per date (`rows`: why a date has no line,
 * both bands, the median line of the reference years).
 */
import { type DatasetConfig, isSnowFraction } from '../datasets/config.js';
import type { Database } from '../db/database.js';
import { QueryParameterError, SnowdbError } from '../errors.js';
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
  /** Any variable of the dataset (default its snow-cover fraction, `snow_fraction`). */
  readonly variable?: string;
  /** In the variable's mean unit (default 50; a fraction's in [0, 100]). */
  readonly threshold?: number;
  /** Elevation band height, ft (default 500, as the reference). */
  readonly bandStepFt?: number;
  /** Each date against the reference years' snow lines on its day of year. */
  readonly normals?: NormalsOption;
}

/** How a date's bands meet the threshold (the `crossing` column). */
export type Crossing =
  /** Interpolated between two bands. */
  | 'found'
  /** Every band's mean is at or above the threshold: the line lies below the basin. */
  | 'all_above'
  /** Every band's mean is below the threshold: the line lies above the basin (or there is no snow). */
  | 'all_below'
  /** Bands above and below, but none at or above right over one below: cover falls with elevation. */
  | 'from_above_only'
  /** It would cross going up, but only across a band without a value that date (pairs with one are skipped). */
  | 'gap'
  /** No band has a value that date. */
  | 'no_data';

/** The reference's answer for a date: the line and the two bands it was interpolated between. */
export interface ReferenceLine {
  elevation_ft: number;
  lower_band_area_m2: number;
  higher_band_area_m2: number;
  interpolation_span_ft: number;
}

type Value = number | string | null;

/**
 * The reference's members (`threshold`, `threshold_unit`, `band_step_ft`, `query`, `results`;
 * the shells add `pourpoint` and `dataset`) and snowdb's table: per date one row (one cell: the
 * basin) in `rows`, its columns named in `variables`.
 */
export interface SnowlineBody extends Omit<CompactStats, 'results'> {
  query: StatsQuery['dates'];
  variable: string;
  threshold: number;
  threshold_unit: string;
  band_step_ft: number;
  /** With normals: the reference water years. */
  reference?: Reference;
  results: Record<string, ReferenceLine | null>;
  rows: Record<string, Value[][]>;
}

/** The body as the one-cell table the CSV writers read (`rows` as `results`). */
export const snowlineTable = (
  b: SnowlineBody,
): Omit<CompactStats, 'results'> & { results: Record<string, Value[][]> } => ({
  zone_layers: b.zone_layers,
  variables: b.variables,
  zones: b.zones,
  results: b.rows,
});

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
  const spec = d.config.variables[variable];
  if (spec === undefined)
    throw new QueryParameterError(
      q.variable === undefined
        ? `'${d.name}' has no snow-cover fraction variable: name the variable of the line (its variables: ${Object.keys(d.config.variables).join(', ')})`
        : `'${d.name}' has no variable '${variable}'; its variables: ${Object.keys(d.config.variables).join(', ')}`,
      { parameter: 'variable', allowed: Object.keys(d.config.variables) },
    );
  const threshold = q.threshold ?? 50;
  const fraction = isSnowFraction(variable, spec);
  if (!Number.isFinite(threshold) || (fraction && (threshold < 0 || threshold > 100)))
    throw new QueryParameterError(
      fraction
        ? `threshold must lie in [0, 100] percent for '${variable}', got ${threshold}`
        : `threshold must be a finite number, got ${threshold}`,
      { parameter: 'threshold' },
    );
  const bandStepFt = q.bandStepFt ?? 500;
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

/** One band of a date: its bounds (ft), mean (the variable's unit; null: no value that date) and in-basin area (m²). */
export interface Band {
  readonly min: number;
  readonly max: number;
  readonly value: number | null;
  readonly area: number;
}

/** The snow line over one date's bands (ascending, every band in the basin): snowdb's row. */
export function snowlineRow(bands: readonly Band[], threshold: number): Value[] {
  const empty = (c: Crossing): Value[] => [null, null, c, ...new Array<null>(9).fill(null)];
  for (let i = 0; i + 1 < bands.length; i++) {
    const lo = bands[i]!;
    const hi = bands[i + 1]!;
    if (lo.value === null || hi.value === null) continue; // the reference skips such a pair
    if (lo.value < threshold && threshold <= hi.value) {
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
  const values = bands.flatMap((b) => (b.value === null ? [] : [b.value]));
  if (values.length === 0) return empty('no_data');
  if (values.every((v) => v >= threshold)) return empty('all_above');
  if (values.every((v) => v < threshold)) return empty('all_below');
  // Bridged over the bands without a value, would it cross going up?
  const held = bands.filter((b) => b.value !== null);
  for (let i = 0; i + 1 < held.length; i++)
    if (held[i]!.value! < threshold && threshold <= held[i + 1]!.value!) return empty('gap');
  return empty('from_above_only');
}

/** The reference's answer of a row: null unless a line was found. */
const referenceLine = (row: readonly Value[]): ReferenceLine | null =>
  row[2] !== 'found'
    ? null
    : {
        elevation_ft: row[0] as number,
        lower_band_area_m2: row[6] as number,
        higher_band_area_m2: row[10] as number,
        interpolation_span_ft: row[11] as number,
      };

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
      if (ref?.kind === 'band')
        bands.push({
          min: ref.min,
          max: ref.max,
          value: Number.isNaN(value) ? null : value,
          area: z.area_m2,
        });
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

/** Execute a snow-line plan. @throws QueryParameterError when the basin holds fewer than two bands. */
export async function executeSnowline(p: SnowlinePlan, opts: ExecuteOptions = {}): Promise<SnowlineBody> {
  const cube = await executeCube(p.stats, opts);
  const bands = zonesOf(cube).filter((z) => z.zone[0]?.kind === 'band').length;
  if (bands === 0)
    throw new SnowdbError(
      'zone-layer-missing',
      `no elevation zone reaches this basin in '${p.stats.dataset.name}' (its terrain layer does not cover it): no snow line; generate zones from a DEM that covers it ('snowdb dataset generate-zones')`,
    );
  if (bands < 2)
    throw new QueryParameterError(
      `the basin spans 1 elevation band of ${p.bandStepFt} ft with terrain: a snow line needs two; ask for a smaller band_step_ft`,
      { parameter: 'band_step_ft' },
    );
  const rows = snowlines(cube, p.threshold);
  if (p.normals)
    againstNormal(
      rows,
      snowlines(await executeCube(p.normals.stats, opts), p.threshold),
      p.normals.reference,
    );
  const mean = p.stats.columns[0]!.name; // mean_<variable>_<unit>
  const area = zonesOf(cube).reduce((t, z) => t + z.area_m2, 0);
  const results: Record<string, ReferenceLine | null> = {};
  for (const [date, r] of Object.entries(rows)) results[date] = referenceLine(r[0]!);
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
    query: p.stats.query.dates,
    variable: p.variable,
    threshold: p.threshold,
    threshold_unit: mean.slice(`mean_${p.variable}_`.length),
    band_step_ft: p.bandStepFt,
    ...(p.normals && { reference: p.normals.reference }),
    results,
    rows,
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
