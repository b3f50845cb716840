/**
 * A basin prepared for reduction: the pixels of its AOI window that fall in a cell of the query's
 * zone crossing, as parallel lists, and the one reduction every engine path runs over them (so
 * every path sums in the same order and gives the same bits). Prepared basins are kept in the
 * runtime's 'basins' cache, keyed by the AOI and zone-layer file signatures and the axes.
 */
import { indexedWeights, type SparseWeights, sparseOf } from '../datasets/coverage-index.js';
import { type RasterSession, readOnto } from '../datasets/read-onto.js';
import { SnowdbError } from '../errors.js';
import { fileSignature } from '../io/memo.js';
import type { TypedArray } from '../raster/dtype.js';
import type { Window } from '../raster/grid.js';
import { blocksAcross } from '../series/blocks.js';
import { BLOCK } from '../series/page.js';
import type { Runtime } from '../util/runtime.js';
import type { Axis } from '../zones/schemes.js';
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

/**
 * The plan's basin weights, sparse: a drawn polygon's own, the coverage index's (one ranged read
 * of the dataset's shared file), else the AOI raster's.
 */
export async function weightsOf(plan: StatsPlan): Promise<SparseWeights> {
  if (plan.drawn) return sparseOf(plan.drawn.weights, plan.drawn.window);
  if (plan.indexed) return indexedWeights(plan.dataset.store, plan.indexed.index, plan.indexed.basin);
  const aoi = await readOnto(plan.dataset.store, plan.aoi, 'SNOWDB_AOI_WINDOW', null, 0);
  if (aoi === null) {
    throw new SnowdbError(
      'basin-raster-missing',
      `no AOI raster for ${plan.entry.triplet} in '${plan.dataset.name}' (run 'snowdb pourpoint rasterize ${plan.entry.triplet}')`,
    );
  }
  return sparseOf(aoi.data, aoi.window);
}

/** `items` (default 0 … n − 1) stably reordered by `key[item]` ∈ [0, keys). */
export function countingOrder(items: Int32Array | null, key: Int32Array, keys: number): Int32Array {
  const n = key.length;
  const start = new Int32Array(keys + 1);
  for (let k = 0; k < n; k++) start[key[k]! + 1]!++;
  for (let v = 0; v < keys; v++) start[v + 1]! += start[v]!;
  const out = new Int32Array(n);
  for (let j = 0; j < n; j++) {
    const k = items ? items[j]! : j;
    out[start[key[k]!]!++] = k;
  }
  return out;
}

/** A zone layer read over some window, with the axis that classifies its values. */
export interface CellLayer {
  readonly axis: Axis;
  readonly nodata: number;
  readonly data: TypedArray;
}

/**
 * The cell in the crossing of `layers` (first axis most significant) of each of n pixels, whose
 * value in every layer is at `at[k]`, into `cell`; a pixel some axis leaves in no zone goes to the
 * last cell (unclassified). `values` and `ord` are scratch of n at least.
 */
export function cellsOf(
  layers: readonly CellLayer[],
  at: Int32Array,
  n: number,
  product: number,
  out: { cell: Int32Array; values: Float64Array; ord: Int32Array },
): void {
  const { cell } = out;
  const lost = -2; // while crossing: a pixel some axis leaves in no zone
  cell.fill(0, 0, n);
  for (const { axis, nodata, data } of layers) {
    const v = out.values.subarray(0, n);
    const o = out.ord.subarray(0, n);
    for (let k = 0; k < n; k++) v[k] = data[at[k]!]!;
    axis.classify(v, nodata, o);
    const z = axis.zones.length;
    for (let k = 0; k < n; k++) {
      const c = cell[k]!;
      cell[k] = c === lost || o[k]! < 0 ? lost : c * z + o[k]!;
    }
  }
  for (let k = 0; k < n; k++) if (cell[k] === lost) cell[k] = product - 1;
}

/** The zone layers of a plan's axes read over `w` (through `rasters` when given). */
export async function cellLayers(plan: StatsPlan, w: Window, rasters?: RasterSession): Promise<CellLayer[]> {
  const layers: CellLayer[] = [];
  for (const { axis, layer: spec, path } of plan.axes) {
    const layer = await readOnto(plan.dataset.store, path, 'SNOWDB_ZONE_WINDOW', w, spec.nodata, {
      session: rasters,
    });
    if (layer === null)
      throw new SnowdbError(
        'zone-layer-missing',
        `zone layer '${axis.layer}' of '${plan.dataset.name}' has not been generated (run 'snowdb dataset generate-zones ${plan.dataset.name}')`,
      );
    layers.push({ axis, nodata: spec.nodata, data: layer.data });
  }
  return layers;
}

