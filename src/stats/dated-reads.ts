/**
 * A run of dates' rasters read onto one window, in date order, the next ones decoded on the
 * runtime's compute pool while this thread adds up the one before (an every-basin sweep: inflate,
 * predictor and window copy leave the main thread, and their garbage with them). Buffers go back
 * and forth (transferred, never copied): a worker decodes into a window's buffer this thread is
 * done with, so no read makes fresh pages.
 */
import { dateIncomplete, readOnto } from '../datasets/read-onto.js';
import type { Dataset } from '../datasets/registry.js';
import { localStore } from '../io/store.js';
import { DTYPES, type DType, type TypedArray } from '../raster/dtype.js';
import type { Window } from '../raster/grid.js';
import { compute, computeThreads } from './compute-pool.js';

/** One read of the pool: a local raster onto `window` (`fill` outside it), into `into` when it fits. */
export interface WindowJob {
  readonly path: string;
  readonly window: Window;
  readonly fill: number;
  /** A buffer done with, and the type of its samples. */
  readonly into?: { readonly buffer: ArrayBuffer; readonly dtype: DType };
}

/** The pixels read (`dtype` samples filling `buffer`), or null when the raster is absent. */
export type WindowRead = { readonly buffer: ArrayBuffer; readonly dtype: DType } | null;

const dtypeOf = (a: TypedArray): DType =>
  (Object.keys(DTYPES) as DType[]).find((t) => a instanceof DTYPES[t].ctor) ?? 'float64';

/** The job, in a worker: the read, with the buffer to transfer back (its own, whole). */
export async function readWindowJob(job: WindowJob): Promise<[WindowRead, ArrayBuffer[]]> {
  const into = job.into && new DTYPES[job.into.dtype].ctor(job.into.buffer);
  const r = await readOnto(localStore, job.path, null, job.window, job.fill, { into });
  if (r === null) return [null, []];
  let data = r.data;
  if (data.byteOffset !== 0 || data.byteLength !== data.buffer.byteLength) data = data.slice();
  const buffer = data.buffer as ArrayBuffer;
  return [{ buffer, dtype: dtypeOf(data) }, [buffer]];
}

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
