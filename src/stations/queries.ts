/**
 * What the shells ask of the stations store: a station's series with its % of median, a station
 * against the grid cell holding it in a dataset, and a basin's station index. Each returns the
 * body both shells print (JSON) and a CSV view.
 */
import type { Database } from '../db/database.js';
import { QueryParameterError, SnowdbError } from '../errors.js';
import { type DateQuery, parseDateRange } from '../stats/dates.js';
import type { ExecuteOptions } from '../stats/engine.js';
import { checkAnswerSize } from '../stats/plan.js';
import { executePoint, openPointPlan } from '../stats/point.js';
import type { Units } from '../stats/units.js';
import { addDays } from '../util/dates.js';
import { basinStations, checkWithin, type PlacedStation } from './place.js';
import { readStationRecord, type StationMeta, type StationRecord, stationMeta } from './store.js';
import {
  columnName,
  convert,
  DEFAULT_REFERENCE,
  ELEMENTS,
  medianNote,
  medianOn,
  medianSource,
  pctOf,
  type Reference,
  stationIndex,
  valueOn,
} from './values.js';

/** Most values a station answer holds (dates × columns). */
const MAX_STATION_VALUES = 2_000_000;

export interface StationQuery {
  readonly triplet: string;
  readonly dates?: DateQuery;
  readonly units?: Units;
  readonly reference?: Reference;
}

export interface StationBody {
  station: StationMeta;
  source: string;
  synced_at: string;
  through: string;
  /** `daily` (SNOTEL) or `surveys` (snow courses: one row per measurement). */
  kind: 'daily' | 'surveys';
  median_source: string;
  variables: string[];
  /** Date → values per variable (then the day's SWE median and % of median). */
  results: Record<string, (number | null)[]>;
}

/**
 * A station's record, or `station-not-found` naming why (not listed, or listed but not recorded).
 * @throws SnowdbError `stations-not-synced`, `station-not-found`.
 */
export async function recordOf(
  db: Database,
  triplet: string,
): Promise<{ meta: StationMeta; rec: StationRecord }> {
  const meta = await stationMeta(db, triplet);
  const rec = await readStationRecord(db, triplet);
  if (rec === null)
    throw new SnowdbError(
      'station-not-found',
      `station '${triplet}' is listed but its record was not synced: run 'snowdb stations sync --station ${triplet}'`,
      { station: triplet },
    );
  return { meta, rec };
}

/** The record's days (or survey dates) within a date query's range. */
function daysIn(rec: StationRecord, q: DateQuery): string[] {
  if (q.type !== 'DateRange')
    throw new QueryParameterError('stations take a date range (start/end)', { parameter: 'datetime' });
  if (rec.start === null)
    return rec.measurements
      .map((m) => m.date)
      .filter(
        (d) => (q.start_date === null || d >= q.start_date) && (q.end_date === null || d <= q.end_date),
      );
  const first = q.start_date !== null && q.start_date > rec.start ? q.start_date : rec.start;
  const last = q.end_date !== null && q.end_date < rec.through ? q.end_date : rec.through;
  const out: string[] = [];
  for (let d = first; d <= last; d = addDays(d, 1)) out.push(d);
  return out;
}

/** A station's values per day, with SWE's median and % of median. */
export async function stationSeries(db: Database, q: StationQuery): Promise<StationBody> {
  const { meta, rec } = await recordOf(db, q.triplet);
  const units = q.units ?? 'metric';
  const ref = q.reference ?? DEFAULT_REFERENCE;
  const codes = ELEMENTS.filter((e) =>
    rec.start !== null ? e.code in rec.daily : e.code === 'WTEQ' || e.code === 'SNWD',
  ).map((e) => e.code);
  const days = daysIn(rec, q.dates ?? parseDateRange('../..'));
  checkAnswerSize(
    days.length * (codes.length + 2),
    MAX_STATION_VALUES,
    `${days.length} dates × ${codes.length + 2} columns`,
  );
  const swe = columnName('WTEQ', units);
  const results: Record<string, (number | null)[]> = {};
  for (const d of days) {
    const v = valueOn(rec, 'WTEQ', d);
    const m = medianOn(rec, 'WTEQ', d, ref);
    results[d] = [
      ...codes.map((c) => convert(c, valueOn(rec, c, d), units)),
      convert('WTEQ', m, units),
      pctOf(v, m),
    ];
  }
  return {
    station: meta,
    source: rec.source,
    synced_at: rec.synced_at,
    through: rec.through,
    kind: rec.start !== null ? 'daily' : 'surveys',
    median_source: medianNote(medianSource(rec, 'WTEQ'), ref),
    variables: [...codes.map((c) => columnName(c, units)), `median_${swe}`, `pct_median_${swe}`],
    results,
  };
}

/** Station elements and the dataset variables they are compared with. */
const PAIRS = [
  ['WTEQ', 'swe'],
  ['SNWD', 'depth'],
] as const;

export interface CompareBody {
  dataset: string;
  station: StationMeta;
  cell: Awaited<ReturnType<typeof executePoint>>['cell'];
  variables: string[];
  results: Record<string, (number | null)[]>;
}

/**
 * A station against the grid cell holding it, on the dataset's dates: per element the station's
 * value, the cell's, and station ÷ cell (null when either is missing or the cell's is below the
 * 0.1 in floor).
 * @throws SnowdbError `invalid-query-parameter` for a dataset with neither SWE nor depth.
 */
