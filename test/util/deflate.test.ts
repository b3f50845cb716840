import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { describe, it } from 'node:test';
import { constants, deflateRawSync, deflateSync, inflateRawSync, inflateSync } from 'node:zlib';
import { deflateRawFlushed, deflateZlib } from '../../src/util/deflate.js';

const reference = (src: Uint8Array, level: number) =>
  deflateRawSync(src, { level, finishFlush: constants.Z_FULL_FLUSH });

describe('deflateRawFlushed and deflateZlib', () => {
  it('gives the bytes deflateRawSync gives with a full flush, stream after stream on the kept ones', () => {
    // Snow-like int16 samples (runs of zeros, small values), incompressible bytes, a single byte,
    // nothing, and a 1 MB buffer: each level's stream reused in turn, interleaved.
    const snow = new Int16Array(8 * 1024).map((_, i) => (i % 7 === 0 ? 0 : (i * 13) % 400));
    const inputs = [
      new Uint8Array(snow.buffer),
      randomBytes(16 * 1024),
      Uint8Array.of(42),
      new Uint8Array(0),
      randomBytes(1 << 20),
      new Uint8Array(2048),
    ];
    for (let round = 0; round < 2; round++)
      for (const src of inputs)
        for (const level of [1, 6]) {
          const ours = deflateRawFlushed(src, level);
          assert.ok(ours.equals(reference(src, level)), `${src.length} bytes, level ${level}`);
          // A full flush ends byte-aligned with an empty stored block: inflating needs no final block.
          assert.ok(
            inflateRawSync(Buffer.concat([ours, Buffer.from([0x03, 0x00])])).equals(src),
            `${src.length} bytes round trip`,
          );
          // TIFF tiles: a finished zlib stream, the bytes deflateSync gives.
          const tile = deflateZlib(src, level);
          assert.ok(tile.equals(deflateSync(src, { level })), `zlib: ${src.length} bytes, level ${level}`);
          assert.ok(inflateSync(tile).equals(src), `zlib: ${src.length} bytes round trip`);
        }
  });
});
