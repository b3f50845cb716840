import proj4 from 'proj4';
import { authalicQ, rowAreas } from './cell-area.js';
import { eccentricitySquared } from './crs.js';
import { type AreaGeometry, polygonsBounds, polygonsOf } from './geometry.js';
import { type Grid, type Window, windowOfBounds } from './grid.js';

/** Exact coverage of a polygon over a grid window: the covered fraction of each cell's area. */
export interface CoverageFractions {
  /** The window of the grid the polygon's bounds touch. */
  readonly window: Window;
  /** Covered fraction in [0, 1] of each window cell, row-major. */
  readonly fractions: Float64Array;
}

export interface CoverageOptions {
  /** Coordinates of the geometry: `lonlat` (WGS 84, default) or already in the grid's CRS. */
  readonly input?: 'lonlat' | 'grid';
}

/** A ring in the coverage working space: x in window pixels, Y in the row space, per vertex. */
interface WorkRing {
  readonly x: Float64Array;
  readonly y: Float64Array;
}

/**
 * Exact fractional coverage of a lon/lat (WGS 84) Polygon/MultiPolygon on a grid.
 *
 * Each ring's edges are split at row and column lines and accumulated as signed areas (Green's
 * theorem: area right of each piece, carried along the row by a prefix sum), so the cost is the
 * number of cell crossings plus the window size; no centre-in-polygon, no supersampling.
 * Shells count positive and holes negative whatever their orientation; a self-touching ring
 * gives what make_valid gives. Edges are straight in the grid CRS (vertices are projected); on a
 * geographic grid, rows are measured in the authalic coordinate q(φ), so a fraction is a share of
 * the cell's ellipsoidal area (edges straight in the equal-area cylindrical projection).
 * Overlapping parts are clamped to a fraction of 1.
 *
 * @returns null when the polygon lies outside the grid.
 */
export function polygonCoverage(
  grid: Grid,
  geometry: AreaGeometry,
  options: CoverageOptions = {},
): CoverageFractions | null {
  const inGridCrs = options.input === 'grid' || grid.crs.geographic;
  const project = inGridCrs ? null : proj4('EPSG:4326', grid.crs.proj4);
  const polygons = polygonsOf(geometry).map((poly) =>
    poly.map((ring) => (project ? ring.map((p) => project.forward([p[0]!, p[1]!])) : ring)),
  );
  const window = windowOfBounds(grid, polygonsBounds(polygons));
  if (window === null) return null;
  const { width: W, height: H } = window;

  // Row space: Y increases southward; rowY[k] is the north edge of window row k (rowY[H] the south edge).
  const e2 = eccentricitySquared(grid.crs.ellipsoid);
  const toY = grid.crs.geographic
    ? (lat: number) => -authalicQ(lat, e2)
    : (y: number) => (grid.originY - y) / grid.cellHeight - window.row;
  const rowY = new Float64Array(H + 1);
  for (let k = 0; k <= H; k++) rowY[k] = toY(grid.originY - (window.row + k) * grid.cellHeight);
  const rowOf = (y: number) => Math.floor((grid.originY - y) / grid.cellHeight) - window.row;

  const acc = new Float64Array(H * (W + 1));
  const touched = new Uint8Array(H * W); // 1 where a ring's edge passes through the cell's interior
  for (const poly of polygons) {
    poly.forEach((ring, i) => {
      const n = ring.length;
      const work: WorkRing = { x: new Float64Array(n), y: new Float64Array(n) };
      const rows = new Int32Array(n);
      for (let v = 0; v < n; v++) {
        const p = ring[v]!;
        work.x[v] = (p[0]! - grid.originX) / grid.cellWidth - window.col;
        work.y[v] = toY(p[1]!);
        rows[v] = rowOf(p[1]!);
      }
      const orientation = Math.sign(signedArea(work)) || 1;
      accumulateRing({ acc, touched, W }, H, rowY, work, rows, i === 0 ? orientation : -orientation);
    });
  }

  const fractions = new Float64Array(W * H);
  for (let k = 0; k < H; k++) {
    let cover = 0;
    for (let c = 0; c < W; c++) {
      cover += acc[k * (W + 1) + c]!;
      // No edge (level ones included) enters this cell's interior, so it lies wholly inside or
      // outside each ring: its cover is the integer winding count, and rounding it there drops the
      // carry's drift exactly (weight > 0 only where the cell shares area with the polygon).
      if (touched[k * W + c] === 0) cover = Math.round(cover);
      fractions[k * W + c] = cover <= 0 ? 0 : cover >= 1 ? 1 : cover;
    }
  }
  return { window, fractions };
}

/** AOI weights of a coverage: covered fraction × cell area, m², row-major over its window. */
export function coverageWeights(grid: Grid, cov: CoverageFractions): Float64Array {
  const areas = rowAreas(grid);
  const { row, width, height } = cov.window;
  const out = new Float64Array(width * height);
  for (let k = 0; k < height; k++) {
    const a = areas[row + k]!;
    for (let c = 0; c < width; c++) out[k * width + c] = cov.fractions[k * width + c]! * a;
  }
  return out;
}

