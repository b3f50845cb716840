/**
 * Raw deflate ending with a full flush (byte-aligned, nothing carried over), through one zlib
 * stream per level kept between calls and reset. `deflateRawSync` builds and frees a stream per
 * call (~300 KiB of zlib state each): appending a date to 2,836 series blocks cost 87 ms that way,
 * 32 ms on a kept stream, with identical bytes (measured; BENCHMARKS.md). Driven through
 * `zlib-kept.ts`, as `inflate.ts` is; the public API where a runtime lacks the handle.
 */
import { constants, createDeflateRaw, deflateRawSync } from 'node:zlib';
import { withKeptStream } from './zlib-kept.js';

const kept = new Map<number, ReturnType<typeof createDeflateRaw>>();
/** Output room reused between calls (grown when a call needs more); results are copied out of it. */
let scratch = Buffer.allocUnsafeSlow(0);

/** Room for one call's output: deflate's worst case for `n` bytes, plus the flush's marker. */
const bound = (n: number) => n + (n >> 8) + 64;

/** `src` raw-deflated at `level`, ending with a full flush (what `deflateRawSync` with `finishFlush: Z_FULL_FLUSH` gives). */
export function deflateRawFlushed(src: Uint8Array, level: number): Buffer {
  return withKeptStream(
    kept,
    level,
    () => createDeflateRaw({ level }),
    (z) => {
      const chunks: Buffer[] = [];
      let inOff = 0;
      for (;;) {
        if (scratch.length < bound(src.length - inOff))
          scratch = Buffer.allocUnsafeSlow(bound(src.length - inOff));
        z.write(constants.Z_FULL_FLUSH, src, inOff, src.length - inOff, scratch, 0, scratch.length);
        if (z.failure() !== undefined) throw new Error(`deflate failed: ${z.failure()}`);
        chunks.push(Buffer.from(scratch.subarray(0, scratch.length - z.state[0]!))); // exact size, copied
        inOff = src.length - z.state[1]!;
        if (z.state[0]! > 0 && z.state[1] === 0) break; // all input taken and room left: flushed
      }
      return chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks);
    },
    () => deflateRawSync(src, { level, finishFlush: constants.Z_FULL_FLUSH }),
  );
}
