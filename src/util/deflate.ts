/**
 * Raw deflate ending with a full flush (byte-aligned, nothing carried over), through one zlib
 * stream per level kept between calls and reset. `deflateRawSync` builds and frees a stream per
 * call (~300 KiB of zlib state each): appending a date to 2,836 series blocks cost 87 ms that way,
 * 32 ms on a kept stream, with identical bytes (measured; BENCHMARKS.md). Driven through
 * `zlib-kept.ts`, as `inflate.ts` is; the public API where a runtime lacks the handle.
 */
import { constants, createDeflate, createDeflateRaw, deflateRawSync, deflateSync } from 'node:zlib';
import { withKeptStream } from './zlib-kept.js';

const keptRaw = new Map<number, ReturnType<typeof createDeflateRaw>>();
const keptZlib = new Map<number, ReturnType<typeof createDeflate>>();
/** Output room reused between calls (grown when a call needs more); results are copied out of it. */
let scratch = Buffer.allocUnsafeSlow(0);

/** Room for one call's output: deflate's worst case for `n` bytes, plus the flush's marker. */
const bound = (n: number) => n + (n >> 8) + 64;

/** `src` raw-deflated at `level`, ending with a full flush (what `deflateRawSync` with `finishFlush: Z_FULL_FLUSH` gives). */
export function deflateRawFlushed(src: Uint8Array, level: number): Buffer {
  return deflateKept(
    keptRaw,
    level,
    () => createDeflateRaw({ level }),
    constants.Z_FULL_FLUSH,
    src,
    () => deflateRawSync(src, { level, finishFlush: constants.Z_FULL_FLUSH }),
  );
}

/** `src` zlib-deflated at `level` (what `deflateSync` gives, byte for byte), on a stream kept per level. */
export function deflateZlib(src: Uint8Array, level: number): Buffer {
  return deflateKept(
    keptZlib,
    level,
    () => createDeflate({ level }),
    constants.Z_FINISH,
    src,
    () => deflateSync(src, { level }),
  );
}

/** `src` through the stream kept under `level` in `kept`, written with `flush` until all is out. */
function deflateKept<S extends { close(): void }>(
  kept: Map<number, S>,
  level: number,
  make: () => S,
  flush: number,
  src: Uint8Array,
  portable: () => Buffer,
): Buffer {
  return withKeptStream(
    kept,
    level,
    make,
    (z) => {
      const chunks: Buffer[] = [];
      let inOff = 0;
      for (;;) {
        if (scratch.length < bound(src.length - inOff))
          scratch = Buffer.allocUnsafeSlow(bound(src.length - inOff));
        z.write(flush, src, inOff, src.length - inOff, scratch, 0, scratch.length);
        if (z.failure() !== undefined) throw new Error(`deflate failed: ${z.failure()}`);
        chunks.push(Buffer.from(scratch.subarray(0, scratch.length - z.state[0]!))); // exact size, copied
        inOff = src.length - z.state[1]!;
        if (z.state[0]! > 0 && z.state[1] === 0) break; // all input taken and room left: flushed (finished)
      }
      return chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks);
    },
    portable,
  );
}
