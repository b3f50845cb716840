/**
 * A basin prepared for reduction: the pixels of its AOI window that fall in a cell of the query's
 * zone crossing, as parallel lists, and the one reduction every engine path runs over them (so
 * every path sums in the same order and gives the same bits). Prepared basins are kept in the
 * runtime's 'basins' cache, keyed by the AOI and zone-layer file signatures and the axes.
 */
import { readOnto } from '../datasets/read-onto.js';
import { SnowdbError } from '../errors.js';
import { fileSignature } from '../io/memo.js';
import type { TypedArray } from '../raster/dtype.js';
import type { Window } from '../raster/grid.js';
import { blocksAcross } from '../series/blocks.js';
import { BLOCK } from '../series/page.js';
import type { Runtime } from '../util/runtime.js';
import type { StatsPlan } from './plan.js';
import { stateSignatures } from './state.js';

export interface PreparedBasin {
  /** The AOI window on the dataset grid. */
  readonly window: Window;
  /**
   * Window offset of each pixel in a cell, in block-major order: by BLOCK × BLOCK grid block
   * (block row, then column), then by cell, then row-major inside the block. Every path adds a
   * cell's pixels in this order (the order across cells does not change any sum's bits).
   */
  readonly at: Int32Array;
  /** Each pixel's cell in the crossing (first axis most significant). */
  readonly cell: Int32Array;
  /** Each pixel's weight: covered fraction × cell area, m². */
  readonly weight: Float64Array;
  /** Σ weight per cell, m². */
  readonly area: Float64Array;
  /** Grid blocks holding the pixels, in order (id = block row × blocks across + block column). */
  readonly blocks: Uint32Array;
  /** Runs (pixels of one block and one cell) of `blocks[b]` are `blockRun[b]` … `blockRun[b + 1]` − 1. */
  readonly blockRun: Int32Array;
  /** Pixels of run r are `runStart[r]` … `runStart[r + 1]` − 1. */
  readonly runStart: Int32Array;
  /** The cell of run r. */
  readonly runCell: Int32Array;
  /** Each pixel's offset inside its block (row × BLOCK + column). */
  readonly pos: Int32Array;
}

/** What the reduction needs of a prepared basin (plain typed arrays: a worker gets a copy). */
export type BasinRuns = Pick<PreparedBasin, 'blockRun' | 'runStart' | 'runCell' | 'weight' | 'pos'>;

async function prepare(plan: StatsPlan): Promise<PreparedBasin> {
  const { dataset: d, entry, product } = plan;
  const aoi = plan.drawn
    ? { data: plan.drawn.weights, window: plan.drawn.window }
    : await readOnto(plan.dataset.store, plan.aoi, 'SNOWDB_AOI_WINDOW', null, 0);
  if (aoi === null) {
    throw new SnowdbError(
      'basin-raster-missing',
      `no AOI raster for ${entry.triplet} in '${d.name}' (run 'snowdb pourpoint rasterize ${entry.triplet}')`,
    );
  }
  const { data: weights, window: w } = aoi;
  const cellOf = new Int32Array(weights.length);
  for (let i = 0; i < weights.length; i++) cellOf[i] = weights[i]! > 0 ? 0 : -1;
  const ord = new Int32Array(weights.length);
  // Pixels of the basin some axis leaves in no zone: −2 while crossing, then the last cell.
  const lost = -2;
  for (const { axis, layer: spec, path } of plan.axes) {
    const layer = await readOnto(plan.dataset.store, path, 'SNOWDB_ZONE_WINDOW', w, spec.nodata);
    if (layer === null) {
      throw new SnowdbError(
        'zone-layer-missing',
        `zone layer '${axis.layer}' of '${d.name}' has not been generated (run 'snowdb dataset generate-zones ${d.name}')`,
      );
    }
    axis.classify(layer.data, spec.nodata, ord);
    const n = axis.zones.length;
    for (let i = 0; i < cellOf.length; i++) {
      const o = ord[i]!;
      const c = cellOf[i]!;
      cellOf[i] = c === -1 ? -1 : c === lost || o < 0 ? lost : c * n + o;
    }
  }
  for (let i = 0; i < cellOf.length; i++) if (cellOf[i] === lost) cellOf[i] = product - 1;
  // Block-major order: sort the window offsets in a cell by (block id, offset inside the block).
  const across = blocksAcross(d.grid);
  const blockOf = (i: number) =>
    Math.floor((w.row + Math.floor(i / w.width)) / BLOCK) * across +
    Math.floor((w.col + (i % w.width)) / BLOCK);
  const posOf = (i: number) =>
    ((w.row + Math.floor(i / w.width)) % BLOCK) * BLOCK + ((w.col + (i % w.width)) % BLOCK);
  // Sort keys per pixel, computed once: its block id, then (cell, offset) as one exact number.
  const order: number[] = [];
  const blockKey = new Float64Array(cellOf.length);
  const cellKey = new Float64Array(cellOf.length);
  for (let i = 0; i < cellOf.length; i++) {
    if (cellOf[i]! < 0) continue;
    order.push(i);
    blockKey[i] = blockOf(i);
    cellKey[i] = cellOf[i]! * BLOCK * BLOCK + posOf(i);
  }
  order.sort((a, b) => blockKey[a]! - blockKey[b]! || cellKey[a]! - cellKey[b]!);
  const n = order.length;
  const at = Int32Array.from(order);
  const cell = new Int32Array(n);
  const weight = new Float64Array(n);
  const pos = new Int32Array(n);
  const area = new Float64Array(product);
  const blocks: number[] = [];
  const blockRun: number[] = [];
  const runStart: number[] = [];
  const runCell: number[] = [];
  for (let j = 0; j < n; j++) {
    const i = at[j]!;
    const c = cellOf[i]!;
    cell[j] = c;
    weight[j] = weights[i]!;
    pos[j] = posOf(i);
    area[c] = area[c]! + weights[i]!;
    const b = blockOf(i);
    const newBlock = blocks.at(-1) !== b;
    if (newBlock) {
      blocks.push(b);
      blockRun.push(runStart.length);
    }
    if (newBlock || runCell.at(-1) !== c) {
      runStart.push(j);
      runCell.push(c);
    }
  }
  blockRun.push(runStart.length);
  runStart.push(n);
  return {
    window: w,
    at,
    cell,
    weight,
    area,
    blocks: Uint32Array.from(blocks),
    blockRun: Int32Array.from(blockRun),
    runStart: Int32Array.from(runStart),
    runCell: Int32Array.from(runCell),
    pos,
  };
}

