/**
 * A long scan of the series store as plain data, and its execution: pages of one variable read
 * and reduced into per-date, per-cell sums. The same `runScan` runs on the main thread or in a
 * worker (stats/scan.worker.ts); a job's dates are its own, so splitting pages among threads
 * leaves every sum's additions, and bits, as they are.
 */

import { OpenFiles } from '../io/open-files.js';
import type { TypedArray } from '../raster/dtype.js';
import { type BlockRanges, decodeBlockRuns, readBlocks } from '../series/read.js';
import { accumulateRuns, type BasinRuns } from './basin.js';

/** One page of a scan: where its blocks lie, and the dates to take from it. */
export interface ScanPage {
  readonly ranges: BlockRanges;
  /** Per date taken: offset of its samples in each block (page date × BLOCK_PIXELS). */
  readonly tOff: readonly number[];
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

/** Add a page's dates, from its decoded blocks (basin order), into sums at row × product. */
export function reducePage(
  blocks: readonly TypedArray[],
  page: ScanPage,
  runs: BasinRuns,
  nodata: number,
  sums: { sw: Float64Array; sv: Float64Array },
  product: number,
): void {
  const { blockRun } = runs;
  for (let b = 0; b < blocks.length; b++)
    for (let m = 0; m < page.tOff.length; m++)
      accumulateRuns(
        runs,
        blockRun[b]!,
        blockRun[b + 1]!,
        { vals: blocks[b]!, base: page.tOff[m]!, idx: runs.pos, nodata },
        { sw: sums.sw, sv: sums.sv, at: page.row[m]! * product },
      );
}

/** Read and reduce every page of a job (synchronous: main thread or worker). */
export function runScan(job: ScanJob): ScanResult {
  const sums = { sw: new Float64Array(job.rows * job.product), sv: new Float64Array(job.rows * job.product) };
  const read: number[] = [];
  const files = new OpenFiles();
  job.pages.forEach((page, i) => {
    if (job.cancel !== undefined && Atomics.load(job.cancel, 0) !== 0) return; // abandoned: the answer is dropped
    let blocks: TypedArray[];
    try {
      blocks = page.fetched
        ? decodeBlockRuns(page.ranges, page.fetched)
        : readBlocks(page.ranges, undefined, files);
    } catch {
      return; // a damaged page: its dates come from the COGs
    }
    reducePage(blocks, page, job.runs, job.nodata, sums, job.product);
    read.push(i);
  });
  files.close();
  return { ...sums, read };
}
