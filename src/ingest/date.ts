import { rm } from 'node:fs/promises';
import { basename, join } from 'node:path';
import type { Dataset } from '../datasets/registry.js';
import { SnowdbError } from '../errors.js';
import { writeCog } from '../raster/cog.writer.js';
import type { TypedArray } from '../raster/dtype.js';
import { markSeriesStale } from '../series/stale.js';
import { repeats } from '../util/bytes.js';
import { isoDate as iso } from '../util/dates.js';
import { dateComplete, readManifest, sourceHash, stagingDir, swapIn, withDateLock } from './date-dir.js';
import { ingesterFor } from './ingesters.js';
import type { DateSource, ValidRange } from './types.js';

/** What happened to one date. */
export interface DateResult {
  readonly date: string;
  readonly action: 'ingested' | 'up-to-date' | 'kept-later-stage' | 'failed';
  readonly source: string;
  readonly message?: string;
}

/** Samples per native compare in `checkRange`: a large run first, then its small runs. */
const RUNS = [65_536, 1024] as const;

/**
 * Count into `acc` the samples of data[i0, i1) outside lo…hi that are not nodata (NaN is neither),
 * keeping the first one's index.
 */
function countOutside(
  data: TypedArray,
  i0: number,
  i1: number,
  lo: number,
  hi: number,
  nodata: number,
  acc: { bad: number; first: number },
): void {
  for (let i = i0; i < i1; i++) {
    const v = data[i]!;
    if ((v < lo || v > hi) && v !== nodata && acc.bad++ === 0) acc.first = i;
  }
}

/**
 * Refuse a variable holding a value outside its valid ranges (the dataset's and the file's own,
 * both inclusive, in stored units): a corrupt or misread source must not become data.
 */
export function checkRange(
  data: TypedArray,
  width: number,
  nodata: number,
  ranges: readonly (ValidRange | undefined)[],
  where: string,
): void {
  let lo = Number.NEGATIVE_INFINITY;
  let hi = Number.POSITIVE_INFINITY;
  for (const r of ranges) {
    if (r === undefined) continue;
    lo = Math.max(lo, r[0]);
    hi = Math.min(hi, r[1]);
  }
  if (lo === Number.NEGATIVE_INFINITY && hi === Number.POSITIVE_INFINITY) return;
  const acc = { bad: 0, first: -1 }; // cells outside, and the first one's index
  const bytes = Buffer.from(data.buffer, data.byteOffset, data.byteLength);
  const bps = data.BYTES_PER_ELEMENT;
  // Range first: it is false for almost every sample, and nodata is rarely outside it.
  const outside = (v: number) => (v < lo || v > hi) && v !== nodata;
  // Runs of one value (nodata outside the producer's domain, 0 for no snow) are judged by their
  // first sample after one native compare; the rest is checked one sample at a time.
  const check = (i0: number, i1: number, level: number): void => {
    if (repeats(bytes, bps, i0 * bps, i1 * bps)) {
      if (outside(data[i0]!)) {
        if (acc.bad === 0) acc.first = i0;
        acc.bad += i1 - i0;
      }
      return;
    }
    const step = RUNS[level + 1];
    if (step !== undefined) {
      for (let j = i0; j < i1; j += step) check(j, Math.min(i1, j + step), level + 1);
      return;
    }
    countOutside(data, i0, i1, lo, hi, nodata, acc);
  };
  for (let i0 = 0; i0 < data.length; i0 += RUNS[0]) check(i0, Math.min(data.length, i0 + RUNS[0]), 0);
  const { bad, first } = acc;
  if (bad > 0)
    throw new SnowdbError(
      'invalid-source',
      `${where}: ${bad} cell(s) outside the valid range ${lo}…${hi} (first: ${data[first]} at row ${Math.floor(first / width)}, column ${first % width})`,
    );
}

/**
 * Ingest one date into a dataset: skip it when its manifest already carries the same source hash
 * and every COG is present (no decompression), or when a later stage is already there (unless
 * forced: `--force` always puts the given file in, so a bad later stage can be undone); else
 * decode, write one COG per variable into a new version folder and link it in (a failure removes it). The date is
 * marked stale in the series store before and after the swap (`refreshSeries` catches up).
 */
export interface IngestDateOptions {
  /** Rebuild an up-to-date date, and put the source in even over a later stage. */
  readonly force: boolean;
  /** Test hook (SNOWDB_TEST_SWAP_PAUSE_MS): a pause between the swap's steps, for crash tests. */
  readonly swapPauseMs?: number | undefined;
}

export async function ingestDate(d: Dataset, src: DateSource, opts: IngestDateOptions): Promise<DateResult> {
  const { force } = opts;
  const source = src.files.map((f) => basename(f)).join(' ');
  const hash = await sourceHash(src.files);
  return withDateLock(d, src.date, async () => {
    const have = await readManifest(d, src.date);
    if (!force && have !== null && have.rank > src.rank)
      return {
        date: iso(src.date),
        action: 'kept-later-stage',
        source,
        message: `a later stage is ingested (${have.fields.SOURCE_STAGE ?? have.rank})`,
      };
    if (!force && have?.source_hash === hash && (await dateComplete(d, src.date)))
      return { date: iso(src.date), action: 'up-to-date', source };
    const staging = await stagingDir(d, src.date);
    let linked = false;
    try {
      const written: string[] = [];
      await ingesterFor(d).decode(d, src, async (variable, data, metadata, declared) => {
        const spec = d.config.variables[variable]!;
        checkRange(data, d.grid.width, spec.nodata, [spec.valid_range, declared], `${source}: ${variable}`);
        await writeCog(join(staging, `${variable}.tif`), d.grid, data, {
          level: 1,
          nodata: spec.nodata,
          description: `${variable} (${spec.unit} × ${spec.scale_factor})`,
          metadata: {
            SOURCE_DATASET: d.name,
            SOURCE_DATE: iso(src.date),
            SOURCE_VARIABLE: variable,
            SOURCE_HASH: hash,
            ...src.fields,
            ...metadata,
          },
        });
        written.push(variable);
      });
      const missing = Object.keys(d.config.variables).filter((v) => !written.includes(v));
      if (missing.length > 0)
        throw new SnowdbError('invalid-source', `${source}: no data for ${missing.join(', ')}`);
      await markSeriesStale(d, iso(src.date));
      await swapIn(
        d,
        src.date,
        staging,
        {
          date: iso(src.date),
          source_hash: hash,
          sources: src.files.map((f) => basename(f)),
          fields: src.fields,
          rank: src.rank,
          variables: written.sort(),
          ingested_at: new Date().toISOString(),
        },
        opts.swapPauseMs,
      );
      linked = true;
      await markSeriesStale(d, iso(src.date));
      return { date: iso(src.date), action: 'ingested', source };
    } finally {
      if (!linked) await rm(staging, { recursive: true, force: true });
    }
  });
}
