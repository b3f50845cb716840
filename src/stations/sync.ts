/**
 * `snowdb stations sync` and the stations part of `snowdb update`: AWDB's station metadata into
 * `stations/stations.json` (a moved station keeps its earlier positions), then the records of the
 * stations near the database's basins, from each station's first year (or the day after the last
 * one fetched, less a month of revisions), one whole station at a time; then the forecast points
 * the basins name (monthly volumes and published forecasts). Resumable: a station whose record
 * is already through today is skipped, and a stop loses at most the station being fetched.
 */
import { mkdir } from 'node:fs/promises';
import { dirname } from 'node:path';
import type { Database } from '../db/database.js';
import { SnowdbError } from '../errors.js';
import { writeFileAtomic } from '../io/atomic.js';
import { indexOf, readStoredBasin } from '../pourpoints/store.js';
import { isTriplet } from '../pourpoints/triplet.js';
import { distanceOutside } from '../raster/geodesic.js';
import { addDays, todayUtc } from '../util/dates.js';
import type { AwdbClient, AwdbStation, AwdbStationData, Duration } from './awdb.js';
import { forecastTripletOf } from './forecast-point.js';
import {
  type ForecastPoint,
  readForecastPoint,
  readStationList,
  readStationRecord,
  type StationList,
  type StationMeta,
  type StationRecord,
  stationPaths,
} from './store.js';

/** Networks whose stations measure snow water equivalent: SNOTEL, SNOLITE, snow courses, aerial markers. */
export const SWE_NETWORKS = ['SNTL', 'SNTLT', 'SNOW', 'MSNT'] as const;
/** The unit each element is stored in, as snowdb converts from it (AWDB's `storedUnitCode`). */
export const STORED_UNITS: Readonly<Record<string, string>> = {
  WTEQ: 'in',
  SNWD: 'in',
  PREC: 'in',
  TAVG: 'degF',
  SRVO: 'kac_ft',
};

/**
 * Check every element of an answer is in the unit snowdb converts from.
 * @throws SnowdbError `source-bad-answer` naming the element, station and unit.
 */
function checkUnits(answers: readonly AwdbStationData[]): void {
  for (const a of answers)
    for (const d of a.data) {
      const { elementCode: code, storedUnitCode: unit } = d.stationElement;
      const want = STORED_UNITS[code];
      if (want !== undefined && unit && unit !== want)
        throw new SnowdbError(
          'source-bad-answer',
          `AWDB stores ${code} of ${a.stationTriplet} in '${unit}', not '${want}': snowdb converts from '${want}' only, so nothing of it was stored`,
        );
    }
}

/** Networks measured daily by sensors (the rest are manual, semi-monthly). */
const DAILY_NETWORKS = new Set(['SNTL', 'SNTLT', 'SCAN']);
/** Daily elements: SWE, snow depth, accumulated precipitation, mean air temperature. */
export const DAILY_ELEMENTS = ['WTEQ', 'SNWD', 'PREC', 'TAVG'] as const;
/** Snow-course elements. */
const COURSE_ELEMENTS = ['WTEQ', 'SNWD'] as const;
/** Years of daily values per request (AWDB refuses very long requests). */
export const WINDOW_YEARS = 10;
/** Days re-fetched before a record's last day (AWDB revises recent values after QC). */
const REVISION_DAYS = 30;
/** First water year fetched when AWDB gives no begin date. */
const EARLIEST = '1950-10-01';
/** Basins' triplets per metadata request when looking for forecast points. */
const FORECAST_BATCH = 100;
/** Default distance from a basin within which stations' records are fetched, km. */
export const DEFAULT_WITHIN_KM = 10;

export interface SyncOptions {
  /** Networks (default SWE_NETWORKS). */
  readonly networks?: readonly string[];
  /** Two-letter states to limit the metadata to (default: all). */
  readonly states?: readonly string[];
  /** Fetch records of stations within this distance of a basin, km. */
  readonly withinKm?: number;
  /** Fetch these stations' records whatever their distance. */
  readonly stations?: readonly string[];
  /** Fetch every listed station's record. */
  readonly all?: boolean;
  /** Earliest day fetched (default: each station's first). */
  readonly since?: string;
  /** Last day fetched (default today, UTC). */
  readonly through?: string;
  /** Skip the forecast points. */
  readonly noForecasts?: boolean;
  readonly progress?: (line: string) => void;
}

