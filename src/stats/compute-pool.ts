/**
 * The runtime's compute pool: one set of worker threads (SNOWDB_THREADS wide) for the stats work
 * that leaves the main thread (series scans, drawn polygons' preparation, a sweep's date reads), so
 * none adds threads (and their memory) beside the others.
 */
import type { Runtime } from '../util/runtime.js';
import type { DrawnJob, DrawnRefused, PreparedDrawn } from './drawn-prepare.js';
import type { ScanJob, ScanResult } from './scan.js';
import type { WindowJob, WindowRead } from './window-job.js';

/** A job of the pool, by kind. */
export type ComputeJob =
  | { readonly kind: 'scan'; readonly job: ScanJob }
  | { readonly kind: 'drawn'; readonly job: DrawnJob }
  | { readonly kind: 'window'; readonly job: WindowJob };

/** What each kind answers. */
interface Answers {
  readonly scan: ScanResult;
  readonly drawn: PreparedDrawn | DrawnRefused;
  readonly window: WindowRead;
}

/**
 * The pool; a small young generation (its jobs make short-lived garbage: RSS stays ~40 MB lower
 * per worker), cooperative (an abandoned scan stops at its next page, never terminated mid-inflate).
 */
function pool(rt: Runtime) {
  return rt.pool<ComputeJob, unknown>(new URL('./compute.worker.js', import.meta.url), {
    idleMs: 10_000,
    youngMb: 2,
    graceMs: 30_000,
  });
}

/** Threads the pool runs at most. */
export const computeThreads = (rt: Runtime): number => pool(rt).size;

/**
 * Run one job on a free worker of `rt`'s pool (waiting for one), the buffers in `transfer` moved
 * with it; rejects when `signal` aborts.
 */
export function compute<K extends ComputeJob['kind']>(
  rt: Runtime,
  kind: K,
  job: Extract<ComputeJob, { kind: K }>['job'],
  signal?: AbortSignal,
  transfer?: readonly ArrayBuffer[],
): Promise<Answers[K]> {
  return pool(rt).run({ kind, job } as ComputeJob, signal, transfer) as Promise<Answers[K]>;
}
