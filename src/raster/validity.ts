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

/** An edge whose bounds cover more grid cells than this is tested against every edge instead. */
const LONG_EDGE_CELLS = 256;

/**
 * The first pair of edges of `poly` (every ring) that cross properly (each edge's ends strictly
 * on both sides of the other's line), or null. Edges meeting at a vertex or touching do not
 * count. Edges are bucketed on a grid of square cells about two mean edge lengths wide (a basin
 * outline puts a few edges in each cell it passes), and a pair is tested once, in the cell
 * holding the low corner of their bounds' overlap: about linear time on real outlines. The few
 * edges much longer than the rest are tested against every edge. Typed arrays, no per-edge objects.
 */
export function firstCrossing(poly: PolygonCoords): Crossing | null {
  let n = 0;
  for (const ring of poly) n += Math.max(0, ring.length - 1);
  if (n < 2) return null;
  // Flat edge table: x0, y0, x1, y1 per edge; its ring and index in `owner`.
  const E = new Float64Array(4 * n);
  const owner = new Int32Array(2 * n);
  let minX = Infinity;
  let minY = Infinity;
  let maxX = -Infinity;
  let maxY = -Infinity;
  let lengths = 0;
  let e = 0;
  poly.forEach((ring, r) => {
    for (let k = 0; k + 1 < ring.length; k++, e++) {
      const a = ring[k]!;
      const b = ring[k + 1]!;
      const x0 = a[0]!;
      const y0 = a[1]!;
      const x1 = b[0]!;
      const y1 = b[1]!;
      E[4 * e] = x0;
      E[4 * e + 1] = y0;
      E[4 * e + 2] = x1;
      E[4 * e + 3] = y1;
      owner[2 * e] = r;
      owner[2 * e + 1] = k;
      minX = Math.min(minX, x0, x1);
      minY = Math.min(minY, y0, y1);
      maxX = Math.max(maxX, x0, x1);
      maxY = Math.max(maxY, y0, y1);
      lengths += Math.max(Math.abs(x1 - x0), Math.abs(y1 - y0));
    }
  });
  const extent = Math.max(maxX - minX, maxY - minY);
  // Cell side, degrees: two mean edge lengths, but at most 65,536 cells across the polygon.
  const cw = Math.max((2 * lengths) / n, extent / 65_536) || 1;
  const cols = Math.floor((maxX - minX) / cw) + 1;
  const cell = (v: number, lo: number) => Math.floor((v - lo) / cw);
  // (cell key × n + edge) for every cell an edge's bounds cover, sorted: edges grouped by cell.
  let entries = new Float64Array(2 * n);
  let m = 0;
  const long: number[] = [];
  for (let i = 0; i < n; i++) {
    const cx0 = cell(Math.min(E[4 * i]!, E[4 * i + 2]!), minX);
    const cx1 = cell(Math.max(E[4 * i]!, E[4 * i + 2]!), minX);
    const cy0 = cell(Math.min(E[4 * i + 1]!, E[4 * i + 3]!), minY);
    const cy1 = cell(Math.max(E[4 * i + 1]!, E[4 * i + 3]!), minY);
    if ((cx1 - cx0 + 1) * (cy1 - cy0 + 1) > LONG_EDGE_CELLS) {
      long.push(i);
      continue;
    }
    for (let cy = cy0; cy <= cy1; cy++)
      for (let cx = cx0; cx <= cx1; cx++) {
        if (m === entries.length) {
          const grown = new Float64Array(2 * m);
          grown.set(entries);
          entries = grown;
        }
        entries[m++] = (cy * cols + cx) * n + i;
      }
  }
  const sorted = entries.subarray(0, m).sort();
  const crossing = (p: number, q: number): Crossing | null => {
    const ax = E[4 * p]!;
    const ay = E[4 * p + 1]!;
    const bx = E[4 * p + 2]!;
    const by = E[4 * p + 3]!;
    const cx = E[4 * q]!;
    const cy = E[4 * q + 1]!;
    const dx = E[4 * q + 2]!;
    const dy = E[4 * q + 3]!;
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
    return null;
  };
  /** The cell of the low corner of the overlap of two edges' bounds, or -1 when their bounds are apart. */
  const overlapCell = (p: number, q: number): number => {
    const ox = Math.max(Math.min(E[4 * p]!, E[4 * p + 2]!), Math.min(E[4 * q]!, E[4 * q + 2]!));
    const oy = Math.max(Math.min(E[4 * p + 1]!, E[4 * p + 3]!), Math.min(E[4 * q + 1]!, E[4 * q + 3]!));
    if (
      ox > Math.min(Math.max(E[4 * p]!, E[4 * p + 2]!), Math.max(E[4 * q]!, E[4 * q + 2]!)) ||
      oy > Math.min(Math.max(E[4 * p + 1]!, E[4 * p + 3]!), Math.max(E[4 * q + 1]!, E[4 * q + 3]!))
    )
      return -1;
    return cell(oy, minY) * cols + cell(ox, minX);
  };
  for (let g = 0; g < m; ) {
    const key = Math.floor(sorted[g]! / n);
    let end = g + 1;
    while (end < m && Math.floor(sorted[end]! / n) === key) end++;
    for (let i = g; i < end; i++) {
      const p = sorted[i]! - key * n;
      for (let j = i + 1; j < end; j++) {
        const q = sorted[j]! - key * n;
        // Test the pair only in the cell of the low corner of their bounds' overlap (once).
        if (overlapCell(p, q) !== key) continue;
        const x = crossing(p, q);
        if (x) return x;
      }
    }
    g = end;
  }
  // Long edges against every edge (each pair once: a long edge meets a shorter one only here).
  const rank = new Int32Array(n).fill(-1); // a long edge's place in `long`
  long.forEach((p, a) => {
    rank[p] = a;
  });
  for (let a = 0; a < long.length; a++) {
    const p = long[a]!;
    for (let q = 0; q < n; q++) {
      if (q === p || (rank[q]! >= 0 && rank[q]! < a) || overlapCell(p, q) < 0) continue;
      const x = crossing(p, q);
      if (x) return x;
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