export interface SyncReport {
  readonly source: string;
  readonly listed: number;
  readonly added: number;
  /** Stations AWDB now places elsewhere: triplet, km moved. */
  readonly moved: readonly { triplet: string; km: number }[];
  readonly recorded: readonly string[];
  /** Stations already fetched through the last day. */
  readonly current: number;
  readonly forecastPoints: readonly string[];
  readonly requests: number;
}

const dateOf = (s: string | null | undefined): string | null => (s ? s.slice(0, 10) : null);

/** km between two lon/lat points (spherical, enough to say how far a station moved). */
function kmBetween(a: readonly [number, number], b: readonly [number, number]): number {
  const r = Math.PI / 180;
  const h =
    Math.sin(((b[1] - a[1]) * r) / 2) ** 2 +
    Math.cos(a[1] * r) * Math.cos(b[1] * r) * Math.sin(((b[0] - a[0]) * r) / 2) ** 2;
  return 2 * 6371.0088 * Math.asin(Math.sqrt(h));
}

/** Merge AWDB's metadata over the stored list: a changed position keeps the old one in `moves`. */
export function mergeList(
  old: StationList | null,
  fresh: readonly AwdbStation[],
  today: string,
): { stations: StationMeta[]; added: number; moved: { triplet: string; km: number }[] } {
  const before = new Map((old?.stations ?? []).map((s) => [s.triplet, s]));
  const moved: { triplet: string; km: number }[] = [];
  let added = 0;
  const stations = fresh.map((a): StationMeta => {
    const was = before.get(a.stationTriplet);
    const meta: StationMeta = {
      triplet: a.stationTriplet,
      name: a.name ?? a.stationTriplet,
      network: a.networkCode,
      state: a.stateCode ?? null,
      huc: a.huc ?? null,
      lon: a.longitude,
      lat: a.latitude,
      elevation_ft: a.elevation ?? null,
      begin: dateOf(a.beginDate),
      end: dateOf(a.endDate),
      moves: was?.moves ?? [],
    };
    if (was === undefined) added++;
    else if (was.lon !== meta.lon || was.lat !== meta.lat || was.elevation_ft !== meta.elevation_ft) {
      meta.moves = [
        ...was.moves,
        { until: today, lon: was.lon, lat: was.lat, elevation_ft: was.elevation_ft },
      ];
      moved.push({
        triplet: meta.triplet,
        km: Math.round(kmBetween([was.lon, was.lat], [meta.lon, meta.lat]) * 1000) / 1000,
      });
    }
    return meta;
  });
  stations.sort((x, y) => (x.triplet < y.triplet ? -1 : x.triplet > y.triplet ? 1 : 0));
  return { stations, added, moved };
}

/** Stations within `km` of any basin of the database (inside counts as 0). */
async function nearBasins(db: Database, stations: readonly StationMeta[], km: number): Promise<Set<string>> {
  const near = new Set<string>();
  const pad = km / 100; // degrees: generous (1° ≥ 100 km of latitude… and of longitude south of 25°)
  for (const e of (await indexOf(db)).values()) {
    const [w, s, east, n] = e.basinBbox;
    const padLon = pad / Math.max(0.2, Math.cos((((s + n) / 2) * Math.PI) / 180));
    const candidates = stations.filter(
      (t) =>
        !near.has(t.triplet) &&
        t.lon >= w - padLon &&
        t.lon <= east + padLon &&
        t.lat >= s - pad &&
        t.lat <= n + pad,
    );
    if (candidates.length === 0) continue;
    const basin = (await readStoredBasin(db, e.triplet)).basin;
    for (const t of candidates) if (distanceOutside(basin, t.lon, t.lat) <= km * 1000) near.add(t.triplet);
  }
  return near;
}

/** [begin, end] windows of at most `years` years covering from … to. */
export function windows(from: string, to: string, years: number): [string, string][] {
  const out: [string, string][] = [];
  let a = from;
  while (a <= to) {
    const next = `${Number(a.slice(0, 4)) + years}${a.slice(4)}`;
    const b = addDays(next, -1) < to ? addDays(next, -1) : to;
    out.push([a, b]);
    a = addDays(b, 1);
  }
  return out;
}

/** Keep AWDB's median of an element on a day key (`MM-DD`; surveys `MM-01` / `MM-16`). */
function setMedian(
  medians: Record<string, Record<string, number>>,
  el: string,
  key: string,
  v: number,
): void {
  const byDay = medians[el] ?? {};
  byDay[key] = v;
  medians[el] = byDay;
}

