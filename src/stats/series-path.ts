/**
 * The fast path of a stats query: the dates a variable's series store holds, read page by page
 * (8 dates per page, only the blocks under the basin), summed in the basin's pixel order as the
 * COG path's `accumulate` sums.
 */
import { DTYPES, type TypedArray } from '../raster/dtype.js';
import { BLOCK_PIXELS, dayNumber, pageOf } from '../series/page.js';
import { pageBlocks, pageHeader, type SeriesView } from '../series/read.js';
import type { PreparedBasin } from './basin.js';
import type { StatsPlan } from './plan.js';

/** The store ordinal of each of the basin's blocks (basin order); null when one is not stored. */
const layouts = new WeakMap<PreparedBasin, { set: number; ordinals: number[] | null }>();

function ordinalsOf(basin: PreparedBasin, view: SeriesView): number[] | null {
  const hit = layouts.get(basin);
  if (hit !== undefined && hit.set === view.set.id) return hit.ordinals;
  const ordinals = [...basin.blocks].map((b) => view.set.ordinal[b] ?? -1);
  const out = ordinals.every((k) => k >= 0) ? ordinals : null;
  layouts.set(basin, { set: view.set.id, ordinals: out });
  return out;
}

/** Per-cell sums of one variable over the plan's dates, flat: date index × product + cell. */
export interface Sums {
  /** Σ weight of pixels with data, m². */
  readonly sw: Float64Array;
  /** Σ stored value × weight. */
  readonly sv: Float64Array;
}

/** Decoded bytes a query may put through the block cache; larger scans bypass it. */
const CACHED_SCAN_BYTES = 32 * 1024 * 1024;

/**
 * Reduce every plan date of `variable` the store holds into `sums`. Loops run block by block
 * (the basin's order), date by date, then over the block's pixels: each (date, cell) sum still
 * adds its pixels in the basin's order, as `accumulate` does, so the bits are the same.
 * @returns the indices of the dates reduced; the others are for the COG path.
 */
export function reduceFromSeries(
  plan: StatsPlan,
  basin: PreparedBasin,
  view: SeriesView,
  variable: string,
  sums: Sums,
): Set<number> {
  const done = new Set<number>();
  const d = plan.dataset;
  if (!view.variables.includes(variable)) return done;
  const ordinals = ordinalsOf(basin, view);
  if (ordinals === null) return done;
  const spec = d.config.variables[variable]!;
  const nodata = spec.nodata;
  const byPage = new Map<string, number[]>();
  plan.dates.forEach(({ date }, i) => {
    if (view.stale.has(date)) return;
    const p = pageOf(date);
    const list = byPage.get(p);
    if (list) list.push(i);
    else byPage.set(p, [i]);
  });
  const { blockStart } = basin;
  const P = plan.product;
  const cache =
    byPage.size * ordinals.length * BLOCK_PIXELS * 8 * DTYPES[spec.dtype].bytes <= CACHED_SCAN_BYTES;
  const tOff = new Int32Array(BLOCK_PIXELS); // per page date: offset of its values in a block
  const dOff = new Int32Array(BLOCK_PIXELS); // … and of its sums
  for (const [page, indices] of byPage) {
    const header = pageHeader(d, view, variable, page);
    if (header === null || header.dtype !== spec.dtype) continue;
    let nt = 0;
    const held: number[] = [];
    for (const i of indices) {
      const t = header.days.indexOf(dayNumber(plan.dates[i]!.date));
      if (t < 0) continue;
      tOff[nt] = t * BLOCK_PIXELS;
      dOff[nt++] = i * P;
      held.push(i);
    }
    if (nt === 0) continue;
    let blocks: TypedArray[];
    try {
      blocks = pageBlocks(d, view, variable, page, header, ordinals, cache);
    } catch {
      continue; // a damaged page: these dates come from the COGs
    }
    for (let b = 0; b < blocks.length; b++)
      for (let m = 0; m < nt; m++)
        sumBlock(blocks[b]!, tOff[m]!, dOff[m]!, blockStart[b]!, blockStart[b + 1]!, basin, nodata, sums);
    for (const i of held) done.add(i);
  }
  return done;
}

/** Add one date of one block (values from `t`) to the sums from `o`, pixels j0 … j1 − 1 in order. */
function sumBlock(
  blk: TypedArray,
  t: number,
  o: number,
  j0: number,
  j1: number,
  basin: PreparedBasin,
  nodata: number,
  sums: Sums,
): void {
  const { cell, weight, pos } = basin;
  const { sw, sv } = sums;
  for (let j = j0; j < j1; j++) {
    const x = blk[t + pos[j]!]!;
    if (x === nodata || Number.isNaN(x)) continue;
    const k = o + cell[j]!;
    sw[k] = sw[k]! + weight[j]!;
    sv[k] = sv[k]! + x * weight[j]!;
  }
}
