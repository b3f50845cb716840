import geographiclib from 'geographiclib-geodesic';
import { type AreaGeometry, containsPoint, polygonsOf, type Ring } from './geometry.js';

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

/**
 * Geodesic distance on WGS84 from a lon/lat point to the nearest point of a polygon's boundary, m;
 * 0 when the point lies inside. The nearest boundary point is found in a plane scaled by cos(lat)
 * at the point (good to a fraction of a percent for offsets of a few degrees).
 */
export function distanceOutside(g: AreaGeometry, lon: number, lat: number): number {
  const polys = polygonsOf(g);
  if (containsPoint(polys, lon, lat)) return 0;
  const k = Math.cos((lat * Math.PI) / 180);
  let best = Infinity;
  let bx = lon;
  let by = lat;
  for (const poly of polys) {
    for (const ring of poly) {
      for (let i = 1; i < ring.length; i++) {
        const ax = (ring[i - 1]![0]! - lon) * k;
        const ay = ring[i - 1]![1]! - lat;
        const dx = (ring[i]![0]! - lon) * k - ax;
        const dy = ring[i]![1]! - lat - ay;
        const len2 = dx * dx + dy * dy;
        const t = len2 === 0 ? 0 : Math.min(1, Math.max(0, -(ax * dx + ay * dy) / len2));
        const px = ax + t * dx;
        const py = ay + t * dy;
        const d2 = px * px + py * py;
        if (d2 < best) {
          best = d2;
          bx = lon + px / k;
          by = lat + py;
        }
      }
    }
  }
  return best === Infinity ? 0 : (WGS84.Inverse(lat, lon, by, bx).s12 ?? 0);
}
