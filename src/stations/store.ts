/**
 * The stations store, a folder of its own in the database (`stations/`):
 *   stations.json            every station's metadata, with where and when it was fetched
 *   records/<stem>.json      one station's record (daily series or snow-course measurements)
 *   forecast/<stem>.json     one forecast point's monthly volumes and published forecasts
 * Each file is written whole and atomically: a sync that stops leaves every file as it was or
 * complete, never part of a station.
 */
import { join } from 'node:path';
import { z } from 'zod';
import type { Database } from '../db/database.js';
import { parseJsonAs } from '../db/json-file.js';
import { Layout, stemOf } from '../db/layout.js';
import { SnowdbError } from '../errors.js';
import { readFileIfExists } from '../io/fs.js';

/** A station's earlier position, kept when AWDB's metadata moves it (`until`: the sync that saw the move). */
const Move = z.object({
  until: z.string(),
  lon: z.number(),
  lat: z.number(),
  elevation_ft: z.number().nullable(),
});

const StationMeta = z.object({
  triplet: z.string(),
  name: z.string(),
  network: z.string(),
  state: z.string().nullable(),
  huc: z.string().nullable(),
  lon: z.number(),
  lat: z.number(),
  /** AWDB's elevation, feet. */
  elevation_ft: z.number().nullable(),
  begin: z.string().nullable(),
  end: z.string().nullable(),
  moves: z.array(Move),
});
export type StationMeta = z.infer<typeof StationMeta>;

const Provenance = z.object({ source: z.string(), synced_at: z.string() });

const StationList = Provenance.extend({
  networks: z.array(z.string()),
  /** AWDB's reference data for the elements snowdb reads: name and stored unit. */
  elements: z.record(z.string(), z.object({ name: z.string(), unit: z.string() })),
  stations: z.array(StationMeta),
});
export type StationList = z.infer<typeof StationList>;

const Series = z.object({
  /** AWDB's stored unit code (`in`, `degF`). */
  unit: z.string(),
  /** One value per day from the record's `start` (null: none that day). */
  values: z.array(z.number().nullable()),
  /** One AWDB QC flag per day (`V` validated, `E` estimated, `-` none). */
  flags: z.string(),
});

const Measurement = z.object({
  /** The day the course was measured (AWDB's collectionDate, else the 1st or 16th). */
  date: z.string(),
  /** The survey it counts for, `YYYY-MM` and half (1 or 2). */
  survey: z.string(),
  values: z.record(z.string(), z.number().nullable()),
});

const StationRecord = Provenance.extend({
  triplet: z.string(),
  /** The last day fetched, ISO. */
  through: z.string(),
  /** Daily elements (SNOTEL): the first day of `values`. */
  start: z.string().nullable(),
  daily: z.record(z.string(), Series),
  /** Semi-monthly manual measurements (snow courses). */
  measurements: z.array(Measurement),
  /** AWDB's published 1991–2020 median of each element by day of year (`MM-DD`). */
  medians: z.record(z.string(), z.record(z.string(), z.number())),
});
export type StationRecord = z.infer<typeof StationRecord>;

const Forecast = z.object({
  publication_date: z.string(),
  /** First and last month-day of the period forecast (`04-01`, `07-31`). */
  period: z.tuple([z.string(), z.string()]),
  unit: z.string(),
  status: z.string().nullable(),
  /** The period's 1991–2020 normal, in `unit`. */
  normal: z.number().nullable(),
  /** Volume by exceedance probability (%, as text: `"50"`). */
  values: z.record(z.string(), z.number().nullable()),
});
export type Forecast = z.infer<typeof Forecast>;

const ForecastPoint = Provenance.extend({
  triplet: z.string(),
  name: z.string().nullable(),
  through: z.string(),
  /** Observed (naturalized) monthly streamflow volume. */
  volumes: z.object({
    unit: z.string(),
    months: z.array(z.tuple([z.number(), z.number(), z.number().nullable()])),
  }),
  forecasts: z.array(Forecast),
});
export type ForecastPoint = z.infer<typeof ForecastPoint>;

/** Paths of the stations store. */
export const stationPaths = (db: Database) => {
  const dir = join(db.root, Layout.stations);
  return {
    dir,
    list: join(dir, 'stations.json'),
    records: join(dir, 'records'),
    record: (t: string) => join(dir, 'records', `${stemOf(t)}.json`),
    forecast: (t: string) => join(dir, 'forecast', `${stemOf(t)}.json`),
  };
};

async function readAs<T>(db: Database, file: string, schema: z.ZodType<T>, what: string): Promise<T | null> {
  return db.memo(file, async () => {
    const bytes = await readFileIfExists(db.store, file);
    return bytes === null
      ? null
      : parseJsonAs(bytes.toString('utf8'), file, schema, what, "; run 'snowdb stations sync'");
  });
}

/** The station list, or null before the first sync. */
export const readStationList = (db: Database): Promise<StationList | null> =>
  readAs(db, stationPaths(db).list, StationList, 'a snowdb station list');

/**
 * The station list.
 * @throws SnowdbError `stations-not-synced` before the first sync.
 */
export async function stationList(db: Database): Promise<StationList> {
  const list = await readStationList(db);
  if (list === null)
    throw new SnowdbError(
      'stations-not-synced',
      `no stations in ${db.location}: run 'snowdb stations sync' first (it fetches AWDB's station metadata and records)`,
    );
  return list;
}

/**
 * One station's metadata.
 * @throws SnowdbError `station-not-found`.
 */
export async function stationMeta(db: Database, triplet: string): Promise<StationMeta> {
  const list = await stationList(db);
  const m = list.stations.find((s) => s.triplet === triplet);
  if (m === undefined)
    throw new SnowdbError(
      'station-not-found',
      `no station '${triplet}' in the station list (${list.stations.length} stations synced from AWDB)`,
      {
        station: triplet,
      },
    );
  return m;
}

/** A station's record, or null when its data were not synced. */
export const readStationRecord = (db: Database, triplet: string): Promise<StationRecord | null> =>
  readAs(db, stationPaths(db).record(triplet), StationRecord, 'a snowdb station record');

/** A forecast point's record, or null when none was synced. */
export const readForecastPoint = (db: Database, triplet: string): Promise<ForecastPoint | null> =>
  readAs(db, stationPaths(db).forecast(triplet), ForecastPoint, 'a snowdb forecast point record');
