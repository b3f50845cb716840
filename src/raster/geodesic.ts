import geographiclib from 'geographiclib-geodesic';
import { type AreaGeometry, polygonsOf, type Ring } from './geometry.js';

const WGS84 = geographiclib.Geodesic.WGS84;

/** Signed geodesic area of one lon/lat ring on WGS84, m² (counter-clockwise positive). */
export function ringGeodesicArea(ring: Ring): number {
  const p = WGS84.Polygon(false);
  const n = ring.length;
  const closed = n > 1 && ring[0]![0] === ring[n - 1]![0] && ring[0]![1] === ring[n - 1]![1];
  for (let i = 0; i < (closed ? n - 1 : n); i++) p.AddPoint(ring[i]![1]!, ring[i]![0]!);
  return p.Compute(false, true).area ?? 0;
}

/**
 * Geodesic area of a lon/lat Polygon/MultiPolygon on WGS84, m²: each shell counts positive and
 * each hole negative whatever the ring orientation (records mix clockwise and counter-clockwise).
 */
export function geodesicArea(g: AreaGeometry): number {
  let total = 0;
  for (const poly of polygonsOf(g)) {
    poly.forEach((ring, i) => {
      const a = Math.abs(ringGeodesicArea(ring));
      total += i === 0 ? a : -a;
    });
  }
  return total;
}
