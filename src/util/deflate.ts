/**
 * Raw deflate ending with a full flush (byte-aligned, nothing carried over), through one zlib
 * stream per level kept between calls and reset. `deflateRawSync` builds and frees a stream per
 * call (~300 KiB of zlib state each): appending a date to 2,836 series blocks cost 87 ms that way,
 * 32 ms on a kept stream, with identical bytes (measured; BENCHMARKS.md). Uses the zlib handle's
 * `writeSync`, as `inflate.ts` does, and falls back to the public API where a runtime lacks it.
 */
import { constants, createDeflateRaw, deflateRawSync } from 'node:zlib';
import type { ZlibInternals } from './inflate.js';

const kept = new Map<number, ReturnType<typeof createDeflateRaw>>();
/** Output room reused between calls (grown when a call needs more); results are copied out of it. */
let scratch = Buffer.allocUnsafeSlow(0);

/** Room for one call's output: deflate's worst case for `n` bytes, plus the flush's marker. */
const bound = (n: number) => n + (n >> 8) + 64;

/** `src` raw-deflated at `level`, ending with a full flush (what `deflateRawSync` with `finishFlush: Z_FULL_FLUSH` gives). */
export function deflateRawFlushed(src: Uint8Array, level: number): Buffer {
  const z = kept.get(level) ?? createDeflateRaw({ level });
  kept.delete(level); // taken: a failure below leaves it closed, never reused
  const { _handle: h, _writeState: state } = z as unknown as ZlibInternals;
  if (h === undefined || state === undefined || typeof h.writeSync !== 'function') {
    z.close();
    return deflateRawSync(src, { level, finishFlush: constants.Z_FULL_FLUSH });
  }
  let failure: string | undefined;
  h.onerror = (message) => {
    failure ??= message;
  };
  let ok = false;
  try {
    const chunks: Buffer[] = [];
    let inOff = 0;
    for (;;) {
      if (scratch.length < bound(src.length - inOff))
        scratch = Buffer.allocUnsafeSlow(bound(src.length - inOff));
      h.writeSync(constants.Z_FULL_FLUSH, src, inOff, src.length - inOff, scratch, 0, scratch.length);
      if (failure !== undefined) throw new Error(`deflate failed: ${failure}`);
      chunks.push(Buffer.from(scratch.subarray(0, scratch.length - state[0]!))); // exact size, copied
      inOff = src.length - state[1]!;
      if (state[0]! > 0 && state[1] === 0) break; // all input taken and room left: flushed
    }
    ok = true;
    return chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks);
  } finally {
    if (ok) {
      (z as unknown as ZlibInternals).reset(); // one per level and thread: calls are synchronous
      kept.set(level, z);
    } else z.close();
  }
}
