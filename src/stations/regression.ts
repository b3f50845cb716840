/**
 * The SWE–volume regression diagnostic the old NRCS "SNODAS Tools" gave, per forecast point:
 * a predictor on one day of each water year (the basin's mean SWE in a dataset, or its station
 * index) against the season's observed volume, by ordinary least squares over the years both
 * exist; coefficients, r², the residual spread, the years used, and this year's predictor on the
 * fit. And the year × predictor table NRCS's M4 tool reads. snowdb issues no forecasts: the
 * fitted value is a diagnostic of the fit, and the published forecasts are shown beside it.
 */
import type { Database } from '../db/database.js';
import { QueryParameterError, SnowdbError } from '../errors.js';
import { indexedEntry, indexOf, readStoredBasin } from '../pourpoints/store.js';
import { dayOfYear } from '../stats/dates.js';
import { type ExecuteOptions, executeStats } from '../stats/engine.js';
import { openStatsPlan } from '../stats/plan.js';
import type { Units } from '../stats/units.js';
import { csvRow } from '../util/csv.js';
import { waterYearOf } from '../util/dates.js';
import {
  forecastTripletOf,
  latestForecasts,
  type Season,
  seasonalVolumes,
  seasonName,
} from './forecast-point.js';
import { indexOn, indexSites } from './queries.js';
import { type Forecast, readForecastPoint } from './store.js';
import { DEFAULT_REFERENCE } from './values.js';

export const PREDICTORS = ['basin', 'stations'] as const;
export type Predictor = (typeof PREDICTORS)[number];

export interface RegressionQuery {
  readonly dataset: string;
  readonly pourpoint: string;
  /** `MM-DD`: the day of each water year the predictor is read. */
  readonly day: string;
  readonly season: Season;
  readonly predictor: Predictor;
  readonly units?: Units;
}

export interface Fit {
  intercept: number;
  slope: number;
  r2: number;
  /** √(Σ residual² ÷ (n − 2)), in the volume's unit. */
  residual_sd: number;
  n: number;
}

/** Ordinary least squares of y on x (n ≥ 3 and x not constant, else null). */
export function leastSquares(x: readonly number[], y: readonly number[]): Fit | null {
  const n = x.length;
  if (n < 3) return null;
  const mx = x.reduce((a, b) => a + b, 0) / n;
  const my = y.reduce((a, b) => a + b, 0) / n;
  let sxx = 0;
  let sxy = 0;
  let syy = 0;
  for (let i = 0; i < n; i++) {
    sxx += (x[i]! - mx) ** 2;
    sxy += (x[i]! - mx) * (y[i]! - my);
    syy += (y[i]! - my) ** 2;
  }
  if (sxx === 0) return null;
  const slope = sxy / sxx;
  const intercept = my - slope * mx;
  let sse = 0;
  for (let i = 0; i < n; i++) sse += (y[i]! - (intercept + slope * x[i]!)) ** 2;
  return { intercept, slope, r2: syy === 0 ? 1 : 1 - sse / syy, residual_sd: Math.sqrt(sse / (n - 2)), n };
}

/** `MM-DD` → month and day, checked. */
function monthDay(day: string): [number, number] {
  const m = /^(\d{2})-(\d{2})$/.exec(day);
  if (!m)
    throw new QueryParameterError(`day: expected MM-DD (e.g. 04-01), got '${day}'`, { parameter: 'day' });
  dayOfYear(Number(m[1]), Number(m[2]), 2000, 2000);
  return [Number(m[1]), Number(m[2])];
}

