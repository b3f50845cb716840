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
import { withKeptStream } from './zlib-kept.js';

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

const STREAMS = { gzip: createGunzip, zlib: createInflate, raw: createInflateRaw } as const;
const SYNC = { gzip: gunzipSync, zlib: inflateSync, raw: inflateRawSync } as const;

/** One stream per framing, kept between calls (zlib-kept.ts). */
const kept = new Map<Framing, ReturnType<(typeof STREAMS)[Framing]>>();

/** One spare output byte: a stream that still writes into it has more than the buffer holds. */
const probe = new Uint8Array(1);

/**
 * Inflate all of `src` into the start of `out`.
 * @returns the number of bytes written.
 * @throws InflateError `overflow` when the stream holds more than `out.length` bytes (nothing past
 *   `out` is written), `corrupt` when zlib refuses it or it ends early.
 */
export function inflateInto(framing: Framing, src: Uint8Array, out: Uint8Array): number {
  return withKeptStream(
    kept,
    framing,
    () => STREAMS[framing](),
    (z) => {
      z.write(constants.Z_FINISH, src, 0, src.length, out, 0, out.length);
      if (z.failure() !== undefined) throw new InflateError('corrupt', z.failure()!);
      const written = out.length - z.state[0]!;
      if (z.state[0] === 0) {
        // Full buffer: the stream ends here only if one more byte of room stays empty.
        z.write(constants.Z_FINISH, src, src.length - z.state[1]!, z.state[1]!, probe, 0, 1);
        if (z.failure() !== undefined) throw new InflateError('corrupt', z.failure()!);
        if (z.state[0] === 0) throw new InflateError('overflow', `inflates past ${out.length} bytes`);
      } // else output room left: the stream ended (or zlib said why not)
      return written;
    },
    () => inflateIntoPortable(framing, src, out),
  );
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