/** Σ −(Y1 − Y0)(x0 + x1)/2: the sign the accumulation gives a ring; positive = adds area. */
function signedArea(r: WorkRing): number {
  let s = 0;
  for (let v = 0; v + 1 < r.x.length; v++) s -= (r.y[v + 1]! - r.y[v]!) * (r.x[v]! + r.x[v + 1]!);
  const last = r.x.length - 1;
  if (last > 0) s -= (r.y[0]! - r.y[last]!) * (r.x[last]! + r.x[0]!);
  return s / 2;
}

/**
 * Add one ring's signed pieces into the accumulator: for a piece in column c with row-normalized
 * height dy and mean x m, cell c gets dy·(c + 1 − m) and cell c + 1 gets dy·(m − c) (the prefix sum
 * along the row then gives every cell further right the full dy). Pieces left of the window
 * carry dy into column 0; pieces right of it add nothing.
 */
function accumulateRing(
  out: Accumulator,
  H: number,
  rowY: Float64Array,
  r: WorkRing,
  rows: Int32Array,
  sign: number,
): void {
  const n = r.x.length;
  for (let v = 0; v < n; v++) {
    const w = v + 1 === n ? 0 : v + 1;
    const x0 = r.x[v]!;
    const y0 = r.y[v]!;
    const x1 = r.x[w]!;
    const y1 = r.y[w]!;
    if (y0 === y1) {
      // A level edge adds no area, but inside a row it still crosses the cells under it.
      for (let k = Math.max(0, rows[v]! - 1); k <= Math.min(H - 1, rows[v]! + 1); k++)
        if (rowY[k]! < y0 && y0 < rowY[k + 1]!) touchSpan(out, k, x0, x1);
      continue;
    }
    const dir = y1 > y0 ? 1 : -1;
    const kLo = Math.max(0, Math.min(rows[v]!, rows[w]!) - 1);
    const kHi = Math.min(H - 1, Math.max(rows[v]!, rows[w]!) + 1);
    const slope = (x1 - x0) / (y1 - y0);
    const yMin = Math.min(y0, y1);
    const yMax = Math.max(y0, y1);
    for (let k = kLo; k <= kHi; k++) {
      const top = rowY[k]!;
      const bottom = rowY[k + 1]!;
      const ya = Math.max(yMin, top);
      const yb = Math.min(yMax, bottom);
      if (yb <= ya) continue;
      const xa = x0 + (ya - y0) * slope;
      const xb = x0 + (yb - y0) * slope;
      const dy = (sign * dir * (yb - ya)) / (bottom - top);
      addPiece(out, k, xa, xb, dy);
    }
  }
}

/** The accumulation's state: per row W + 1 signed pieces (prefix-summed later) and touched cells. */
interface Accumulator {
  readonly acc: Float64Array;
  readonly touched: Uint8Array;
  /** Window width, cells. */
  readonly W: number;
}

/**
 * Split a row piece spanning x in [xa, xb] (either order) with height dy over the columns it
 * crosses: the part left of the window carries into column 0 in one step, the part right of it
 * adds nothing. A cell is touched where the piece has positive width inside it, or where a
 * vertical piece runs through its interior (one on a column line only carries into the cell right of it).
 */
function addPiece(out: Accumulator, k: number, xa: number, xb: number, dy: number): void {
  const { acc, touched, W } = out;
  const base = k * (W + 1);
  const lo = Math.min(xa, xb);
  const hi = Math.max(xa, xb);
  const span = hi - lo;
  if (span === 0) {
    const c = Math.floor(lo);
    if (c < 0) acc[base] = acc[base]! + dy;
    else if (c < W) {
      addCell(acc, base + c, c, lo, dy);
      if (lo !== c) touched[k * W + c] = 1;
    }
    return;
  }
  if (lo < 0) acc[base] = acc[base]! + (dy * (Math.min(hi, 0) - lo)) / span;
  const end = Math.min(hi, W);
  for (let c = Math.max(Math.floor(lo), 0); c < end; c++) {
    const s0 = Math.max(lo, c);
    const s1 = Math.min(hi, c + 1);
    if (s1 > s0) {
      addCell(acc, base + c, c, (s0 + s1) / 2, (dy * (s1 - s0)) / span);
      touched[k * W + c] = 1;
    }
  }
}

/** Mark the cells of row k that the open span between xa and xb (either order) passes through. */
function touchSpan(out: Accumulator, k: number, xa: number, xb: number): void {
  const lo = Math.max(Math.min(xa, xb), 0);
  const hi = Math.min(Math.max(xa, xb), out.W);
  for (let c = Math.floor(lo); c < hi; c++)
    if (Math.min(hi, c + 1) > Math.max(lo, c)) out.touched[k * out.W + c] = 1;
}

/** A piece inside column c with mean x m: dy·(c + 1 − m) to cell c, the rest carried to c + 1. */
function addCell(acc: Float64Array, at: number, c: number, m: number, dy: number): void {
  acc[at] = acc[at]! + dy * (c + 1 - m);
  acc[at + 1] = acc[at + 1]! + dy * (m - c);
}
