/**
 * Every basin in one pass: the cubes of many plans of one dataset, dates, variables and zone axes
 * (an every-basin answer), from one layout of all their pixels over the union of their windows.
 * Each date's raster is read once over that window and reduced into every basin and zone cell
 * (a sparse product: each basin's cells are its rows). The layout keeps every basin's own order
 * (block-major, then cell, then row-major in the block: `PreparedBasin`), so each cube's sums have
 * the bits the one-basin engine gives. Layouts are kept in the runtime's 'sweeps' cache.
 */
import { createHash } from 'node:crypto';
import { indexedWeightsOf, type SparseWeights } from '../datasets/coverage-index.js';
import type { RasterSession } from '../datasets/read-onto.js';
import { fileSignature } from '../io/memo.js';
import { unionWindows, type Window } from '../raster/grid.js';
import { BLOCK } from '../series/page.js';
import type { Runtime } from '../util/runtime.js';
import { Slicer } from '../util/slices.js';
import { accumulateRuns, cellLayers, cellsOf, weightsOf } from './basin.js';
import { type Cube, type ExecuteOptions, emittedCells } from './cube.js';
import { datedReads } from './dated-reads.js';
import type { StatsPlan } from './plan.js';
import type { Sums } from './series-path.js';
import { stateSignatures } from './state.js';

/** Every pixel of many basins, basin by basin, each in its reduction order. */
export interface SweepLayout {
  /** The union of the basins' windows on the grid. */
  readonly window: Window;
  readonly basins: number;
  readonly product: number;
  /** Each entry's offset in `window` (row-major). */
  readonly idx: Int32Array;
  /** Each entry's weight, m². */
  readonly weight: Float64Array;
  /** Entries of run r (one basin, block and cell) are `runStart[r]` … `runStart[r + 1]` − 1. */
  readonly runStart: Int32Array;
  readonly runBasin: Int32Array;
  readonly runCell: Int32Array;
  /** Σ weight per basin × product + cell, m². */
  readonly area: Float64Array;
}

/** The plans' weights: one read of the coverage index for the indexed ones, the rest one by one. */
async function weightsOfAll(plans: readonly StatsPlan[]): Promise<SparseWeights[]> {
  const out: (SparseWeights | undefined)[] = new Array(plans.length);
  const first = plans[0]!;
  const index = plans.find((p) => p.indexed)?.indexed?.index;
  const same = plans.flatMap((p, i) => (p.indexed && p.indexed.index === index ? [i] : []));
  if (index && same.length > 0) {
    const ws = await indexedWeightsOf(
      first.dataset.store,
      index,
      same.map((i) => plans[i]!.indexed!.basin),
    );
    same.forEach((i, k) => {
      out[i] = ws[k];
    });
  }
  for (const [i, p] of plans.entries()) if (out[i] === undefined) out[i] = await weightsOf(p);
  return out as SparseWeights[];
}

/** A growable list of int32 (the layout's runs: their count is known only at the end). */
class Int32List {
  data = new Int32Array(1024);
  length = 0;
  push(x: number): void {
    if (this.length === this.data.length) {
      const grown = new Int32Array(this.data.length * 2);
      grown.set(this.data);
      this.data = grown;
    }
    this.data[this.length++] = x;
  }
  done(): Int32Array {
    return this.data.slice(0, this.length);
  }
}

/**
 * The layout: basin by basin, each basin's pixels in its own reduction order (block, cell, then
 * row-major in the block: a stable counting sort of the basin's few blocks and cells), written
 * straight into the layout's arrays. Scratch is sized to the largest basin, not to every pixel.
 */
async function layout(plans: readonly StatsPlan[], rasters: RasterSession | undefined, signal?: AbortSignal) {
  const first = plans[0]!;
  const { product } = first;
  const weights = await weightsOfAll(plans);
  const U = unionWindows(weights.map((w) => w.window))!;
  const m = weights.reduce((n, w) => n + w.at.length, 0);
  const most = weights.reduce((n, w) => Math.max(n, w.at.length), 0);
  const slicer = new Slicer(signal);
  const layers = await cellLayers(first, U, rasters);
  // Per pixel of one basin: its offset in U, block (rank in the basin's window, row-major), cell.
  const at = new Int32Array(most);
  const rank = new Int32Array(most);
  const scratch = { cell: new Int32Array(most), values: new Float64Array(most), ord: new Int32Array(most) };
  const { cell } = scratch;
  const idx = new Int32Array(m);
  const weight = new Float64Array(m);
  const area = new Float64Array(plans.length * product);
  const runStart = new Int32List();
  const runBasin = new Int32List();
  const runCell = new Int32List();
  let start = new Int32Array(1024);
  let k = 0; // the basin's first entry in the layout
  for (const [b, w] of weights.entries()) {
    const n = w.at.length;
    const { col, row, width, height } = w.window;
    const bc0 = Math.floor(col / BLOCK);
    const nbc = Math.floor((col + width - 1) / BLOCK) - bc0 + 1;
    const nbr = Math.floor((row + height - 1) / BLOCK) - Math.floor(row / BLOCK) + 1;
    const br0 = Math.floor(row / BLOCK);
    // Offsets ascend: the row advances as they pass its end (no division per pixel).
    let r = row;
    let rowStart = 0;
    for (let j = 0; j < n; j++) {
      const a = w.at[j]!;
      if (a >= rowStart + width) {
        const skip = Math.floor((a - rowStart) / width);
        r += skip;
        rowStart += skip * width;
      }
      const c = col + a - rowStart;
      at[j] = (r - U.row) * U.width + (c - U.col);
      rank[j] = (Math.floor(r / BLOCK) - br0) * nbc + Math.floor(c / BLOCK) - bc0;
    }
    cellsOf(layers, at, n, product, scratch);
    // (block, cell) keys, stable: in window order inside each (the one-basin engine's order). A
    // counting sort whose scatter writes the layout itself: start[key] is the key's next entry.
    const keys = nbr * nbc * product;
    if (start.length < keys + 1) start = new Int32Array(keys + 1);
    start.fill(0, 0, keys + 1);
    for (let j = 0; j < n; j++) start[rank[j]! * product + cell[j]! + 1]!++;
    const firstRun = runStart.length;
    for (let q = 0; q < keys; q++) {
      if (start[q + 1]! > 0) {
        runStart.push(k + start[q]!);
        runBasin.push(b);
        runCell.push(q % product);
      }
      start[q + 1]! += start[q]!;
    }
    for (let j = 0; j < n; j++) {
      const e = k + start[rank[j]! * product + cell[j]!]!++;
      idx[e] = at[j]!;
      weight[e] = w.weight[j]!;
    }
    // Areas summed in layout order, one weight at a time (the bits of the one-basin engine's sums).
    for (let i = firstRun; i < runStart.length; i++) {
      const end = i + 1 < runStart.length ? runStart.data[i + 1]! : k + n;
      const a = b * product + runCell.data[i]!;
      for (let e = runStart.data[i]!; e < end; e++) area[a]! += weight[e]!;
    }
    k += n;
    await slicer.pause();
  }
  runStart.push(m);
  return {
    window: U,
    basins: plans.length,
    product,
    idx,
    weight,
    runStart: runStart.done(),
    runBasin: runBasin.done(),
    runCell: runCell.done(),
    area,
  } satisfies SweepLayout;
}