/** The predictor on `day` of every water year the data hold: water year → value, and its unit. */
export async function predictorByYear(
  db: Database,
  q: Pick<RegressionQuery, 'dataset' | 'pourpoint' | 'day' | 'predictor' | 'units'>,
  exec: ExecuteOptions = {},
): Promise<{ values: Map<number, number>; unit: string; name: string }> {
  const [month, d] = monthDay(q.day);
  const wyOf = (iso: string) => Number(iso.slice(0, 4)) + (month >= 10 ? 1 : 0);
  const values = new Map<number, number>();
  if (q.predictor === 'basin') {
    const plan = await openStatsPlan(db, {
      dataset: q.dataset,
      pourpoint: q.pourpoint,
      dates: dayOfYear(month, d, 1000, 9999),
      variables: ['swe'],
      units: q.units ?? 'metric',
    });
    const body = await executeStats(plan, exec);
    const i = body.variables.findIndex((v) => v.startsWith('mean_swe_'));
    for (const [date, rows] of Object.entries(body.results)) {
      const v = rows[0]?.[i];
      if (typeof v === 'number') values.set(wyOf(date), v);
    }
    return { values, unit: body.variables[i]!.slice('mean_swe_'.length), name: `mean_swe_${q.day}` };
  }
  const sites = await indexSites(db, q.pourpoint, 0);
  const ref = DEFAULT_REFERENCE;
  const span = sites
    .flatMap((s) => [s.rec.start ?? s.rec.measurements[0]?.date, s.rec.through])
    .filter((v) => v !== undefined);
  if (span.length === 0) return { values, unit: 'pct', name: `station_index_${q.day}` };
  const first = waterYearOf(span.reduce((a, b) => (a! < b! ? a : b))!);
  const last = waterYearOf(span.reduce((a, b) => (a! > b! ? a : b))!);
  for (let wy = first; wy <= last; wy++) {
    const r = indexOn(sites, `${month >= 10 ? wy - 1 : wy}-${q.day}`, ref);
    if (r.pct !== null) values.set(wy, r.pct);
  }
  return { values, unit: 'pct', name: `station_index_${q.day}` };
}

export interface RegressionBody {
  pourpoint: string;
  forecast_point: string;
  dataset: string | null;
  predictor: { kind: Predictor; day: string; name: string; unit: string };
  season: string;
  volume_unit: string;
  /** Years used in the fit: water year, predictor, volume, fitted, residual. */
  years: { water_year: number; x: number; y: number; fitted: number; residual: number }[];
  fit: Fit | null;
  /** The newest water year with a predictor and no observed volume yet, on the fit. */
  this_year: { water_year: number; x: number; fitted: number | null } | null;
  /** The forecasts NRCS published for the season most recently (for comparison). */
  published: Forecast[];
  notes: string[];
}

/** The forecast point a basin names, and its record. */
async function pointOf(db: Database, pourpoint: string) {
  indexedEntry(await indexOf(db), pourpoint);
  const t = forecastTripletOf(await readStoredBasin(db, pourpoint));
  const fp = t === null ? null : await readForecastPoint(db, t);
  if (t === null || fp === null)
    throw new SnowdbError(
      'station-not-found',
      t === null
        ? `basin '${pourpoint}' names no AWDB forecast point (give its record a 'forecast_point' property holding the triplet)`
        : `no volumes or forecasts synced for forecast point '${t}': run 'snowdb stations sync'`,
      { station: t ?? pourpoint },
    );
  return fp;
}

/** The regression diagnostic of one basin. */
export async function regression(
  db: Database,
  q: RegressionQuery,
  exec: ExecuteOptions = {},
): Promise<RegressionBody> {
  const fp = await pointOf(db, q.pourpoint);
  const volumes = seasonalVolumes(fp, q.season);
  const p = await predictorByYear(db, q, exec);
  const years = [...p.values.keys()].filter((y) => volumes.has(y)).sort((a, b) => a - b);
  const x = years.map((y) => p.values.get(y)!);
  const y = years.map((w) => volumes.get(w)!);
  const fit = leastSquares(x, y);
  const at = (v: number) => (fit === null ? null : fit.intercept + fit.slope * v);
  const pending = [...p.values.keys()]
    .filter((w) => !volumes.has(w))
    .sort((a, b) => a - b)
    .at(-1);
  const season = seasonName(q.season);
  const published = latestForecasts(fp, '9999-12-31').filter(
    (f) =>
      Number(f.period[0].slice(0, 2)) === q.season.from && Number(f.period[1].slice(0, 2)) === q.season.to,
  );
  const notes = [
    "snowdb issues no forecasts: the fitted value is the regression line at this year's predictor, a diagnostic; the published forecasts are NRCS's.",
  ];
  if (fit === null)
    notes.push(
      `${years.length} year(s) have both a predictor and a whole ${season} volume: a fit needs 3 and a predictor that varies.`,
    );
  return {
    pourpoint: q.pourpoint,
    forecast_point: fp.triplet,
    dataset: q.predictor === 'basin' ? q.dataset : null,
    predictor: { kind: q.predictor, day: q.day, name: p.name, unit: p.unit },
    season,
    volume_unit: fp.volumes.unit,
    years: years.map((w, i) => ({
      water_year: w,
      x: x[i]!,
      y: y[i]!,
      fitted: at(x[i]!) ?? Number.NaN,
      residual: y[i]! - (at(x[i]!) ?? Number.NaN),
    })),
    fit,
    this_year:
      pending === undefined
        ? null
        : { water_year: pending, x: p.values.get(pending)!, fitted: at(p.values.get(pending)!) },
    published,
    notes,
  };
}

