/**
 * Douglas–Peucker simplification of lon/lat polygons for drawing at map scale: planar, in the
 * coordinates' own units (degrees for GeoJSON), each ring on its own (as GEOS's
 * DouglasPeuckerSimplifier without its topology repair). Every kept vertex is an input vertex and
 * every dropped vertex lies within the tolerance of the segment that replaced it.
 */
import type { AreaGeometry, PolygonCoords, Position, Ring } from './geometry.js';

/** Distance from (px, py) to the segment (ax, ay)–(bx, by), in coordinate units. */
function segmentDistance(px: number, py: number, ax: number, ay: number, bx: number, by: number): number {
  const dx = bx - ax;
  const dy = by - ay;
  const len2 = dx * dx + dy * dy;
  const t = len2 === 0 ? 0 : Math.max(0, Math.min(1, ((px - ax) * dx + (py - ay) * dy) / len2));
  return Math.hypot(px - (ax + t * dx), py - (ay + t * dy));
}

/** Mark in `keep` the vertices of ring[i..j] Douglas–Peucker keeps; an explicit stack, no recursion. */
function mark(ring: Ring, tolerance: number, keep: Uint8Array): void {
  const stack = [0, ring.length - 1];
  while (stack.length > 0) {
    const j = stack.pop()!;
    const i = stack.pop()!;
    if (j - i < 2) continue;
    const [ax, ay] = ring[i]! as [number, number];
    const [bx, by] = ring[j]! as [number, number];
    let far = -1;
    let farAt = i;
    for (let k = i + 1; k < j; k++) {
      const d = segmentDistance(ring[k]![0]!, ring[k]![1]!, ax, ay, bx, by);
      if (d > far) {
        far = d;
        farAt = k;
      }
    }
    if (far <= tolerance) continue;
    keep[farAt] = 1;
    stack.push(i, farAt, farAt, j);
  }
}

/** A ring simplified (closed, first = last), or null when fewer than 4 positions remain. */
export function simplifyRing(ring: Ring, tolerance: number): Position[] | null {
  if (ring.length < 4) return null;
  const keep = new Uint8Array(ring.length);
  keep[0] = 1;
  keep[ring.length - 1] = 1;
  mark(ring, tolerance, keep);
  const out: Position[] = [];
  for (let k = 0; k < ring.length; k++) if (keep[k] === 1) out.push(ring[k]!);
  return out.length >= 4 ? out : null;
}

/** A polygon's rings simplified; null when its shell collapses (holes that collapse are dropped). */
function simplifyPolygon(poly: PolygonCoords, tolerance: number): Position[][] | null {
  const shell = simplifyRing(poly[0] ?? [], tolerance);
  if (shell === null) return null;
  const holes = poly.slice(1).map((h) => simplifyRing(h, tolerance));
  return [shell, ...holes.filter((h): h is Position[] => h !== null)];
}

/**
 * A Polygon or MultiPolygon simplified with `tolerance` (coordinate units, ≥ 0). Parts whose shell
 * collapses are dropped; if every part would go, the part with the most vertices keeps its shell
 * simplified to the fewest positions that still close a ring (never an empty geometry).
 */
export function simplifyGeometry(g: AreaGeometry, tolerance: number): AreaGeometry {
  if (g.type === 'Polygon') {
    return {
      type: 'Polygon',
      coordinates: simplifyPolygon(g.coordinates, tolerance) ?? minimal(g.coordinates),
    };
  }
  const parts = g.coordinates.map((p) => simplifyPolygon(p, tolerance));
  const kept = parts.filter((p): p is Position[][] => p !== null);
  if (kept.length > 0) return { type: 'MultiPolygon', coordinates: kept };
  const biggest = g.coordinates.reduce((a, b) => ((b[0]?.length ?? 0) > (a[0]?.length ?? 0) ? b : a));
  return { type: 'MultiPolygon', coordinates: [minimal(biggest)] };
}

/** The shell as a triangle: its first vertex, the vertex farthest from it, the vertex farthest from that chord. */
function minimal(poly: PolygonCoords): Position[][] {
  const ring = poly[0] ?? [];
  if (ring.length < 4) return [ring.slice()];
  const first = ring[0]!;
  let a = 1;
  let best = -1;
  for (let k = 1; k < ring.length - 1; k++) {
    const d = Math.hypot(ring[k]![0]! - first[0]!, ring[k]![1]! - first[1]!);
    if (d > best) [best, a] = [d, k];
  }
  let b = a === 1 ? 2 : 1;
  best = -1;
  for (let k = 1; k < ring.length - 1; k++) {
    if (k === a) continue;
    const d = segmentDistance(ring[k]![0]!, ring[k]![1]!, first[0]!, first[1]!, ring[a]![0]!, ring[a]![1]!);
    if (d > best) [best, b] = [d, k];
  }
  const [i, j] = a < b ? [a, b] : [b, a];
  return [[first, ring[i]!, ring[j]!, first]];
}