/** Prepared basins by key, LRU by bytes: every typed array a prepared basin holds, their objects and the series layout. */
const prepared = (rt: Runtime) =>
  rt.cache<PreparedBasin>(
    'basins',
    (b) =>
      b.at.byteLength +
      b.cell.byteLength +
      b.weight.byteLength +
      b.area.byteLength +
      b.blocks.byteLength +
      b.blockRun.byteLength +
      b.runStart.byteLength +
      b.runCell.byteLength +
      b.pos.byteLength +
      4096 + // the basin object, its nine typed arrays' objects and its key's share (~3 KiB measured)
      512 + // its series layout (stats/series-path.ts): two objects and two arrays …
      8 * b.blocks.length + // … its block ordinals …
      4 * b.pos.length, // … and its pixels' sample indices
  );

/** The plan's basin prepared, from the cache while its AOI raster and zone layers are unchanged. */
export function preparedBasin(plan: StatsPlan): Promise<PreparedBasin> {
  // A drawn polygon has no AOI file: its entry's geometry hash keys it.
  const files = [plan.drawn ? `drawn:${plan.entry.geometryHash}` : plan.aoi, ...plan.axes.map((a) => a.path)];
  const known = stateSignatures(plan);
  const signatures = files.map((f) =>
    f.startsWith('drawn:') ? '' : (known.get(f) ?? fileSignature(plan.dataset.store, f)),
  );
  const key = JSON.stringify([files, signatures, plan.axes.map((a) => [a.axis.layer, a.axis.value])]);
  return prepared(plan.dataset.runtime).get(key, () => prepare(plan));
}

/** One date's values of one variable: pixel j's value is `vals[base + idx[j]]`; `nodata` and NaN are skipped. */
export interface RunValues {
  readonly vals: TypedArray;
  readonly base: number;
  readonly idx: Int32Array;
  readonly nodata: number;
}

/** Where a reduction adds: Σ weight (m²) and Σ value × weight per cell, the date's cells from `at`. */
export interface SumTarget {
  readonly sw: Float64Array;
  readonly sv: Float64Array;
  readonly at: number;
}

/**
 * Add one date's values of one variable into per-cell sums, runs r0 … r1 − 1 of the basin's
 * pixels: sw[at + cell] += weight, sv[at + cell] += value × weight, each cell's pixels added in
 * the basin's order. Every engine path calls this, so sums are bit-equal.
 */
export function accumulateRuns(
  basin: BasinRuns,
  r0: number,
  r1: number,
  src: RunValues,
  out: SumTarget,
): void {
  const { runStart, runCell, weight } = basin;
  const { vals, base, idx, nodata } = src;
  const { sw, sv, at } = out;
  for (let r = r0; r < r1; r++) {
    const k = at + runCell[r]!;
    let a = sw[k]!; // Σ weight, m²: kept in registers along the run, the same additions in order
    let s = sv[k]!;
    const j1 = runStart[r + 1]!;
    for (let j = runStart[r]!; j < j1; j++) {
      const x = vals[base + idx[j]!]!;
      if (x === nodata || Number.isNaN(x)) continue;
      const w = weight[j]!;
      a += w;
      s += x * w;
    }
    sw[k] = a;
    sv[k] = s;
  }
}
