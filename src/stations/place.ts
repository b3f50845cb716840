/**
 * Stations beside a basin: those inside its polygon and those within a stated distance of it,
 * each with its elevation and the elevation band (the `terrain.elevation` zones the stats use)
 * it falls in: which bands the stations represent.
 */
import { basename } from 'node:path';
import type { Database } from '../db/database.js';
import { QueryParameterError } from '../errors.js';
import { indexedEntry, indexOf, readStoredBasin } from '../pourpoints/store.js';
import { checkTriplet } from '../pourpoints/triplet.js';
import { distanceOutside } from '../raster/geodesic.js';
import { ZONE_LAYERS } from '../zones/layers.js';
import { axisOf } from '../zones/schemes.js';
import { type StationMeta, stationList, stationPaths } from './store.js';

/** m per international foot. */
export const M_PER_FT = 0.3048;
/** Farthest a query may look outside a basin, km. */
export const MAX_WITHIN_KM = 200;

export interface StationBand {
  readonly min: number;
  readonly max: number;
  readonly unit: string;
}

export interface PlacedStation {
  readonly triplet: string;
  readonly name: string;
  readonly network: string;
  readonly lon: number;
  readonly lat: number;
  readonly elevation_m: number | null;
  readonly elevation_ft: number | null;
  /** The elevation band (step `band_step_ft`) the station's elevation falls in. */
  readonly band: StationBand | null;
  readonly inside: boolean;
  /** Geodesic distance outside the basin, km (0 inside). */
  readonly distance_km: number;
  /** Whether AWDB's metadata ends before today (a discontinued station). */
  readonly active: boolean;
  /** Whether the station's record was synced (its values can be asked for). */
  readonly recorded: boolean;
  /** How many times AWDB's metadata has moved it since the first sync. */
  readonly moves: number;
}

export interface BasinStations {
  readonly pourpoint: string;
  readonly within_km: number;
  readonly band_step_ft: number;
  readonly stations: PlacedStation[];
}

const ELEVATION = ZONE_LAYERS.find((l) => l.key === 'terrain.elevation')!;

/** The elevation band (of `stepFt`) holding `elevationM`, as the stats' zones name it; null off the domain. */
export function bandOf(elevationM: number | null, stepFt: number): StationBand | null {
  if (elevationM === null) return null;
  const axis = axisOf(ELEVATION.key, ELEVATION.scheme, stepFt);
  const out = new Int32Array(1);
  axis.classify(Float32Array.of(elevationM), ELEVATION.nodata, out);
  const z = axis.zones[out[0]!];
  return z?.kind === 'band' ? { min: z.min, max: z.max, unit: z.unit ?? 'ft' } : null;
}

/** Check a distance in km. */
export function checkWithin(km: number, parameter = 'within_km'): number {
  if (!(km >= 0 && km <= MAX_WITHIN_KM))
    throw new QueryParameterError(`${parameter}: a distance from 0 to ${MAX_WITHIN_KM} km, got ${km}`, {
      parameter,
    });
  return km;
}

/** A station placed against a basin's polygon. */
export function place(
  s: StationMeta,
  distanceM: number,
  stepFt: number,
  recorded: boolean,
  today: string,
): PlacedStation {
  const m = s.elevation_ft === null ? null : s.elevation_ft * M_PER_FT;
  return {
    triplet: s.triplet,
    name: s.name,
    network: s.network,
    lon: s.lon,
    lat: s.lat,
    elevation_m: m === null ? null : Math.round(m * 10) / 10,
    elevation_ft: s.elevation_ft,
    band: bandOf(m, stepFt),
    inside: distanceM === 0,
    distance_km: Math.round(distanceM) / 1000,
    active: s.end === null || s.end >= today,
    recorded,
    moves: s.moves.length,
  };
}

/**
 * The stations inside a basin and within `withinKm` of it, nearest first (inside ones by elevation).
 * @throws SnowdbError `stations-not-synced`, `pourpoint-not-found`.
 */
export async function basinStations(
  db: Database,
  pourpoint: string,
  withinKm: number,
  stepFt = 1000,
): Promise<BasinStations> {
  checkWithin(withinKm);
  const entry = indexedEntry(await indexOf(db), checkTriplet(pourpoint));
  const basin = (await readStoredBasin(db, pourpoint)).basin;
  const list = await stationList(db);
  // A box around the basin that holds every point within `withinKm` of it (1° ≥ 110 km of latitude).
  const [w, s0, e, n] = entry.basinBbox;
  const padLat = withinKm / 110 + 1e-9;
  const padLon =
    padLat / Math.max(0.05, Math.cos((Math.max(Math.abs(s0), Math.abs(n)) + padLat) * (Math.PI / 180)));
  const today = new Date().toISOString().slice(0, 10);
  const out: PlacedStation[] = [];
  // The recorded stations: one listing of the records folder, not a stat per station.
  const records = new Set(await db.store.list(stationPaths(db).records));
  for (const s of list.stations) {
    if (s.lon < w - padLon || s.lon > e + padLon || s.lat < s0 - padLat || s.lat > n + padLat) continue;
    const d = distanceOutside(basin, s.lon, s.lat);
    if (d > withinKm * 1000) continue;
    out.push(place(s, d, stepFt, records.has(basename(stationPaths(db).record(s.triplet))), today));
  }
  out.sort(
    (a, b) =>
      a.distance_km - b.distance_km ||
      (b.elevation_m ?? 0) - (a.elevation_m ?? 0) ||
      (a.triplet < b.triplet ? -1 : 1),
  );
  return { pourpoint, within_km: withinKm, band_step_ft: stepFt, stations: out };
}
