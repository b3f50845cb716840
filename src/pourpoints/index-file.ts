import { createHash } from 'node:crypto';
import { z } from 'zod';
import { parseJsonAs } from '../db/json-file.js';
import { writeJsonAtomic } from '../io/atomic.js';
import { readFileIfExists } from '../io/fs.js';
import type { Store } from '../io/store.js';
import type { Containment } from '../raster/extent.js';
import { distanceOutside, geodesicArea } from '../raster/geodesic.js';
import type { AreaGeometry } from '../raster/geometry.js';
import { polygonsBounds, polygonsOf } from '../raster/geometry.js';
import { wkbOf } from '../raster/wkb.js';
import { byString } from '../util/compare.js';
import type { BasinRecord, LonLat } from './record.js';

/** How much of a basin a dataset's domain holds. */
export type Coverage = Containment;
export const COVERAGES = ['full', 'partial', 'none'] as const satisfies readonly Coverage[];

/** Coverage of one basin against every registered dataset (name → coverage). */
export type CoverageOf = (basin: AreaGeometry) => Record<string, Coverage>;

/** The registered datasets' names and the coverage of a basin against them. */
export interface DatasetCoverage {
  readonly datasets: readonly string[];
  readonly of: CoverageOf;
}

/** One basin-bearing pourpoint as the index holds it. */
export interface IndexEntry {
  readonly triplet: string;
  readonly name: string;
  /** The outflow point, or with `outlet` false a point inside the basin. */
  readonly point: LonLat;
  /** Whether `point` is the basin's outlet (false for members of imported sets without one). */
  readonly outlet: boolean;
  /** The record's declared area (`basinarea`, mi²) in m², or null when it declares none. */
  readonly declaredAreaM2: number | null;
  /** Geodesic distance from the outlet to the polygon, m (0 inside; null: no outlet, or not measured). */
  readonly outletOutsideM: number | null;
  /** Geodesic area of the basin on WGS84, m². */
  readonly areaMeters: number;
  /** sha256 hex of the basin's little-endian WKB. */
  readonly geometryHash: string;
  /** [west, south, east, north] of the basin, degrees. */
  readonly basinBbox: readonly [number, number, number, number];
  readonly coverage: Readonly<Record<string, Coverage>>;
}

const FeatureSchema = z.object({
  type: z.literal('Feature'),
  id: z.string(),
  geometry: z.object({ type: z.literal('Point'), coordinates: z.tuple([z.number(), z.number()]) }),
  properties: z.object({
    name: z.string(),
    area_meters: z.number().nonnegative(),
    geometry_hash: z.string().regex(/^[0-9a-f]{64}$/),
    basin_bbox: z.tuple([z.number(), z.number(), z.number(), z.number()]),
    coverage: z.record(z.string(), z.enum(COVERAGES)),
    outlet: z.boolean().optional(),
    declared_area_m2: z.number().positive().optional(),
    outlet_outside_m: z.number().nonnegative().optional(),
  }),
});

const IndexSchema = z.object({ type: z.literal('FeatureCollection'), features: z.array(FeatureSchema) });
type IndexFile = z.infer<typeof IndexSchema>;

const isNum = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v);
const isNums = (v: unknown, n: number): boolean => Array.isArray(v) && v.length === n && v.every(isNum);
const HASH = /^[0-9a-f]{64}$/;
const optional = (v: unknown, ok: (x: unknown) => boolean) => v === undefined || ok(v);

/**
 * True only for an index `IndexSchema` accepts as it is (no key it would strip changes what is
 * read): the common case checked in a plain loop, ~10× faster than the schema on 300 basins
 * (a fresh process pays it on every query). Anything else goes through the schema, whose first
 * issue names the problem.
 */
function plainIndex(j: unknown): j is IndexFile {
  const o = record(j);
  return o?.type === 'FeatureCollection' && Array.isArray(o.features) && o.features.every(plainFeature);
}

const record = (v: unknown): Record<string, unknown> | null =>
  typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : null;

function plainFeature(v: unknown): boolean {
  const f = record(v);
  const g = record(f?.geometry);
  const p = record(f?.properties);
  const c = record(p?.coverage);
  return (
    f?.type === 'Feature' &&
    typeof f.id === 'string' &&
    g?.type === 'Point' &&
    isNums(g.coordinates, 2) &&
    p !== null &&
    typeof p.name === 'string' &&
    isNum(p.area_meters) &&
    p.area_meters >= 0 &&
    typeof p.geometry_hash === 'string' &&
    HASH.test(p.geometry_hash) &&
    isNums(p.basin_bbox, 4) &&
    c !== null &&
    Object.values(c).every((x) => (COVERAGES as readonly unknown[]).includes(x)) &&
    optional(p.outlet, (x) => typeof x === 'boolean') &&
    optional(p.declared_area_m2, (x) => isNum(x) && x > 0) &&
    optional(p.outlet_outside_m, (x) => isNum(x) && x >= 0)
  );
}