async function prepare(plan: StatsPlan, rasters?: RasterSession): Promise<PreparedBasin> {
  const { dataset: d, product } = plan;
  const { window: w, at: px, weight: wt } = await weightsOf(plan);
  const m = px.length;
  // Each weighing pixel's cell in the crossing.
  const cellOf = new Int32Array(m);
  const layers = await cellLayers(plan, w, rasters);
  cellsOf(layers, px, m, product, { cell: cellOf, values: new Float64Array(m), ord: new Int32Array(m) });
  // Block-major order: the pixels by (block, cell, offset inside the block). They come in window
  // order, so inside a block by offset already: two stable counting sorts, by cell, then by block.
  const across = blocksAcross(d.grid);
  const bc0 = Math.floor(w.col / BLOCK);
  const br0 = Math.floor(w.row / BLOCK);
  const nbc = Math.floor((w.col + w.width - 1) / BLOCK) - bc0 + 1;
  const nbr = Math.floor((w.row + w.height - 1) / BLOCK) - br0 + 1;
  const rankOf = new Int32Array(m); // the pixel's block among the window's, row-major
  const posOf = new Int32Array(m);
  for (let k = 0; k < m; k++) {
    const i = px[k]!;
    const r = w.row + Math.floor(i / w.width);
    const c = w.col + (i % w.width);
    rankOf[k] = (Math.floor(r / BLOCK) - br0) * nbc + Math.floor(c / BLOCK) - bc0;
    posOf[k] = (r % BLOCK) * BLOCK + (c % BLOCK);
  }
  const byCell = countingOrder(null, cellOf, product);
  const order = countingOrder(byCell, rankOf, nbr * nbc);
  const at = new Int32Array(m);
  const cell = new Int32Array(m);
  const weight = new Float64Array(m);
  const pos = new Int32Array(m);
  const area = new Float64Array(product);
  const blocks: number[] = [];
  const blockRun: number[] = [];
  const runStart: number[] = [];
  const runCell: number[] = [];
  for (let j = 0; j < m; j++) {
    const k = order[j]!;
    const c = cellOf[k]!;
    at[j] = px[k]!;
    cell[j] = c;
    weight[j] = wt[k]!;
    pos[j] = posOf[k]!;
    area[c] = area[c]! + wt[k]!;
    const rank = rankOf[k]!;
    const b = (br0 + Math.floor(rank / nbc)) * across + bc0 + (rank % nbc);
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
  runStart.push(m);
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

/**
 * The plan's basin prepared, from the cache while its AOI raster and zone layers are unchanged
 * (with `rasters`, zone layers are read through that session: every basin of one answer shares
 * their open files and decoded tiles).
 */
export function preparedBasin(plan: StatsPlan, rasters?: RasterSession): Promise<PreparedBasin> {
  // A drawn polygon has no AOI file: its entry's geometry hash keys it; an indexed basin's
  // weights are keyed by their AOI hash (the weights follow from it).
  const own = plan.drawn
    ? `drawn:${plan.entry.geometryHash}`
    : plan.indexed
      ? `indexed:${plan.indexed.basin.aoiHash}`
      : plan.aoi;
  const files = [own, ...plan.axes.map((a) => a.path)];
  const known = stateSignatures(plan);
  const signatures = files.map((f, i) =>
    i === 0 && f !== plan.aoi ? '' : (known.get(f) ?? fileSignature(plan.dataset.store, f)),
  );
  const key = JSON.stringify([files, signatures, plan.axes.map((a) => [a.axis.layer, a.axis.value])]);
  return prepared(plan.dataset.runtime).get(key, () => prepare(plan, rasters));
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
  /** Per run, added to `at` (many basins' runs into their own sums: `stats/sweep.ts`). */
  readonly runAt?: Int32Array;
}

/**
 * Add one date's values of one variable into per-cell sums, runs r0 … r1 − 1 of the basin's
 * pixels: sw[at + cell] += weight, sv[at + cell] += value × weight, each cell's pixels added in
 * the basin's order. Every engine path calls this, so sums are bit-equal.
 */
export function accumulateRuns(
  basin: Pick<BasinRuns, 'runStart' | 'runCell' | 'weight'>,
  r0: number,
  r1: number,
  src: RunValues,
  out: SumTarget,
): void {
  const { runStart, runCell, weight } = basin;
  const { vals, base, idx, nodata } = src;
  const { sw, sv, at, runAt } = out;
  for (let r = r0; r < r1; r++) {
    const k = at + (runAt === undefined ? 0 : runAt[r]!) + runCell[r]!;
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
