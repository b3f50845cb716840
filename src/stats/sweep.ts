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
import { dateIncomplete, type RasterSession, readOnto } from '../datasets/read-onto.js';
import { SnowdbError } from '../errors.js';
import { fileSignature } from '../io/memo.js';
import { unionWindows, type Window } from '../raster/grid.js';
import { BLOCK } from '../series/page.js';
import type { Runtime } from '../util/runtime.js';
import { Slicer } from '../util/slices.js';
import { accumulateRuns, countingOrder, weightsOf } from './basin.js';
import { type Cube, type ExecuteOptions, emittedCells } from './cube.js';
import type { StatsPlan } from './plan.js';
import type { Sums } from './series-path.js';
import { stateSignatures } from './state.js';

/** Every pixel of many basins, in each basin's reduction order, grouped by grid block. */
export interface SweepLayout {
  /** The union of the basins' windows on the grid. */
  readonly window: Window;
  readonly basins: number;
  readonly product: number;
  /** Each entry's offset in `window` (row-major). */
  readonly idx: Int32Array;
  /** Each entry's weight, m². */
  readonly weight: Float64Array;
  /** Entries of run r (one block, basin and cell) are `runStart[r]` … `runStart[r + 1]` − 1. */
  readonly runStart: Int32Array;
  readonly runBasin: Int32Array;
  readonly runCell: Int32Array;
  /** Σ weight per basin × product + cell, m². */
  readonly area: Float64Array;
}

/** Pixels classified per batch (bounded scratch, whatever the basins' total). */
const BATCH = 1 << 20;

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

async function layout(plans: readonly StatsPlan[], rasters: RasterSession | undefined, signal?: AbortSignal) {
  const first = plans[0]!;
  const { dataset: d, product } = first;
  const weights = await weightsOfAll(plans);
  const U = unionWindows(weights.map((w) => w.window))!;
  const { col: c0, row: r0 } = U;
  const c1 = c0 + U.width;
  const r1 = r0 + U.height;
  const m = weights.reduce((n, w) => n + w.at.length, 0);
  const slicer = new Slicer(signal);
  // Per entry, in basin order then each basin's window order: its offset in U, basin, block.
  const idx = new Int32Array(m);
  const basinOf = new Int32Array(m);
  const blockOf = new Int32Array(m);
  const weight = new Float64Array(m);
  const by0 = Math.floor(r0 / BLOCK);
  const bx0 = Math.floor(c0 / BLOCK);
  const nbx = Math.floor((c1 - 1) / BLOCK) - bx0 + 1;
  const nby = Math.floor((r1 - 1) / BLOCK) - by0 + 1;
  let k = 0;
  for (const [b, w] of weights.entries()) {
    const { col, row, width } = w.window;
    basinOf.fill(b, k, k + w.at.length);
    weight.set(w.weight, k);
    // Offsets ascend: the row advances as they pass its end (no division per pixel).
    let r = row;
    let rowStart = 0;
    let blockRow = (Math.floor(r / BLOCK) - by0) * nbx;
    for (let j = 0; j < w.at.length; j++, k++) {
      const a = w.at[j]!;
      if (a >= rowStart + width) {
        const skip = Math.floor((a - rowStart) / width);
        r += skip;
        rowStart += skip * width;
        blockRow = (Math.floor(r / BLOCK) - by0) * nbx;
      }
      const c = col + a - rowStart;
      idx[k] = (r - r0) * U.width + (c - c0);
      blockOf[k] = blockRow + Math.floor(c / BLOCK) - bx0;
    }
    await slicer.pause();
  }
  // Each entry's cell of the crossing (the last, unclassified, for a pixel some axis leaves out).
  const cellOf = new Int32Array(m);
  const lost = -2;
  const values = new Float64Array(Math.min(m, BATCH));
  const ord = new Int32Array(values.length);
  for (const { axis, layer: spec, path } of first.axes) {
    const layer = await readOnto(d.store, path, 'SNOWDB_ZONE_WINDOW', U, spec.nodata, rasters);
    if (layer === null)
      throw new SnowdbError(
        'zone-layer-missing',
        `zone layer '${axis.layer}' of '${d.name}' has not been generated (run 'snowdb dataset generate-zones ${d.name}')`,
      );
    const n = axis.zones.length;
    for (let s = 0; s < m; s += BATCH) {
      const e = Math.min(m, s + BATCH);
      const v = e - s === values.length ? values : values.subarray(0, e - s);
      const o = e - s === ord.length ? ord : ord.subarray(0, e - s);
      for (let j = s; j < e; j++) v[j - s] = layer.data[idx[j]!]!;
      axis.classify(v, spec.nodata, o);
      for (let j = s; j < e; j++) {
        const z = o[j - s]!;
        const c = cellOf[j]!;
        cellOf[j] = c === lost || z < 0 ? lost : c * n + z;
      }
      await slicer.pause();
    }
  }
  for (let j = 0; j < m; j++) if (cellOf[j] === lost) cellOf[j] = product - 1;
  // (block, basin, cell, window order): stable counting sorts, least significant key first. The
  // entries come in (basin, window order): with one cell only the block sort is needed.
  const byBasinCell =
    product === 1 ? null : countingOrder(countingOrder(null, cellOf, product), basinOf, plans.length);
  const order = countingOrder(byBasinCell, blockOf, nbx * nby);
  await slicer.pause();
  const sIdx = new Int32Array(m);
  const sWeight = new Float64Array(m);
  const area = new Float64Array(plans.length * product);
  const runStart: number[] = [];
  const runBasin: number[] = [];
  const runCell: number[] = [];
  let last = -1;
  for (let j = 0; j < m; j++) {
    const e = order[j]!;
    const b = basinOf[e]!;
    const c = cellOf[e]!;
    sIdx[j] = idx[e]!;
    sWeight[j] = weight[e]!;
    area[b * product + c] = area[b * product + c]! + weight[e]!;
    const run = (blockOf[e]! * plans.length + b) * product + c;
    if (run !== last) {
      runStart.push(j);
      runBasin.push(b);
      runCell.push(c);
      last = run;
    }
  }
  runStart.push(m);
  return {
    window: U,
    basins: plans.length,
    product,
    idx: sIdx,
    weight: sWeight,
    runStart: Int32Array.from(runStart),
    runBasin: Int32Array.from(runBasin),
    runCell: Int32Array.from(runCell),
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
    for (const [i, date] of first.dates.entries()) {
      opts.signal?.throwIfAborted();
      const raster = await readOnto(d.store, d.paths.cog(date, v), null, L.window, spec.nodata);
      if (raster === null) throw dateIncomplete(d.name, date, v);
      accumulateRuns(
        L,
        0,
        runCell.length,
        { vals: raster.data, base: 0, idx, nodata: spec.nodata },
        { sw, sv, at: i * product, runAt },
      );
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
