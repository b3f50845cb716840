import { SnowdbError } from '../errors.js';
import type { Cog } from './cog.reader.js';
import { alignedOffset, type Grid, intersectWindows, type Window } from './grid.js';

/**
 * Float pixels of one raster or of a mosaic of rasters on one lattice: windows may reach past the
 * grid, and every pixel outside it, nodata or non-finite reads as NaN.
 */
export interface PixelSource {
  readonly grid: Grid;
  /** What the pixels come from, for messages. */
  readonly url: string;
  read(w: Window): Promise<Float64Array>;
}

/** Copy the valid pixels of `cog` that fall in window `w` of `grid` (cog at offset [oc, or]). */
async function paste(cog: Cog, offset: [number, number], w: Window, out: Float64Array): Promise<void> {
  const [oc, or] = offset;
  const inCog = intersectWindows(
    { col: w.col - oc, row: w.row - or, width: w.width, height: w.height },
    { col: 0, row: 0, width: cog.grid.width, height: cog.grid.height },
  );
  if (inCog === null) return;
  const data = await cog.readWindow(inCog);
  const nodata = cog.nodata;
  for (let r = 0; r < inCog.height; r++) {
    const dst = (inCog.row + or - w.row + r) * w.width + (inCog.col + oc - w.col);
    const src = r * inCog.width;
    for (let c = 0; c < inCog.width; c++) {
      const v = data[src + c]!;
      if (v !== nodata && Number.isFinite(v)) out[dst + c] = v;
    }
  }
}

/**
 * Pixels of rasters that share one lattice (e.g. 3DEP tiles, which overlap by a few pixels):
 * the mosaic grid is the union of their extents; where they overlap, later rasters win.
 * @throws SnowdbError `invalid-raster` when the rasters are not on one lattice.
 */
export function mosaicPixels(cogs: readonly Cog[], url: string): PixelSource {
  const first = cogs[0];
  if (first === undefined) throw new SnowdbError('invalid-raster', `${url}: no raster to read`);
  let x0 = Infinity;
  let y1 = -Infinity;
  let x1 = -Infinity;
  let y0 = Infinity;
  for (const c of cogs) {
    x0 = Math.min(x0, c.grid.originX);
    y1 = Math.max(y1, c.grid.originY);
    x1 = Math.max(x1, c.grid.originX + c.grid.width * c.grid.cellWidth);
    y0 = Math.min(y0, c.grid.originY - c.grid.height * c.grid.cellHeight);
  }
  const g0 = first.grid;
  const grid: Grid = {
    ...g0,
    originX: x0,
    originY: y1,
    width: Math.round((x1 - x0) / g0.cellWidth),
    height: Math.round((y1 - y0) / g0.cellHeight),
  };
  const offsets = cogs.map((c) => {
    const o = alignedOffset(grid, c.grid, 1e-3);
    if (o === null)
      throw new SnowdbError('invalid-raster', `${c.source.url}: not on the lattice of ${first.source.url}`);
    return o;
  });
  return {
    grid,
    url,
    async read(w) {
      const out = new Float64Array(w.width * w.height).fill(Number.NaN);
      for (let i = 0; i < cogs.length; i++) await paste(cogs[i]!, offsets[i]!, w, out);
      return out;
    },
  };
}