const DAY_MS = 86_400_000;
/** Whole days since 1970-01-01 of an ISO date's first 10 characters (NaN if it is not one). */
const dayNumber = (iso: string): number =>
  Math.round(Date.parse(iso.length === 10 ? iso : iso.slice(0, 10)) / DAY_MS);

/**
 * Daily values of each element, merged over an earlier series (later values win), from the first
 * to the last day holding a value of any element. Days are keyed by number: with a date string
 * per value and a date parse per day the merge took ~40 % longer (the demo's sync of 33 sites).
 */
function mergeDaily(
  rec: StationRecord | null,
  answers: readonly AwdbStationData[],
): Pick<StationRecord, 'start' | 'daily' | 'medians'> {
  const days = new Map<string, Map<number, [number | null, string]>>();
  const units = new Map<string, string>();
  const medians: Record<string, Record<string, number>> = structuredClone(rec?.medians ?? {});
  if (rec?.start) {
    const start = dayNumber(rec.start);
    for (const [el, s] of Object.entries(rec.daily)) {
      const m = new Map<number, [number | null, string]>();
      for (let i = 0; i < s.values.length; i++) {
        m.set(start + i, [s.values[i] ?? null, s.flags[i] ?? '-']);
      }
      days.set(el, m);
      units.set(el, s.unit);
    }
  }
  for (const a of answers)
    for (const d of a.data) {
      const el = d.stationElement.elementCode;
      const m = days.get(el) ?? new Map<number, [number | null, string]>();
      days.set(el, m);
      if (d.stationElement.storedUnitCode) units.set(el, d.stationElement.storedUnitCode);
      for (const v of d.values) {
        if (!v.date) continue;
        const day = dayNumber(v.date);
        if (Number.isNaN(day)) continue;
        m.set(day, [v.value ?? null, v.qcFlag?.slice(0, 1) || '-']);
        if (typeof v.median === 'number') setMedian(medians, el, v.date.slice(5, 10), v.median);
      }
    }
  let first = Number.POSITIVE_INFINITY; // day numbers of the first and last value kept
  let last = Number.NEGATIVE_INFINITY;
  for (const m of days.values())
    for (const [day, [v]] of m) {
      if (v === null) continue;
      if (day < first) first = day;
      if (day > last) last = day;
    }
  const daily: StationRecord['daily'] = {};
  if (first > last) return { start: null, daily, medians };
  const n = last - first + 1;
  for (const [el, m] of days) {
    const values: (number | null)[] = new Array(n).fill(null);
    const flags: string[] = new Array(n).fill('-');
    for (const [day, [v, f]] of m) {
      const i = day - first;
      if (i < 0 || i >= n) continue;
      values[i] = v;
      flags[i] = v === null ? '-' : f;
    }
    daily[el] = { unit: units.get(el) ?? '', values, flags: flags.join('') };
  }
  return { start: new Date(first * DAY_MS).toISOString().slice(0, 10), daily, medians };
}

/** Snow-course measurements merged over earlier ones, by survey (later answers win). */
function mergeCourses(
  rec: StationRecord | null,
  answers: readonly AwdbStationData[],
): StationRecord['measurements'] {
  const by = new Map((rec?.measurements ?? []).map((m) => [m.survey, structuredClone(m)]));
  for (const a of answers)
    for (const d of a.data)
      for (const v of d.values) {
        if (typeof v.year !== 'number' || typeof v.month !== 'number') continue;
        const half = v.monthPart === '2' ? '2' : '1';
        const survey = `${v.year}-${String(v.month).padStart(2, '0')}-${half}`;
        const m = by.get(survey) ?? {
          date: dateOf(v.collectionDate) ?? `${survey.slice(0, 7)}-${half === '1' ? '01' : '16'}`,
          survey,
          values: {},
        };
        if (v.collectionDate) m.date = dateOf(v.collectionDate)!;
        m.values[d.stationElement.elementCode] = v.value ?? null;
        by.set(survey, m);
      }
  return [...by.values()].sort((a, b) => (a.survey < b.survey ? -1 : 1));
}

async function writeCompact(file: string, value: unknown): Promise<void> {
  await mkdir(dirname(file), { recursive: true });
  await writeFileAtomic(file, `${JSON.stringify(value)}\n`);
}

