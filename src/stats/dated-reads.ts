/**
 * A run of dates' rasters read onto one window, in date order, the next ones decoded on the
 * runtime's compute pool while this thread adds up the one before (an every-basin sweep: inflate,
 * predictor and window copy leave the main thread, and their garbage with them). Buffers go back
 * and forth (transferred, never copied): a worker decodes into a window's buffer this thread is
 * done with, so no read makes fresh pages.
 */
import { dateIncomplete, readOnto } from '../datasets/read-onto.js';
import type { Dataset } from '../datasets/registry.js';
import { DTYPES, dtypeOf, type TypedArray } from '../raster/dtype.js';
import type { Window } from '../raster/grid.js';
import { compute, computeThreads } from './compute-pool.js';
import type { WindowJob } from './window-job.js';

/** Dates at least this many are read on the pool (fewer: the worker round trip is not paid back). */
const POOLED_FROM = 4;

/**
 * Each of `dates`' `variable` rasters onto `window`, in order; a value is valid until the next is
 * asked for (its buffer is then reused). Local datasets read `ahead` dates on the pool (one per
 * thread, at most 2); others, and a read the pool could not make, read here (the same bytes).
 * @throws SnowdbError `date-incomplete` for a date without its raster.
 */
export async function* datedReads(
  d: Dataset,
  variable: string,
  dates: readonly string[],
  window: Window,
  fill: number,
  signal?: AbortSignal,
): AsyncGenerator<TypedArray> {
  const here = async (date: string) => {
    const r = await readOnto(d.store, d.paths.cog(date, variable), null, window, fill);
    if (r === null) throw dateIncomplete(d.name, date, variable);
    return r.data;
  };
  if (!d.store.local || dates.length < POOLED_FROM) {
    for (const date of dates) {
      signal?.throwIfAborted();
      yield await here(date);
    }
    return;
  }
  const ahead = Math.min(2, computeThreads(d.runtime));
  const free: TypedArray[] = [];
  const pooled = (date: string): Promise<TypedArray> => {
    const done = free.pop();
    const into = done && { buffer: done.buffer as ArrayBuffer, dtype: dtypeOf(done) };
    const job: WindowJob = { path: d.paths.cog(date, variable), window, fill, ...(into && { into }) };
    return compute(d.runtime, 'window', job, signal, into ? [into.buffer] : []).then(
      (r) => {
        if (r === null) throw dateIncomplete(d.name, date, variable);
        return new DTYPES[r.dtype].ctor(r.buffer);
      },
      (e: unknown) => {
        if (signal?.aborted) throw e;
        return here(date); // the pool failed (not the read): this thread reads it, or names what is wrong
      },
    );
  };
  // A read ahead may fail before its turn: it is marked handled now and still fails when awaited.
  const start = (date: string) => {
    const p = pooled(date);
    p.catch(() => {});
    return p;
  };
  const inFlight: Promise<TypedArray>[] = [];
  let next = 0;
  while (next < dates.length && inFlight.length < ahead) inFlight.push(start(dates[next++]!));
  while (inFlight.length > 0) {
    const data = await inFlight.shift()!;
    if (next < dates.length) inFlight.push(start(dates[next++]!));
    yield data;
    if (data.byteOffset === 0 && data.byteLength === data.buffer.byteLength) free.push(data);
  }
}