/**
 * The year × predictor table NRCS's M4 tool reads (CSV): `Year`, one column per predictor day
 * (basin mean SWE, and the station index when stations are synced), the season's volume last;
 * `NA` where a value is missing.
 */
export async function m4Table(
  db: Database,
  q: Omit<RegressionQuery, 'day' | 'predictor'> & {
    days: readonly string[];
    predictors: readonly Predictor[];
  },
  exec: ExecuteOptions = {},
): Promise<{ columns: string[]; rows: (number | null)[][] }> {
  const fp = await pointOf(db, q.pourpoint);
  const volumes = seasonalVolumes(fp, q.season);
  const cols: { name: string; values: Map<number, number> }[] = [];
  for (const predictor of q.predictors)
    for (const day of q.days) {
      const p = await predictorByYear(db, { ...q, day, predictor }, exec);
      cols.push({ name: `${p.name}_${p.unit}`, values: p.values });
    }
  const years = new Set<number>([...volumes.keys()]);
  for (const c of cols) for (const y of c.values.keys()) years.add(y);
  const target = `${seasonName(q.season)}_volume_${fp.volumes.unit}`;
  const rows = [...years]
    .sort((a, b) => a - b)
    .filter((y) => cols.some((c) => c.values.has(y)))
    .map((y) => [y, ...cols.map((c) => c.values.get(y) ?? null), volumes.get(y) ?? null]);
  return { columns: ['Year', ...cols.map((c) => c.name), target], rows };
}

/** The M4 table as CSV lines (CRLF, `NA` for a missing value). */
export function* m4CsvLines(t: { columns: string[]; rows: (number | null)[][] }): Generator<string> {
  yield `${csvRow(t.columns)}\r\n`;
  for (const r of t.rows) yield `${csvRow(r.map((v) => (v === null ? 'NA' : String(v))))}\r\n`;
}

export interface ForecastBody {
  pourpoint: string;
  forecast_point: string;
  name: string | null;
  source: string;
  synced_at: string;
  season: string;
  volume_unit: string;
  /** Water year → the season's observed volume (whole seasons only). */
  volumes: Record<string, number>;
  /** Every published forecast, by publication date and period. */
  forecasts: Forecast[];
  notes: string[];
}

/** A basin's forecast point: its seasonal observed volumes and the forecasts published for it. */
export async function forecastOf(db: Database, pourpoint: string, season: Season): Promise<ForecastBody> {
  const fp = await pointOf(db, pourpoint);
  return {
    pourpoint,
    forecast_point: fp.triplet,
    name: fp.name,
    source: fp.source,
    synced_at: fp.synced_at,
    season: seasonName(season),
    volume_unit: fp.volumes.unit,
    volumes: Object.fromEntries(
      [...seasonalVolumes(fp, season)].map(([y, v]) => [String(y), Math.round(v * 1000) / 1000]),
    ),
    forecasts: fp.forecasts,
    notes: ['Forecasts are those NRCS published (AWDB); snowdb issues none of its own.'],
  };
}
