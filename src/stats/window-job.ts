/**
 * A date's raster read onto a window in a worker of the compute pool (a job of `dated-reads.ts`):
 * plain data in, the pixels' buffer transferred back.
 */
import { readOnto } from '../datasets/read-onto.js';
import { localStore } from '../io/store.js';
import { DTYPES, type DType, dtypeOf } from '../raster/dtype.js';
import type { Window } from '../raster/grid.js';

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
