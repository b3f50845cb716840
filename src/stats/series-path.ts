/**
 * The fast path of a stats query: the dates a variable's series store holds, read page by page
 * (8 dates per page, only the blocks under the basin), each date's values gathered into the
 * basin's pixel order and reduced by the same `accumulate` as the COG path.
 */
import { allocate, type DType, type TypedArray } from '../raster/dtype.js';
import { BLOCK, BLOCK_PIXELS, dayNumber, pageOf } from '../series/page.js';
import { pageBlocks, pageHeader, type SeriesView } from '../series/read.js';
import { accumulate, type PreparedBasin } from './basin.js';
import type { StatsPlan } from './plan.js';

/** Where each basin pixel sits in the store: which of the basin's blocks, and where in it. */
interface BlockLayout {
  /** Block ordinals under the basin, ascending. */
  readonly ordinals: number[];
  /** Per pixel: index into `ordinals`, and offset inside the block (row × BLOCK + col). */
  readonly slot: Int32Array;
  readonly pos: Int32Array;
}

const layouts = new WeakMap<PreparedBasin, { set: number; layout: BlockLayout | null }>();

/** The basin's block layout in this block set; null when a pixel's block is not stored. */
function layoutOf(basin: PreparedBasin, view: SeriesView): BlockLayout | null {
  const hit = layouts.get(basin);
  if (hit !== undefined && hit.set === view.set.id) return hit.layout;
  const { window: w, at } = basin;
  const { ordinal, across } = view.set;
  const blockOf = new Int32Array(at.length);
  const pos = new Int32Array(at.length);
  let layout: BlockLayout | null = null;
  let ok = true;
  const used = new Set<number>();
  for (let j = 0; j < at.length; j++) {
    const row = w.row + Math.floor(at[j]! / w.width);
    const col = w.col + (at[j]! % w.width);
    const k = ordinal[Math.floor(row / BLOCK) * across + Math.floor(col / BLOCK)] ?? -1;
    if (k < 0) {
      ok = false;
      break;
    }
    blockOf[j] = k;
    pos[j] = (row % BLOCK) * BLOCK + (col % BLOCK);
    used.add(k);
  }
  if (ok) {
    const ordinals = [...used].sort((a, b) => a - b);
    const index = new Map(ordinals.map((k, i) => [k, i]));
    const slot = new Int32Array(at.length);
    for (let j = 0; j < at.length; j++) slot[j] = index.get(blockOf[j]!)!;
    layout = { ordinals, slot, pos };
  }
  layouts.set(basin, { set: view.set.id, layout });
  return layout;
}

/**
 * Reduce every plan date of `variable` the store holds into `perDate` (plan date order).
 * @returns the indices of the dates reduced; the others are for the COG path.
 */
export function reduceFromSeries(
  plan: StatsPlan,
  basin: PreparedBasin,
  view: SeriesView,
  variable: string,
  perDate: readonly { sw: Float64Array; sv: Float64Array }[],
): Set<number> {
  const done = new Set<number>();
  const d = plan.dataset;
  if (!view.variables.includes(variable)) return done;
  const layout = layoutOf(basin, view);
  if (layout === null) return done;
  const spec = d.config.variables[variable]!;
  const byPage = new Map<string, number[]>();
  plan.dates.forEach(({ date }, i) => {
    if (view.stale.has(date)) return;
    const p = pageOf(date);
    const list = byPage.get(p);
    if (list) list.push(i);
    else byPage.set(p, [i]);
  });
  const n = basin.at.length;
  const vals = allocate(spec.dtype as DType, n);
  const { slot, pos } = layout;
  for (const [page, indices] of byPage) {
    const header = pageHeader(d, view, variable, page);
    if (header === null || header.dtype !== spec.dtype) continue;
    let blocks: TypedArray[];
    try {
      blocks = pageBlocks(d, view, variable, page, header, layout.ordinals);
    } catch {
      continue; // a damaged page: these dates come from the COGs
    }
    for (const i of indices) {
      const t = header.days.indexOf(dayNumber(plan.dates[i]!.date));
      if (t < 0) continue;
      const base = t * BLOCK_PIXELS;
      for (let j = 0; j < n; j++) vals[j] = blocks[slot[j]!]![base + pos[j]!]!;
      accumulate(basin, vals, spec.nodata, perDate[i]!.sw, perDate[i]!.sv);
      done.add(i);
    }
  }
  return done;
}
