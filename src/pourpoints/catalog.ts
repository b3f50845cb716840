import { readFile } from 'node:fs/promises';
import type { Database } from '../db/database.js';
import { SnowdbError } from '../errors.js';
import { distanceOutside } from '../raster/geodesic.js';
import { polygonsOf } from '../raster/geometry.js';
import { byString } from '../util/compare.js';
import { mapPool } from '../util/pool.js';
import { weakMemo } from '../util/weak-memo.js';
import {
  areaVsDeclared,
  type Coverage,
  type CoverageOf,
  entryOf,
  type IndexEntry,
  writeIndex,
} from './index-file.js';
import { nestingAround } from './nesting.js';
import { parseRecord } from './record.js';
import { indexedEntry, indexOf, readStoredBasin, storedTriplets } from './store.js';

const sorted = weakMemo((index: ReadonlyMap<string, IndexEntry>): readonly IndexEntry[] =>
  [...index.values()].sort((a, b) => byString(a.triplet, b.triplet)),
);

/** Indexed (basin-bearing) pourpoints, sorted by triplet (sorted once per index read). */
export async function listPourpoints(db: Database): Promise<readonly IndexEntry[]> {
  return sorted(await indexOf(db));
}

/**
 * The basin table's columns (`pourpoint list --format csv`, `/pourpoints?f=csv`): area in m², outflow
 * point and box in lon/lat degrees, whether the point is an outlet, its distance outside the basin
 * (m) and the area against the declared one (%), empty where unknown.
 */
export const BASIN_TABLE = [
  'triplet',
  'name',
  'area_meters',
  'lon',
  'lat',
  'west',
  'south',
  'east',
  'north',
  'outlet',
  'outlet_outside_m',
  'area_vs_declared_percent',
  'coverage',
] as const;

/** A basin's row of the table, `coverage` as `dataset:kind` words (those given: all registered, or the active ones). */
export function basinTableRow(e: IndexEntry, coverage: Readonly<Record<string, string>>): string[] {
  const pct = areaVsDeclared(e);
  return [
    e.triplet,
    e.name,
    String(e.areaMeters),
    ...e.point.map(String),
    ...e.basinBbox.map(String),
    String(e.outlet),
    e.outletOutsideM === null ? '' : String(e.outletOutsideM),
    pct === null ? '' : String(pct),
    Object.entries(coverage)
      .map(([d, v]) => `${d}:${v}`)
      .join(' '),
  ];
}

/** One pourpoint in full: index facts plus what only the record holds. */
export interface PourpointDetail {
  readonly triplet: string;
  readonly name: string;
  readonly awdb_id: string | null;
  readonly usgs_id: string | null;
  readonly area_meters: number;
  readonly point: readonly [number, number];
  /** Whether `point` is the outlet (false: a point inside a basin imported without one). */
  readonly outlet: boolean;
  /** Geodesic distance from the outflow point to the basin, m (0 = inside; null without an outlet). */
  readonly point_outside_m: number | null;
  /** The record's declared area (`basinarea`, mi²) in m², or null when it declares none. */
  readonly declared_area_m2: number | null;
  /** The polygon's area against the declared one, % (null without a declared area). */
  readonly area_vs_declared_percent: number | null;
  /** The basins it lies in, its direct parent first (nesting.ts). */
  readonly parents: readonly string[];
  /** The basins directly inside it. */
  readonly children: readonly string[];
  readonly parts: number;
  readonly vertices: number;
  readonly basin_bbox: readonly number[];
  readonly geometry_hash: string;
  readonly coverage: Readonly<Record<string, Coverage>>;
  readonly record: string;
  readonly properties: Readonly<Record<string, unknown>>;
}

/**
 * The detail of one indexed pourpoint, read from its record.
 * @throws SnowdbError `invalid-name` for a malformed triplet, `pourpoint-not-found` when not indexed.
 */
export async function showPourpoint(db: Database, triplet: string): Promise<PourpointDetail> {
  const entry = indexedEntry(await indexOf(db), triplet);
  const rec = await readStoredBasin(db, triplet);
  const nesting = await nestingAround(db, triplet);
  const polys = polygonsOf(rec.basin);
  return {
    triplet,
    name: rec.name,
    awdb_id: rec.awdbId,
    usgs_id: rec.usgsId,
    area_meters: entry.areaMeters,
    point: rec.point,
    outlet: rec.outlet,
    point_outside_m: rec.outlet ? distanceOutside(rec.basin, rec.point[0], rec.point[1]) : null,
    declared_area_m2: entry.declaredAreaM2,
    area_vs_declared_percent: areaVsDeclared(entry),
    parents: nesting.parents,
    children: nesting.children,
    parts: polys.length,
    vertices: polys.reduce((n, p) => n + p.reduce((m, r) => m + r.length, 0), 0),
    basin_bbox: entry.basinBbox,
    geometry_hash: entry.geometryHash,
    coverage: entry.coverage,
    record: db.paths.record(triplet),
    properties: rec.properties,
  };
}

export interface ReindexReport {
  readonly indexed: number;
  readonly index: string;
  /** Stored files that are not basin records (left in place, not indexed). */
  readonly invalid: readonly { readonly label: string; readonly message: string }[];
}

/** Rebuild `index.geojson` from the stored records, with each basin's coverage from `coverageOf`. */
export async function reindexPourpoints(db: Database, coverageOf: CoverageOf): Promise<ReindexReport> {
  const triplets = [...(await storedTriplets(db))].sort(byString);
  const invalid: { label: string; message: string }[] = [];
  const entries = await mapPool(triplets, 4, async (t) => {
    const file = db.paths.record(t);
    try {
      const rec = parseRecord(await readFile(file), file);
      if (rec.kind === 'basin' && rec.triplet === t) return entryOf(rec, coverageOf);
      invalid.push({
        label: file,
        message: `${file}: ${rec.kind === 'basin' ? `holds ${rec.triplet}` : 'holds no basin'}`,
      });
    } catch (e) {
      if (!SnowdbError.is(e)) throw e;
      invalid.push({ label: file, message: e.message });
    }
    return null;
  });
  const kept = entries.filter((e): e is IndexEntry => e !== null);
  await writeIndex(db.paths.pourpointIndex, kept);
  return { indexed: kept.length, index: db.paths.pourpointIndex, invalid };
}
