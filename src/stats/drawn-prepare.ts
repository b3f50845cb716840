/**
 * A drawn polygon's preparation as one job a worker thread runs: the body's rings packed into
 * flat arrays on the main thread (one cheap walk; transferred, not copied), then in the worker
 * the checks a basin polygon passes, the vertex and area limits, its geodesic area, WKB hash and
 * exact coverage on the grid. The main thread keeps only the walk and the planning.
 */
import { SnowdbError } from '../errors.js';
import type { IndexEntry } from '../pourpoints/index-file.js';
import { areaGeometryOf, parseAreaGeometry } from '../pourpoints/record.js';
import { geodesicArea } from '../raster/geodesic.js';
import type { Grid } from '../raster/grid.js';
import { areaOnGrid, type DrawnArea } from './area.js';

/** Most vertices a drawn polygon may have. */
export const MAX_DRAWN_VERTICES = 50_000;
/** Largest drawn polygon, m² (250,000 km²: the largest forecast basins, whole). */
export const MAX_DRAWN_AREA_M2 = 2.5e11;

/** A Polygon or MultiPolygon's positions, flat: lon, lat pairs; vertices per ring; rings per polygon. */
export interface FlatArea {
  readonly type: 'Polygon' | 'MultiPolygon';
  readonly xy: Float64Array;
  readonly rings: Int32Array;
  readonly polygons: Int32Array;
}

/**
 * The body's area geometry flat, or null when its shape is anything but well-formed positions (a
 * wrapper, ring or position out of shape): `parseAreaGeometry` then names the problem.
 */
export function flattenArea(doc: unknown): FlatArea | null {
  const g = areaGeometryOf(doc)?.geometry as { type?: unknown; coordinates?: unknown } | null | undefined;
  if (
    typeof g !== 'object' ||
    g === null ||
    (g.type !== 'Polygon' && g.type !== 'MultiPolygon') ||
    !Array.isArray(g.coordinates)
  )
    return null;
  const polys = (g.type === 'Polygon' ? [g.coordinates] : g.coordinates) as unknown[];
  let n = 0;
  let ringCount = 0;
  for (const p of polys) {
    if (!Array.isArray(p)) return null;
    for (const r of p) {
      if (!Array.isArray(r)) return null;
      n += r.length;
      ringCount++;
    }
  }
  const xy = new Float64Array(2 * n);
  const rings = new Int32Array(ringCount);
  const polygons = new Int32Array(polys.length);
  let at = 0;
  let ri = 0;
  for (let pi = 0; pi < polys.length; pi++) {
    const p = polys[pi] as unknown[];
    polygons[pi] = p.length;
    for (const r of p as unknown[][]) {
      rings[ri++] = r.length;
      for (const q of r) {
        if (!Array.isArray(q) || q.length < 2) return null;
        const x = q[0];
        const y = q[1];
        if (typeof x !== 'number' || typeof y !== 'number' || !Number.isFinite(x) || !Number.isFinite(y))
          return null;
        for (let k = 2; k < q.length; k++)
          if (typeof q[k] !== 'number' || !Number.isFinite(q[k])) return null;
        xy[at++] = x;
        xy[at++] = y;
      }
    }
  }
  return { type: g.type, xy, rings, polygons };
}

/** The GeoJSON geometry of a flat area (nested arrays again, in the same order). */
export function unflattenArea(f: FlatArea): { type: string; coordinates: unknown } {
  let at = 0;
  let ri = 0;
  const polys: number[][][][] = [];
  for (const count of f.polygons) {
    const p: number[][][] = [];
    for (let k = 0; k < count; k++) {
      const n = f.rings[ri++]!;
      const r: number[][] = new Array(n);
      for (let i = 0; i < n; i++, at += 2) r[i] = [f.xy[at]!, f.xy[at + 1]!];
      p.push(r);
    }
    polys.push(p);
  }
  return { type: f.type, coordinates: f.type === 'Polygon' ? polys[0] : polys };
}

export interface DrawnJob {
  readonly area: FlatArea;
  /** What the polygon is called in messages (`the request body`, a file's path). */
  readonly label: string;
  readonly grid: Grid;
  readonly dataset: string;
}

/** A prepared drawn polygon: its synthetic index entry and its coverage. */
export interface PreparedDrawn {
  readonly ok: true;
  readonly entry: IndexEntry;
  readonly drawn: DrawnArea;
}

/** A refusal, as the domain error it stands for. */
export interface DrawnRefused {
  readonly ok: false;
  readonly key: 'invalid-geometry' | 'query-too-large' | 'pourpoint-not-covered';
  readonly message: string;
}

const tooLarge = (why: string): DrawnRefused => ({
  ok: false,
  key: 'query-too-large',
  message: `the drawn polygon ${why}`,
});

/** Check, measure and cover a drawn polygon on `job.grid` (pure: the worker's whole job). */
export function prepareDrawn(job: DrawnJob): PreparedDrawn | DrawnRefused {
  const vertices = job.area.xy.length / 2;
  if (vertices > MAX_DRAWN_VERTICES)
    return tooLarge(
      `has ${vertices} vertices, more than the limit of ${MAX_DRAWN_VERTICES.toLocaleString('en-US')} (simplify it)`,
    );
  let geometry: ReturnType<typeof parseAreaGeometry>;
  try {
    geometry = parseAreaGeometry(unflattenArea(job.area), job.label);
  } catch (e) {
    if (SnowdbError.is(e)) return { ok: false, key: 'invalid-geometry', message: e.message };
    throw e;
  }
  const areaM2 = geodesicArea(geometry);
  if (areaM2 > MAX_DRAWN_AREA_M2)
    return tooLarge(
      `covers ${(areaM2 / 1e6).toFixed(0)} km², more than the limit of ${MAX_DRAWN_AREA_M2 / 1e6} km²`,
    );
  const made = areaOnGrid(
    job.grid,
    job.dataset,
    geometry,
    'drawn polygon',
    (hash) => `drawn:${hash.slice(0, 16)}`,
    areaM2,
  );
  if (made === null)
    return {
      ok: false,
      key: 'pourpoint-not-covered',
      message: `the drawn polygon lies outside the grid of '${job.dataset}'`,
    };
  return { ok: true, ...made };
}