/** Fetch one station's record from `from` to `to`, merged over what is stored. */
async function recordStation(
  client: AwdbClient,
  meta: StationMeta,
  rec: StationRecord | null,
  from: string,
  to: string,
): Promise<StationRecord> {
  const daily = DAILY_NETWORKS.has(meta.network);
  const duration: Duration = daily ? 'DAILY' : 'SEMIMONTHLY';
  const answers: AwdbStationData[] = [];
  for (const [begin, end] of windows(from, to, daily ? WINDOW_YEARS : 100))
    answers.push(
      ...(await client.data({
        triplets: [meta.triplet],
        elements: daily ? DAILY_ELEMENTS : COURSE_ELEMENTS,
        duration,
        begin,
        end,
        median: true,
      })),
    );
  checkUnits(answers);
  for (const a of answers)
    if (a.stationTriplet !== meta.triplet)
      throw new SnowdbError(
        'source-bad-answer',
        `AWDB answered for '${a.stationTriplet}' when asked for '${meta.triplet}'`,
      );
  const merged = daily ? mergeDaily(rec, answers) : { start: null, daily: {}, medians: rec?.medians ?? {} };
  if (!daily)
    for (const a of answers)
      for (const d of a.data)
        for (const v of d.values)
          if (typeof v.median === 'number' && typeof v.month === 'number')
            setMedian(
              merged.medians,
              d.stationElement.elementCode,
              `${String(v.month).padStart(2, '0')}-${v.monthPart === '2' ? '16' : '01'}`,
              v.median,
            );
  return {
    source: client.settings.url,
    synced_at: new Date().toISOString(),
    triplet: meta.triplet,
    through: to,
    ...merged,
    measurements: daily ? [] : mergeCourses(rec, answers),
  };
}

/** Fetch a forecast point's monthly volumes and its forecasts published from `from` to `to`. */
async function recordForecastPoint(
  client: AwdbClient,
  triplet: string,
  old: ForecastPoint | null,
  from: string,
  to: string,
): Promise<ForecastPoint | null> {
  const answers: AwdbStationData[] = [];
  for (const [begin, end] of windows(from, to, 100))
    answers.push(
      ...(await client.data({ triplets: [triplet], elements: ['SRVO'], duration: 'MONTHLY', begin, end })),
    );
  checkUnits(answers);
  const months = new Map((old?.volumes.months ?? []).map((m) => [`${m[0]}-${m[1]}`, m]));
  let unit = old?.volumes.unit ?? 'kac_ft';
  for (const a of answers)
    for (const d of a.data) {
      if (d.stationElement.storedUnitCode) unit = d.stationElement.storedUnitCode;
      for (const v of d.values)
        if (typeof v.year === 'number' && typeof v.month === 'number')
          months.set(`${v.year}-${v.month}`, [v.year, v.month, v.value ?? null]);
    }
  const sets = await client.forecasts([triplet], ['SRVO'], from, to);
  const byKey = new Map(
    (old?.forecasts ?? []).map((f) => [`${f.publication_date}|${f.period.join('/')}`, f]),
  );
  let name = old?.name ?? null;
  for (const s of sets) {
    name = s.forecastPointName ?? name;
    for (const f of s.data)
      byKey.set(`${f.publicationDate.slice(0, 10)}|${f.forecastPeriod[0]}/${f.forecastPeriod[1]}`, {
        publication_date: f.publicationDate.slice(0, 10),
        period: [f.forecastPeriod[0]!, f.forecastPeriod[1]!],
        unit: f.unitCode ?? unit,
        status: f.forecastStatus ?? null,
        normal: f.periodNormal ?? null,
        values: f.forecastValues,
      });
  }
  if (months.size === 0 && byKey.size === 0) return null;
  return {
    source: client.settings.url,
    synced_at: new Date().toISOString(),
    triplet,
    name,
    through: to,
    volumes: {
      unit,
      months: [...months.values()].sort((a, b) => a[0] - b[0] || a[1] - b[1]),
    },
    forecasts: [...byKey.values()].sort((a, b) =>
      a.publication_date < b.publication_date
        ? -1
        : a.publication_date > b.publication_date
          ? 1
          : a.period[0] < b.period[0]
            ? -1
            : 1,
    ),
  };
}

/**
 * Sync the stations store from AWDB. The list first (one request per network), then each chosen
 * station's record, then each forecast point the basins name.
 * @throws SnowdbError `source-unreachable` / `source-bad-answer` from AWDB (what was written by
 *   then stays: whole files only).
 */
