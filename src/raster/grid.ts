import type { Crs } from './crs.js';

/** A north-up raster grid: CRS, upper-left corner, positive cell sizes, size and internal tile size. */
export interface Grid {
  readonly crs: Crs;
  /** West edge of column 0, CRS units. */
  readonly originX: number;
  /** North edge of row 0, CRS units. */
  readonly originY: number;
  /** Cell width, CRS units, > 0. */
  readonly cellWidth: number;
  /** Cell height, CRS units, > 0 (rows run south). */
  readonly cellHeight: number;
  /** Columns. */
  readonly width: number;
  /** Rows. */
  readonly height: number;
  /** Internal tile edge in pixels (square tiles; a multiple of 16). */
  readonly tileSize: number;
}

/** A pixel window: column/row of its upper-left pixel and its size in pixels. */
export interface Window {
  readonly col: number;
  readonly row: number;
  readonly width: number;
  readonly height: number;
}

/** Bounds in CRS units: [minX, minY, maxX, maxY]. */
export type Bounds = readonly [minX: number, minY: number, maxX: number, maxY: number];

/** An inclusive range of tiles: columns tx0..tx1, rows ty0..ty1. */
export interface TileRange {
  readonly tx0: number;
  readonly ty0: number;
  readonly tx1: number;
  readonly ty1: number;
}

/** World coordinates of a pixel-space point (col, row may be fractional; 0,0 = UL corner). */
export function pixelToWorld(g: Grid, col: number, row: number): [x: number, y: number] {
  return [g.originX + col * g.cellWidth, g.originY - row * g.cellHeight];
}

/** Fractional pixel coordinates of a world point. */
export function worldToPixel(g: Grid, x: number, y: number): [col: number, row: number] {
  return [(x - g.originX) / g.cellWidth, (g.originY - y) / g.cellHeight];
}

export function gridBounds(g: Grid): Bounds {
  return [g.originX, g.originY - g.height * g.cellHeight, g.originX + g.width * g.cellWidth, g.originY];
}

export function fullWindow(g: Grid): Window {
  return { col: 0, row: 0, width: g.width, height: g.height };
}

/** The intersection of two windows, or null when they do not overlap. */
export function intersectWindows(a: Window, b: Window): Window | null {
  const col = Math.max(a.col, b.col);
  const row = Math.max(a.row, b.row);
  const width = Math.min(a.col + a.width, b.col + b.width) - col;
  const height = Math.min(a.row + a.height, b.row + b.height) - row;
  return width > 0 && height > 0 ? { col, row, width, height } : null;
}

/** The smallest window of whole pixels covering `bounds`, clipped to the grid; null when outside. */
export function windowOfBounds(g: Grid, bounds: Bounds): Window | null {
  const [c0, r0] = worldToPixel(g, bounds[0], bounds[3]);
  const [c1, r1] = worldToPixel(g, bounds[2], bounds[1]);
  const col = Math.floor(c0);
  const row = Math.floor(r0);
  const w = { col, row, width: Math.ceil(c1) - col, height: Math.ceil(r1) - row };
  if (w.width <= 0 || w.height <= 0) return null;
  return intersectWindows(w, fullWindow(g));
}

/** The tiles a window touches (window assumed inside the grid); tiles may be taller than wide. */
export function tilesOfWindow(tileSize: number, w: Window, tileHeight = tileSize): TileRange {
  return {
    tx0: Math.floor(w.col / tileSize),
    ty0: Math.floor(w.row / tileHeight),
    tx1: Math.floor((w.col + w.width - 1) / tileSize),
    ty1: Math.floor((w.row + w.height - 1) / tileHeight),
  };
}

/** The window of whole tiles covering `w`, clipped to the grid. */
export function tileAlignedWindow(g: Grid, w: Window): Window {
  const t = tilesOfWindow(g.tileSize, w);
  const col = t.tx0 * g.tileSize;
  const row = t.ty0 * g.tileSize;
  return {
    col,
    row,
    width: Math.min((t.tx1 + 1) * g.tileSize, g.width) - col,
    height: Math.min((t.ty1 + 1) * g.tileSize, g.height) - row,
  };
}

/** The grid of a window of `g`: same CRS, cell size and tile size, origin at the window's corner. */
export function subGrid(g: Grid, w: Window): Grid {
  const [originX, originY] = pixelToWorld(g, w.col, w.row);
  return { ...g, originX, originY, width: w.width, height: w.height };
}

/** Offset of `inner`'s origin in `outer`'s pixels, when both share CRS, cell size and lattice. */
export function alignedOffset(outer: Grid, inner: Grid, tolerance = 1e-6): [col: number, row: number] | null {
  if (outer.crs.id !== inner.crs.id) return null;
  if (Math.abs(outer.cellWidth - inner.cellWidth) > tolerance * outer.cellWidth) return null;
  if (Math.abs(outer.cellHeight - inner.cellHeight) > tolerance * outer.cellHeight) return null;
  const [c, r] = worldToPixel(outer, inner.originX, inner.originY);
  const col = Math.round(c);
  const row = Math.round(r);
  return Math.abs(c - col) <= tolerance && Math.abs(r - row) <= tolerance ? [col, row] : null;
}

/** The smallest window holding every window given, or null for none. */
export function unionWindows(ws: Iterable<Window>): Window | null {
  // A loop, not Math.min(...): 10⁵ windows would overflow the call's argument stack.
  let c0 = Number.POSITIVE_INFINITY;
  let r0 = Number.POSITIVE_INFINITY;
  let c1 = Number.NEGATIVE_INFINITY;
  let r1 = Number.NEGATIVE_INFINITY;
  for (const w of ws) {
    c0 = Math.min(c0, w.col);
    r0 = Math.min(r0, w.row);
    c1 = Math.max(c1, w.col + w.width);
    r1 = Math.max(r1, w.row + w.height);
  }
  return c0 === Number.POSITIVE_INFINITY ? null : { col: c0, row: r0, width: c1 - c0, height: r1 - r0 };
}

/** Parse `col row width height` window text (as stored in raster tags); null when malformed. */
export function parseWindowTag(text: string | null): Window | null {
  const n = (text ?? '').trim().split(/\s+/).map(Number);
  if (n.length !== 4 || !n.every(Number.isInteger)) return null;
  const [col, row, width, height] = n as [number, number, number, number];
  return { col, row, width, height };
}

/** `col row width height` text of a window, as stored in tags. */
export function windowTag(w: Window): string {
  return `${w.col} ${w.row} ${w.width} ${w.height}`;
}