const sweeps = (rt: Runtime) =>
  rt.cache<SweepLayout>(
    'sweeps',
    (l) =>
      l.idx.byteLength +
      l.weight.byteLength +
      l.runStart.byteLength +
      l.runBasin.byteLength +
      l.runCell.byteLength +
      l.area.byteLength +
      4096,
  );

/** The layout of the plans' basins, from the cache while their weights and zone layers are unchanged. */
export function sweepLayout(
  plans: readonly StatsPlan[],
  rasters?: RasterSession,
  signal?: AbortSignal,
): Promise<SweepLayout> {
  const first = plans[0]!;
  const known = stateSignatures(first);
  const own = plans.map((p) =>
    p.indexed ? `indexed:${p.indexed.basin.aoiHash}` : `${p.aoi}@${fileSignature(p.dataset.store, p.aoi)}`,
  );
  const layers = first.axes.map((a) => [
    a.path,
    known.get(a.path) ?? fileSignature(first.dataset.store, a.path),
    a.axis.layer,
    a.axis.value,
  ]);
  const key = createHash('sha256')
    .update(JSON.stringify([first.dataset.paths.dir, own, layers]))
    .digest('base64url');
  return sweeps(first.dataset.runtime).get(key, () => layout(plans, rasters, signal));
}

/** Whether plans can share one sweep: one dataset, the same dates, variables and axes. */
export function sweepable(plans: readonly StatsPlan[]): boolean {
  const first = plans[0];
  if (first === undefined) return false;
  const dates = first.dates.join();
  const vars = first.variables.join();
  // Plans of one every-basin query share these arrays (SharedPlanning): compared by reference first.
  return plans.every(
    (p) =>
      p.drawn === undefined &&
      p.dataset === first.dataset &&
      p.product === first.product &&
      p.axes === first.axes &&
      (p.variables === first.variables || p.variables.join() === vars) &&
      (p.dates === first.dates || p.dates.join() === dates),
  );
}

/**
 * The cubes of `plans` (sweepable) in one pass: per variable and date, the date's raster read
 * once over the layout's window and every run reduced into its basin's sums.
 */
export async function executeSweep(plans: readonly StatsPlan[], opts: ExecuteOptions = {}): Promise<Cube[]> {
  const first = plans[0]!;
  const { dataset: d, product } = first;
  const L = await sweepLayout(plans, opts.rasters, opts.signal);
  const nd = first.dates.length;
  const stride = nd * product;
  const { idx, runCell } = L;
  // Each run's basin's sums: its offset in the all-basins arrays.
  const runAt = Int32Array.from(L.runBasin, (b) => b * stride);
  const slicer = new Slicer(opts.signal);
  const sums: Sums[] = [];
  for (const v of first.variables) {
    const spec = d.config.variables[v]!;
    const sw = new Float64Array(plans.length * stride);
    const sv = new Float64Array(plans.length * stride);
    let i = 0;
    for await (const vals of datedReads(d, v, first.dates, L.window, spec.nodata, opts.signal)) {
      accumulateRuns(
        L,
        0,
        runCell.length,
        { vals, base: 0, idx, nodata: spec.nodata },
        { sw, sv, at: i * product, runAt },
      );
      i++;
      await slicer.pause();
    }
    sums.push({ sw, sv });
  }
  return plans.map((plan, b) => {
    const area = L.area.subarray(b * product, (b + 1) * product);
    return {
      plan,
      area,
      cells: emittedCells(plan, area),
      sums: sums.map((x) => ({
        sw: x.sw.subarray(b * stride, (b + 1) * stride),
        sv: x.sv.subarray(b * stride, (b + 1) * stride),
      })),
    };
  });
}
