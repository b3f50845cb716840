/**
 * The fast path of a stats query: the dates a variable's series store holds, read page by page
 * (8 dates per page, only the blocks under the basin), summed in the basin's pixel order as the
 * COG path sums. Small reads go through the block cache on this thread; long scans are split by
 * page among worker threads (stats/scan.ts), which keeps the event loop free while they run (on a
 * replica this thread fetches their bytes first, and the workers decode them).
 */

import { OpenFiles } from '../io/open-files.js';
import { DTYPES } from '../raster/dtype.js';
import { blockRanges, cachedAcross, cachedBlocks, fetchBlockRuns } from '../series/block-reads.js';
import type { SeriesView } from '../series/read.js';
import { mapPool } from '../util/pool.js';
import { Slicer } from '../util/slices.js';
import type { BasinRuns, PreparedBasin } from './basin.js';
import { compute, computeThreads } from './compute-pool.js';
import type { StatsPlan } from './plan.js';
import { REMOTE_REQUESTS, type VariableReads } from './reads.js';
import {
  byFile,
  reduceBlock,
  reducePage,
  runScan,
  type ScanJob,
  type ScanPage,
  type ScanTarget,
} from './scan.js';

/**
 * The basin in the store's layout: the store ordinal of each of its blocks (basin order) and each
 * pixel's sample index in its stored block (its rank in the block's mask); null when a block, or
 * a pixel of one (a drawn basin's), is not stored.
 */
interface Layout {
  readonly ordinals: number[];
  readonly pos: Int32Array;
}
const layouts = new WeakMap<PreparedBasin, { set: number; layout: Layout | null }>();

function layoutOf(basin: PreparedBasin, view: SeriesView): Layout | null {
  const hit = layouts.get(basin);
  if (hit !== undefined && hit.set === view.set.id) return hit.layout;
  const { set } = view;
  const ordinals = [...basin.blocks].map((b) => set.ordinal[b] ?? -1);
  let layout: Layout | null = null;
  if (ordinals.every((k) => k >= 0)) {
    const pos = new Int32Array(basin.pos.length);
    let ok = true;
    ordinals.forEach((k, b) => {
      const rank = set.rank(k);
      for (let j = basin.runStart[basin.blockRun[b]!]!; j < basin.runStart[basin.blockRun[b + 1]!]!; j++) {
        pos[j] = rank[basin.pos[j]!]!;
        ok &&= pos[j]! >= 0;
      }
    });
    if (ok) layout = { ordinals, pos };
  }
  layouts.set(basin, { set: set.id, layout });
  return layout;
}

/** Per-cell sums of one variable over the plan's dates, flat: date index × product + cell. */
export interface Sums {
  /** Σ weight of pixels with data, m². */
  readonly sw: Float64Array;
  /** Σ stored value × weight. */
  readonly sv: Float64Array;
}

/** Decoded bytes a query may put through the block cache; larger scans go to the workers. */
const THREADS_ABOVE_BYTES = 32 * 1024 * 1024;

/**
 * Reduce the pages `reads` names into `sums`. Loops run block by block (the basin's order), date
 * by date, then over the block's runs: each (date, cell) sum still adds its pixels in the basin's
 * order, as the COG path does, so the bits are the same.
 * @returns the indices of the dates reduced; the others (the plan's COG reads, and the dates of a
 *   page that cannot be read, or of a store missing one of the basin's blocks) are for the COGs.
 */
