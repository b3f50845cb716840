/**
 * What makes a lon/lat polygon unusable as an area, found without repairing it: a ring that
 * crosses itself or another ring of its polygon (a bow-tie), a polygon without area, and a ring
 * that jumps across the antimeridian (±180°). Pure; planar in degrees (the tests are signs and
 * zeros, which projection does not change for edges this short).
 */
import type { PolygonCoords, Ring } from './geometry.js';

/** Where two edges of one polygon cross: ring and edge indices (edge k runs from vertex k to k + 1). */
export interface Crossing {
  readonly a: { readonly ring: number; readonly edge: number };
  readonly b: { readonly ring: number; readonly edge: number };
  /** The crossing point, [lon, lat]. */
  readonly at: readonly [number, number];
}

const orient = (ax: number, ay: number, bx: number, by: number, cx: number, cy: number): number =>
  Math.sign((bx - ax) * (cy - ay) - (by - ay) * (cx - ax));

/**
 * The first pair of edges of `poly` (every ring) that cross properly (each edge's ends strictly
 * on both sides of the other's line), or null. Edges meeting at a vertex or touching do not
 * count. Edges are bucketed on a grid over the polygon's bounds (about one edge per cell), and a
 * pair is tested once, in the cell holding the low corner of their bounds' overlap: linear time
 * on real basin outlines.
 */
export function firstCrossing(poly: PolygonCoords): Crossing | null {
  // Flat edge table: x0, y0, x1, y1 per edge, its ring and index.
  const edges: number[] = [];
  const owner: number[] = [];
  let [minX, minY, maxX, maxY] = [Infinity, Infinity, -Infinity, -Infinity];
  poly.forEach((ring, r) => {
    for (let k = 0; k + 1 < ring.length; k++) {
      const [x0, y0] = ring[k]! as [number, number];
      const [x1, y1] = ring[k + 1]! as [number, number];
      edges.push(x0, y0, x1, y1);
      owner.push(r, k);
      minX = Math.min(minX, x0, x1);
      minY = Math.min(minY, y0, y1);
      maxX = Math.max(maxX, x0, x1);
      maxY = Math.max(maxY, y0, y1);
    }
  });
  const n = edges.length / 4;
  if (n < 2) return null;
  const side = Math.max(1, Math.ceil(Math.sqrt(n)));
  const cw = (maxX - minX) / side || 1;
  const ch = (maxY - minY) / side || 1;
  const cellX = (x: number) => Math.min(side - 1, Math.floor((x - minX) / cw));
  const cellY = (y: number) => Math.min(side - 1, Math.floor((y - minY) / ch));
  const cells = new Map<number, number[]>();
  for (let e = 0; e < n; e++) {
    const [x0, y0, x1, y1] = [edges[4 * e]!, edges[4 * e + 1]!, edges[4 * e + 2]!, edges[4 * e + 3]!];
    for (let cy = cellY(Math.min(y0, y1)); cy <= cellY(Math.max(y0, y1)); cy++)
      for (let cx = cellX(Math.min(x0, x1)); cx <= cellX(Math.max(x0, x1)); cx++) {
        const key = cy * side + cx;
        const list = cells.get(key);
        if (list) list.push(e);
        else cells.set(key, [e]);
      }
  }
  for (const [key, list] of cells) {
    for (let i = 0; i < list.length; i++) {
      const p = list[i]!;
      const [ax, ay, bx, by] = [edges[4 * p]!, edges[4 * p + 1]!, edges[4 * p + 2]!, edges[4 * p + 3]!];
      for (let j = i + 1; j < list.length; j++) {
        const q = list[j]!;
        const [cx, cy, dx, dy] = [edges[4 * q]!, edges[4 * q + 1]!, edges[4 * q + 2]!, edges[4 * q + 3]!];
        // Test the pair only in the cell of the low corner of their bounds' overlap (once).
        const ox = Math.max(Math.min(ax, bx), Math.min(cx, dx));
        const oy = Math.max(Math.min(ay, by), Math.min(cy, dy));
        if (
          ox > Math.min(Math.max(ax, bx), Math.max(cx, dx)) ||
          oy > Math.min(Math.max(ay, by), Math.max(cy, dy))
        )
          continue; // bounds apart
        if (cellY(oy) * side + cellX(ox) !== key) continue;
        if (
          orient(ax, ay, bx, by, cx, cy) * orient(ax, ay, bx, by, dx, dy) < 0 &&
          orient(cx, cy, dx, dy, ax, ay) * orient(cx, cy, dx, dy, bx, by) < 0
        ) {
          const t =
            ((cx - ax) * (dy - cy) - (cy - ay) * (dx - cx)) / ((bx - ax) * (dy - cy) - (by - ay) * (dx - cx));
          return {
            a: { ring: owner[2 * p]!, edge: owner[2 * p + 1]! },
            b: { ring: owner[2 * q]!, edge: owner[2 * q + 1]! },
            at: [ax + t * (bx - ax), ay + t * (by - ay)],
          };
        }
      }
    }
  }
  return null;
}

/** A ring's signed planar area, degrees² (counter-clockwise positive). */
export function ringArea(ring: Ring): number {
  let s = 0;
  for (let k = 0; k + 1 < ring.length; k++)
    s += ring[k]![0]! * ring[k + 1]![1]! - ring[k + 1]![0]! * ring[k]![1]!;
  return s / 2;
}

/** The polygon's planar area, degrees²: its shell's less its holes'. */
export const polygonArea = (poly: PolygonCoords): number =>
  poly.reduce((t, ring, r) => t + (r === 0 ? 1 : -1) * Math.abs(ringArea(ring)), 0);

/** The first edge of a ring whose ends are more than 180° of longitude apart (it would wrap the globe), or null. */
export function antimeridianJump(
  ring: Ring,
): { readonly edge: number; readonly from: number; readonly to: number } | null {
  for (let k = 0; k + 1 < ring.length; k++) {
    const from = ring[k]![0]!;
    const to = ring[k + 1]![0]!;
    if (Math.abs(to - from) > 180) return { edge: k, from, to };
  }
  return null;
}