export async function syncStations(
  db: Database,
  client: AwdbClient,
  o: SyncOptions = {},
): Promise<SyncReport> {
  const say = o.progress ?? (() => {});
  const to = o.through ?? todayUtc();
  const networks = o.networks ?? SWE_NETWORKS;
  const states = o.states ?? ['*'];
  const listed = await client.stations(networks.flatMap((n) => states.map((s) => `*:${s}:${n}`)));
  // A triplet names a file: one that is not <station>:<state>:<network> is skipped, by name.
  const fresh = listed.filter((a) => isTriplet(a.stationTriplet));
  for (const a of listed)
    if (!isTriplet(a.stationTriplet))
      say(
        `skipped a station AWDB lists as ${JSON.stringify(a.stationTriplet)}: not a station triplet <station>:<state>:<network>`,
      );
  const old = await readStationList(db);
  const { stations, added, moved } = mergeList(old, fresh, to);
  for (const m of moved) say(`station ${m.triplet} moved ${m.km} km (its earlier position is kept)`);
  // A station asked for by name that AWDB does not list: refused before anything is written.
  for (const t of o.stations ?? [])
    if (!stations.some((s) => s.triplet === t))
      throw new SnowdbError(
        'station-not-found',
        `AWDB lists no station '${t}' in networks ${networks.join(', ')}`,
        { station: t },
      );
  // AWDB's names and stored units of the elements snowdb reads.
  const reference = (await client.referenceData(['elements'])).elements ?? [];
  const elements: StationList['elements'] = {};
  for (const e of reference)
    if (typeof e.code === 'string' && e.code in STORED_UNITS)
      elements[e.code] = { name: String(e.name ?? e.code), unit: String(e.storedUnitCode ?? '') };
  const list: StationList = {
    source: client.settings.url,
    synced_at: new Date().toISOString(),
    networks: [...networks],
    elements,
    stations,
  };
  await writeCompact(stationPaths(db).list, list);
  say(`${stations.length} stations listed (${added} new)`);

  const wanted = o.all
    ? new Set(stations.map((s) => s.triplet))
    : await nearBasins(db, stations, o.withinKm ?? DEFAULT_WITHIN_KM);
  // Stations recorded before (asked for by name, or then near a basin) are kept current.
  for (const f of await db.store.list(stationPaths(db).records))
    if (f.endsWith('.json')) {
      const t = f.slice(0, -5).replaceAll('_', ':');
      if (stations.some((s) => s.triplet === t)) wanted.add(t);
    }
  for (const t of o.stations ?? []) wanted.add(t);
  const recorded: string[] = [];
  let current = 0;
  for (const meta of stations.filter((s) => wanted.has(s.triplet))) {
    const rec = await readStationRecord(db, meta.triplet);
    if (rec !== null && rec.through >= to) {
      current++;
      continue;
    }
    const first = o.since ?? meta.begin ?? EARLIEST;
    const from =
      rec === null
        ? first
        : addDays(rec.through, -REVISION_DAYS) > first
          ? addDays(rec.through, -REVISION_DAYS)
          : first;
    const end = meta.end !== null && meta.end < to ? meta.end : to;
    if (from > end) {
      current++;
      continue;
    }
    say(`station ${meta.triplet} (${meta.name}): ${from} to ${end}`);
    await writeCompact(
      stationPaths(db).record(meta.triplet),
      await recordStation(client, meta, rec, from, end),
    );
    recorded.push(meta.triplet);
  }

  const recordedPoints: string[] = [];
  if (!o.noForecasts) {
    const ids = new Set<string>();
    for (const e of (await indexOf(db)).values()) {
      const t = forecastTripletOf(await readStoredBasin(db, e.triplet));
      if (t !== null) ids.add(t);
    }
    // Only the triplets AWDB's metadata names as forecast points (a request per 100 basins).
    const asked = [...ids].sort();
    const points = new Set<string>();
    for (let i = 0; i < asked.length; i += FORECAST_BATCH)
      for (const m of await client.stations(asked.slice(i, i + FORECAST_BATCH), true))
        if (m.forecastPoint) points.add(m.stationTriplet);
    for (const t of asked.filter((x) => points.has(x) && isTriplet(x))) {
      const old = await readForecastPoint(db, t);
      const from = old === null ? (o.since ?? '1980-10-01') : addDays(old.through, -366);
      say(`forecast point ${t}: ${from} to ${to}`);
      const fp = await recordForecastPoint(client, t, old, from, to);
      if (fp === null) continue;
      await writeCompact(stationPaths(db).forecast(t), fp);
      recordedPoints.push(t);
    }
  }
  return {
    source: client.settings.url,
    listed: stations.length,
    added,
    moved,
    recorded,
    current,
    forecastPoints: recordedPoints,
    requests: client.requests,
  };
}