export async function reduceFromSeries(
  plan: StatsPlan,
  basin: PreparedBasin,
  view: SeriesView,
  reads: VariableReads,
  sums: Sums,
  opts: { readonly threadsAbove?: number; readonly signal?: AbortSignal } = {},
): Promise<Set<number>> {
  const { threadsAbove = THREADS_ABOVE_BYTES, signal } = opts;
  const done = new Set<number>();
  const d = plan.dataset;
  const layout = reads.pages.length === 0 ? null : layoutOf(basin, view);
  if (layout === null) return done;
  const { ordinals } = layout;
  const spec = d.config.variables[reads.variable]!;
  let pages: ScanPage[] = reads.pages.map((p) => ({
    ranges: blockRanges(p.header, view.set, ordinals),
    slots: p.slots,
    row: [...p.rows],
  }));
  const P = plan.product;
  const samples = ordinals.reduce((a, k) => a + view.set.counts[k]!, 0); // a date's, over the basin's blocks
  const bytes = pages.length * samples * 8 * DTYPES[spec.dtype].bytes;
  // The reduction's runs, each pixel's index that of its sample in the stored block.
  const runs: BasinRuns = {
    blockRun: basin.blockRun,
    runStart: basin.runStart,
    runCell: basin.runCell,
    weight: basin.weight,
    pos: layout.pos,
  };
  if (bytes <= threadsAbove) {
    const files = new OpenFiles();
    const slicer = new Slicer(signal);
    const target: ScanTarget = { runs, nodata: spec.nodata, sums, product: P };
    try {
      for (const group of byFile(pages)) {
        signal?.throwIfAborted();
        if (group.length === 1) {
          const page = pages[group[0]!]!;
          const blocks = await cachedBlocks(view, page.ranges).catch(() => null);
          if (!blocks) continue; // a damaged page: these dates come from the COGs
          reducePage(blocks, page, target);
          for (const i of page.row) done.add(i);
          await slicer.pause();
          continue;
        }
        // Pages of one pack: block by block (the basin's order), a block's pages in one read.
        const members = group.map((k) => pages[k]!);
        const ranges = members.map((p) => p.ranges);
        // REMOTE_REQUESTS blocks in flight (a replica's range requests; local reads on the thread pool).
        const read = await mapPool(ordinals, REMOTE_REQUESTS, (_o, b) =>
          cachedAcross(view, ranges, b, files).catch(() => null),
        );
        if (read.some((blocks) => blocks === null)) continue; // damaged: the pack's dates come from the COGs
        for (let b = 0; b < read.length; b++) {
          members.forEach((p, m) => {
            reduceBlock(read[b]![m]!, b, p, target);
          });
          await slicer.pause(); // a big product's reduction in slices: cheap requests go on
        }
        for (const p of members) for (const i of p.row) done.add(i);
      }
    } finally {
      files.close();
    }
    return done;
  }
  if (!view.store.local) {
    // A replica: this thread fetches the blocks' bytes (REMOTE_REQUESTS at a time), the workers
    // decode and reduce them. A page that cannot be read leaves its dates to the COG path.
    const fetched = await mapPool(pages, REMOTE_REQUESTS, (p) =>
      fetchBlockRuns(view.store, p.ranges).catch(() => null),
    );
    signal?.throwIfAborted();
    pages = pages.flatMap((p, k) => (fetched[k] ? [{ ...p, fetched: fetched[k] }] : []));
  }
  // Execute: contiguous runs of pages, one job per worker, each job's rows its own.
  const rt = plan.dataset.runtime;
  // One shared flag for the jobs: set when the query is abandoned, so they stop at their next page.
  // (Removed at the end: a long-lived signal, a cache fill's, would keep this scan's memory.)
  const cancel = new Int32Array(new SharedArrayBuffer(4));
  const stop = () => Atomics.store(cancel, 0, 1);
  signal?.addEventListener('abort', stop, { once: true });
  const per = Math.ceil(pages.length / computeThreads(rt));
  const parts = Array.from({ length: Math.ceil(pages.length / per) }, (_x, k) =>
    pages.slice(k * per, (k + 1) * per),
  );
  try {
    await Promise.all(
      parts.map(async (part) => {
        const index: number[] = []; // job row → plan date index
        const local = part.map((p) => ({ ...p, row: p.row.map((i) => index.push(i) - 1) }));
        const job: ScanJob = {
          pages: local,
          runs,
          nodata: spec.nodata,
          product: P,
          rows: index.length,
          cancel,
        };
        // No worker: this thread (unless the query was abandoned).
        const r = await compute(rt, 'scan', job, signal).catch((e: unknown) => {
          if (signal?.aborted) throw e;
          return runScan(job);
        });
        // Row by row in slices: the first writes to a fresh answer fault its pages in (~25 ms for
        // 7 MB on this VM), which under load would hold the event loop in one block.
        const slicer = new Slicer(signal);
        for (const k of r.read)
          for (const row of local[k]!.row) {
            const at = index[row]! * P;
            sums.sw.set(r.sw.subarray(row * P, row * P + P), at);
            sums.sv.set(r.sv.subarray(row * P, row * P + P), at);
            done.add(index[row]!);
            await slicer.pause();
          }
      }),
    );
  } finally {
    signal?.removeEventListener('abort', stop);
  }
  return done;
}
