/**
 * Inflate a whole deflate stream straight into a buffer the caller owns. Node's zlib API returns
 * fresh output buffers (one per chunk, then a concatenation): for a 46 MB SNODAS grid that is 46 MB
 * of new pages per product, whose first-touch faults cost more than the inflate itself (one SNODAS
 * date: 72,000 faults, 0.8 s of system time, against 11,500 faults when the output is a reused
 * buffer; BENCHMARKS.md). Node has no public call that inflates into a given buffer, so this uses
 * the zlib handle's `writeSync` (the call Node's own `zlibBufferSync` makes, stable from Node 12 to
 * 26), and falls back to the public API (correct, only slower) where a runtime lacks it.
 */
import {
  constants,
  createGunzip,
  createInflate,
  createInflateRaw,
  gunzipSync,
  inflateRawSync,
  inflateSync,
} from 'node:zlib';

/** Stream framing: gzip member(s), zlib (RFC 1950), or raw deflate (RFC 1951). */
export type Framing = 'gzip' | 'zlib' | 'raw';

/** Why a stream did not inflate into its buffer. */
export class InflateError extends Error {
  constructor(
    /** `overflow`: more output than the buffer holds; `corrupt`: zlib refused the stream (truncated included). */
    readonly reason: 'overflow' | 'corrupt',
    message: string,
  ) {
    super(message);
  }
}

/** A Node zlib stream's handle: `writeSync` is the call Node's own `zlibBufferSync` makes. */
interface Handle {
  writeSync(
    flush: number,
    src: Uint8Array,
    inOff: number,
    inLen: number,
    out: Uint8Array,
    outOff: number,
    outLen: number,
  ): void;
  onerror: (message: string, errno: number, code?: string) => void;
}
/** What `inflateInto` and `deflateRawFlushed` (deflate.ts) use of a zlib stream beyond its public API. */
export interface ZlibInternals {
  _handle?: Handle;
  /** [output room left, input left] after a `writeSync`. */
  _writeState?: Uint32Array;
  /** Back to a fresh stream's state (zlib's inflateReset / deflateReset): public on every zlib stream. */
  reset(): void;
  close(): void;
}

const STREAMS = { gzip: createGunzip, zlib: createInflate, raw: createInflateRaw } as const;
const SYNC = { gzip: gunzipSync, zlib: inflateSync, raw: inflateRawSync } as const;

/**
 * One stream per framing kept between calls and reset: building and freeing a zlib stream per
 * call cost ~20 % of inflating a 16 KB series block (measured, 1,200 blocks: 78–100 ms → 62–76).
 */
const kept: Partial<Record<Framing, ReturnType<(typeof STREAMS)[Framing]>>> = {};

/** One spare output byte: a stream that still writes into it has more than the buffer holds. */
const probe = new Uint8Array(1);

/**
 * Inflate all of `src` into the start of `out`.
 * @returns the number of bytes written.
 * @throws InflateError `overflow` when the stream holds more than `out.length` bytes (nothing past
 *   `out` is written), `corrupt` when zlib refuses it or it ends early.
 */
export function inflateInto(framing: Framing, src: Uint8Array, out: Uint8Array): number {
  const z = kept[framing] ?? STREAMS[framing]();
  delete kept[framing]; // taken: a failure below leaves it closed, never reused
  const { _handle: h, _writeState: state } = z as unknown as ZlibInternals;
  if (h === undefined || state === undefined || typeof h.writeSync !== 'function') {
    z.close();
    return inflateIntoPortable(framing, src, out);
  }
  let failure: string | undefined;
  h.onerror = (message) => {
    failure ??= message;
  };
  let ok = false;
  try {
    h.writeSync(constants.Z_FINISH, src, 0, src.length, out, 0, out.length);
    if (failure !== undefined) throw new InflateError('corrupt', failure);
    const written = out.length - state[0]!;
    if (state[0] === 0) {
      // Full buffer: the stream ends here only if one more byte of room stays empty.
      h.writeSync(constants.Z_FINISH, src, src.length - state[1]!, state[1]!, probe, 0, 1);
      if (failure !== undefined) throw new InflateError('corrupt', failure);
      if (state[0] === 0) throw new InflateError('overflow', `inflates past ${out.length} bytes`);
    } // else output room left: the stream ended (or zlib said why not)
    ok = true;
    return written;
  } finally {
    if (ok) {
      (z as unknown as ZlibInternals).reset(); // kept for the next stream of this framing (one per thread: calls are synchronous)
      kept[framing] = z;
    } else z.close();
  }
}

/** `inflateInto` through Node's public API: a fresh buffer, copied into `out` (same results and errors). */
export function inflateIntoPortable(framing: Framing, src: Uint8Array, out: Uint8Array): number {
  let data: Buffer;
  try {
    data = SYNC[framing](src, { maxOutputLength: out.length + 1 });
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ERR_BUFFER_TOO_LARGE')
      throw new InflateError('overflow', `inflates past ${out.length} bytes`);
    throw new InflateError('corrupt', (e as Error).message);
  }
  if (data.length > out.length) throw new InflateError('overflow', `inflates past ${out.length} bytes`);
  out.set(data);
  return data.length;
}