/** m² per square mile (international mile): BAGIS's `basinarea` is in mi². */
const M2_PER_MI2 = 2589988.110336;

/** A record's declared area (`basinarea`, mi²) in m², or null when it declares none. */
export function declaredArea(rec: Pick<BasinRecord, 'properties'>): number | null {
  const mi2 = Number(rec.properties.basinarea);
  return Number.isFinite(mi2) && mi2 > 0 ? mi2 * M2_PER_MI2 : null;
}

/** The polygon's area against the declared one, % (null without a declared area). */
export const areaVsDeclared = (e: Pick<IndexEntry, 'areaMeters' | 'declaredAreaM2'>): number | null =>
  e.declaredAreaM2 === null ? null : (100 * (e.areaMeters - e.declaredAreaM2)) / e.declaredAreaM2;

/** sha256 hex of a basin's little-endian WKB. */
export function geometryHash(basin: AreaGeometry): string {
  return createHash('sha256').update(wkbOf(basin)).digest('hex');
}

/** The index entry of a record: area, hash and bbox of its basin, coverage from `coverageOf`. */
export function entryOf(rec: BasinRecord, coverageOf: CoverageOf): IndexEntry {
  return {
    triplet: rec.triplet,
    name: rec.name,
    point: rec.point,
    outlet: rec.outlet,
    declaredAreaM2: declaredArea(rec),
    outletOutsideM: rec.outlet ? distanceOutside(rec.basin, rec.point[0], rec.point[1]) : null,
    areaMeters: geodesicArea(rec.basin),
    geometryHash: geometryHash(rec.basin),
    basinBbox: polygonsBounds(polygonsOf(rec.basin)),
    coverage: coverageOf(rec.basin),
  };
}

/**
 * Read `index.geojson` into a map by triplet; a missing file is an empty index.
 * @throws SnowdbError `invalid-config` naming the file and the first problem.
 */
export async function readIndex(store: Store, file: string): Promise<Map<string, IndexEntry>> {
  const bytes = await readFileIfExists(store, file);
  const out = new Map<string, IndexEntry>();
  if (bytes === null) return out;
  const text = bytes.toString('utf8');
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined; // not JSON: the schema's parse below names the error
  }
  const parsed = plainIndex(json) ? json : parseIndexFile(text, file);
  for (const f of parsed.features) {
    const p = f.properties;
    out.set(f.id, {
      triplet: f.id,
      name: p.name,
      point: f.geometry.coordinates,
      outlet: p.outlet ?? true,
      declaredAreaM2: p.declared_area_m2 ?? null,
      outletOutsideM: p.outlet_outside_m ?? null,
      areaMeters: p.area_meters,
      geometryHash: p.geometry_hash,
      basinBbox: p.basin_bbox,
      coverage: p.coverage,
    });
  }
  return out;
}

const parseIndexFile = (text: string, file: string): IndexFile =>
  parseJsonAs(text, file, IndexSchema, 'a pourpoint index', "; run 'snowdb pourpoint reindex'");

/** The index as GeoJSON: a FeatureCollection sorted by triplet, outflow points as geometries. */
export function indexGeoJson(entries: Iterable<IndexEntry>) {
  const features = [...entries]
    .sort((a, b) => byString(a.triplet, b.triplet))
    .map((e) => ({
      type: 'Feature' as const,
      id: e.triplet,
      geometry: { type: 'Point' as const, coordinates: e.point },
      properties: {
        name: e.name,
        area_meters: e.areaMeters,
        geometry_hash: e.geometryHash,
        basin_bbox: e.basinBbox,
        coverage: Object.fromEntries(Object.entries(e.coverage).sort(([a], [b]) => byString(a, b))),
        ...(e.outlet ? {} : { outlet: false }),
        ...(e.declaredAreaM2 === null ? {} : { declared_area_m2: e.declaredAreaM2 }),
        ...(e.outletOutsideM === null ? {} : { outlet_outside_m: e.outletOutsideM }),
      },
    }));
  return { type: 'FeatureCollection' as const, features };
}

/** Write the index atomically (readers see the old index or the new one, never a mix). */
export async function writeIndex(file: string, entries: Iterable<IndexEntry>): Promise<void> {
  await writeJsonAtomic(file, indexGeoJson(entries));
}
