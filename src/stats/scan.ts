/**
 * A long scan of the series store as plain data, and its execution: pages of one variable read
 * and reduced into per-date, per-cell sums. The same `runScan` runs on the main thread or in a
 * worker (stats/compute.worker.ts); a job's dates are its own, so splitting pages among threads
 * leaves every sum's additions, and bits, as they are.
 */

import { OpenFiles } from '../io/open-files.js';
import type { TypedArray } from '../raster/dtype.js';
import { type BlockRanges, decodeBlockRuns, readAcross, readBlocks } from '../series/block-reads.js';
import { accumulateRuns, type BasinRuns } from './basin.js';

/** One page of a scan: where its blocks lie, and the dates to take from it. */
export interface ScanPage {
  readonly ranges: BlockRanges;
  /** Per date taken: its index in the page (its samples in block b start at slot × `ranges.counts[b]`). */
  readonly slots: readonly number[];
  /** Per date taken: its row in the job's sums. */
  readonly row: readonly number[];
  /** The blocks' compressed bytes, when fetched already (a replica's page): decoded, not read. */
  readonly fetched?: readonly Uint8Array[];
}

export interface ScanJob {
  readonly pages: readonly ScanPage[];
  readonly runs: BasinRuns;
  readonly nodata: number;
  /** Cells per date (the plan's product) and rows (dates) in the job's sums. */
  readonly product: number;
  readonly rows: number;
  /** Set to 1 (shared memory) when the query is abandoned: the job stops at its next page. */
  readonly cancel?: Int32Array;
}

export interface ScanResult {
  /** Σ weight of pixels with data (m²) and Σ value × weight, row × product + cell. */
  readonly sw: Float64Array;
  readonly sv: Float64Array;
  /** Indices of the pages read (the others were damaged: their dates go to the COG path). */
  readonly read: number[];
}

/**
 * Where a scan's reductions go: the basin's runs (`pos`: each pixel's sample index in its stored
 * block, series-path.ts), the variable's nodata, sums of `product` cells a row.
 */
export interface ScanTarget {
  readonly runs: BasinRuns;
  readonly nodata: number;
  readonly sums: { readonly sw: Float64Array; readonly sv: Float64Array };
  readonly product: number;
}

/** Add a page's dates from its block `b` (the basin's b-th block, decoded) into sums at row × product. */
export function reduceBlock(
  block: TypedArray,
  b: number,
  page: Pick<ScanPage, 'slots' | 'row' | 'ranges'>,
  t: ScanTarget,
): void {
  const { runs, sums } = t;
  const n = page.ranges.counts[b]!; // samples a date
  for (let m = 0; m < page.slots.length; m++)
    accumulateRuns(
      runs,
      runs.blockRun[b]!,
      runs.blockRun[b + 1]!,
      { vals: block, base: page.slots[m]! * n, idx: runs.pos, nodata: t.nodata },
      { sw: sums.sw, sv: sums.sv, at: page.row[m]! * t.product },
    );
}

/** Add a page's dates, from its decoded blocks (basin order), into sums at row × product. */
export function reducePage(
  blocks: readonly TypedArray[],
  page: Pick<ScanPage, 'slots' | 'row' | 'ranges'>,
  t: ScanTarget,
): void {
  for (let b = 0; b < blocks.length; b++) reduceBlock(blocks[b]!, b, page, t);
}

/** Zero a page's rows: what a page that failed part-way added is taken back (the COG path adds them). */
function forgetPage(page: Pick<ScanPage, 'row'>, { sums, product }: ScanTarget): void {
  for (const r of page.row) {
    sums.sw.fill(0, r * product, (r + 1) * product);
    sums.sv.fill(0, r * product, (r + 1) * product);
  }
}

/**
 * Page indices grouped by the local file they lie in, in first-seen order: several pages of one
 * pack are read block by block across the pages; a fetched page is a group of its own.
 */
export function byFile(pages: readonly Pick<ScanPage, 'ranges' | 'fetched'>[]): number[][] {
  const groups = new Map<string, number[]>();
  pages.forEach((p, i) => {
    const key = p.fetched ? `#${i}` : p.ranges.path;
    const g = groups.get(key);
    if (g) g.push(i);
    else groups.set(key, [i]);
  });
  return [...groups.values()];
}

/** Read and reduce every page of a job (synchronous: main thread or worker). */
export function runScan(job: ScanJob): ScanResult {
  const sums = { sw: new Float64Array(job.rows * job.product), sv: new Float64Array(job.rows * job.product) };
  const target: ScanTarget = { runs: job.runs, nodata: job.nodata, sums, product: job.product };
  const read: number[] = [];
  const files = new OpenFiles();
  const scratch: Uint8Array[] = []; // decoded blocks of a pack's pages, reused block after block
  const cancelled = () => job.cancel !== undefined && Atomics.load(job.cancel, 0) !== 0;
  try {
    for (const group of byFile(job.pages)) {
      if (cancelled()) break; // abandoned: the answer is dropped
      if (group.length === 1) {
        const i = group[0]!;
        const page = job.pages[i]!;
        let blocks: TypedArray[];
        try {
          blocks = page.fetched
            ? decodeBlockRuns(page.ranges, page.fetched)
            : readBlocks(page.ranges, undefined, files);
        } catch {
          continue; // a damaged page: its dates come from the COGs
        }
        reducePage(blocks, page, target);
        read.push(i);
        continue;
      }
      // Pages of one pack: block by block (the basin's order), each block's pages in one read.
      const pages = group.map((i) => job.pages[i]!);
      const ranges = pages.map((p) => p.ranges);
      let ok = true;
      for (let b = 0; ok && b < ranges[0]!.starts.length; b++) {
        if (cancelled()) return { ...sums, read: [] };
        let blocks: TypedArray[];
        try {
          blocks = readAcross(ranges, b, files, scratch);
        } catch {
          ok = false; // damaged: the group's dates come from the COGs
          for (const p of pages) forgetPage(p, target);
          break;
        }
        pages.forEach((p, m) => {
          reduceBlock(blocks[m]!, b, p, target);
        });
      }
      if (ok) read.push(...group);
    }
  } finally {
    files.close();
  }
  return { ...sums, read };
}