export async function stationVsGrid(
  db: Database,
  dataset: string,
  q: StationQuery & { maxValues?: number | undefined },
  exec: Pick<ExecuteOptions, 'signal' | 'series'> = {},
): Promise<CompareBody> {
  const { meta, rec } = await recordOf(db, q.triplet);
  const units = q.units ?? 'metric';
  const plan = await openPointPlan(db, {
    dataset,
    lon: meta.lon,
    lat: meta.lat,
    dates: q.dates ?? parseDateRange('../..'),
    units,
    maxValues: q.maxValues,
  });
  const pairs = PAIRS.filter(([, v]) => plan.dataset.config.variables[v] !== undefined);
  if (pairs.length === 0)
    throw new QueryParameterError(
      `dataset '${dataset}' has no SWE or snow depth to compare a station with (its variables: ${Object.keys(plan.dataset.config.variables).join(', ')})`,
      { parameter: 'dataset' },
    );
  const grid = await executePoint(
    { ...plan, columns: plan.columns.filter((c) => pairs.some(([, v]) => v === c.variable)) },
    exec,
  );
  const results: Record<string, (number | null)[]> = {};
  for (const d of plan.dates) {
    const row: (number | null)[] = [];
    const cells = grid.results[d] ?? [];
    for (const [code, v] of pairs) {
      const s = convert(code, valueOn(rec, code, d), units);
      const g = grid.variables.findIndex((n) => n.startsWith(`${v}_`));
      const c = g < 0 ? null : (cells[g] ?? null);
      const floor = units === 'us' ? 0.1 : 2.54;
      row.push(s, c, s === null || c === null || c < floor ? null : Math.round((s / c) * 1000) / 1000);
    }
    results[d] = row;
  }
  return {
    dataset,
    station: meta,
    cell: grid.cell,
    variables: pairs.flatMap(([code, v]) => {
      const n = columnName(code, units);
      return [`station_${n}`, `grid_${v}_${n.split('_')[1]}`, `ratio_${v}`];
    }),
    results,
  };
}

export interface IndexBody {
  pourpoint: string;
  within_km: number;
  median_source: string;
  /** The sites counted: inside the basin (and within `within_km` of it). */
  stations: {
    triplet: string;
    name: string;
    elevation_ft: number | null;
    inside: boolean;
    median_source: string;
  }[];
  variables: string[];
  /** Date → [index %, sites used, Σ current, Σ median]. */
  results: Record<string, (number | null)[]>;
}

/** A basin's recorded SWE sites: inside it, and within `withinKm` of it. */
export async function indexSites(
  db: Database,
  pourpoint: string,
  withinKm: number,
): Promise<IndexSiteRecord[]> {
  const placed = (await basinStations(db, pourpoint, checkWithin(withinKm))).stations.filter(
    (s) => s.recorded,
  );
  const sites: IndexSiteRecord[] = [];
  for (const s of placed) {
    const rec = await readStationRecord(db, s.triplet);
    if (rec !== null && (rec.start === null || 'WTEQ' in rec.daily)) sites.push({ meta: s, rec });
  }
  return sites;
}

export interface IndexSiteRecord {
  readonly meta: PlacedStation;
  readonly rec: StationRecord;
}

/** The index on one day: % (null: no site with both), sites used, Σ current and Σ median (stored units). */
export function indexOn(sites: readonly IndexSiteRecord[], date: string, ref: Reference) {
  const at = sites.map((s) => ({
    triplet: s.meta.triplet,
    value: valueOn(s.rec, 'WTEQ', date),
    median: medianOn(s.rec, 'WTEQ', date, ref),
  }));
  const { pct, used } = stationIndex(at);
  const both = at.filter((a) => a.value !== null && a.median !== null);
  return {
    pct,
    used,
    value: used === 0 ? null : both.reduce((t, a) => t + a.value!, 0),
    median: used === 0 ? null : both.reduce((t, a) => t + a.median!, 0),
  };
}

/** A basin's station index (NRCS) per day: Σ current SWE ÷ Σ median SWE of its sites × 100. */
export async function basinIndex(
  db: Database,
  pourpoint: string,
  q: { dates: DateQuery; withinKm?: number; units?: Units; reference?: Reference },
): Promise<IndexBody> {
  const within = q.withinKm ?? 0;
  const units = q.units ?? 'metric';
  const ref = q.reference ?? DEFAULT_REFERENCE;
  const sites = await indexSites(db, pourpoint, within);
  if (q.dates.type !== 'DateRange' || q.dates.start_date === null || q.dates.end_date === null)
    throw new QueryParameterError('the station index takes a closed date range (start/end)', {
      parameter: 'datetime',
    });
  const n = Math.round((Date.parse(q.dates.end_date) - Date.parse(q.dates.start_date)) / 86_400_000) + 1;
  checkAnswerSize(n * 4, MAX_STATION_VALUES, `${n} dates × 4 columns`);
  const results: Record<string, (number | null)[]> = {};
  const swe = columnName('WTEQ', units);
  for (let d = q.dates.start_date; d <= q.dates.end_date; d = addDays(d, 1)) {
    const r = indexOn(sites, d, ref);
    results[d] = [r.pct, r.used, convert('WTEQ', r.value, units), convert('WTEQ', r.median, units)];
  }
  const sources = new Set(sites.map((s) => medianSource(s.rec, 'WTEQ')));
  return {
    pourpoint,
    within_km: within,
    median_source: [...sources].map((s) => medianNote(s, ref)).join('; ') || 'no recorded station',
    stations: sites.map((s) => ({
      triplet: s.meta.triplet,
      name: s.meta.name,
      elevation_ft: s.meta.elevation_ft,
      inside: s.meta.inside,
      median_source: medianSource(s.rec, 'WTEQ'),
    })),
    variables: ['index_pct', 'sites', `sum_${swe}`, `sum_median_${swe}`],
    results,
  };
}
