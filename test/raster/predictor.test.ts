import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  decodeFloat,
  decodeHorizontal,
  encodeFloat,
  encodeHorizontal,
} from '../../src/raster/tiff/predictor.js';

/** TIFF predictor 3 undone by the definition (TIFF Technical Note 3): byte sums, then planes back to samples. */
function decodeByDefinition(tile: Uint8Array, width: number, height: number, bps: number): Uint8Array {
  const out = new Uint8Array(tile.length);
  const rowBytes = width * bps;
  for (let r = 0; r < height; r++) {
    const sums = new Uint8Array(rowBytes);
    for (let i = 0; i < rowBytes; i++)
      sums[i] = ((i > 0 ? sums[i - 1]! : 0) + tile[r * rowBytes + i]!) & 0xff;
    for (let i = 0; i < width; i++)
      for (let b = 0; b < bps; b++) out[r * rowBytes + i * bps + (bps - 1 - b)] = sums[b * width + i]!;
  }
  return out;
}

/** TIFF predictor 3 by the definition: samples into planes (most significant byte first), then byte differences. */
function encodeByDefinition(tile: Uint8Array, width: number, height: number, bps: number): Uint8Array {
  const out = new Uint8Array(tile.length);
  const rowBytes = width * bps;
  for (let r = 0; r < height; r++) {
    const planes = new Uint8Array(rowBytes);
    for (let i = 0; i < width; i++)
      for (let b = 0; b < bps; b++) planes[b * width + i] = tile[r * rowBytes + i * bps + (bps - 1 - b)]!;
    for (let i = 0; i < rowBytes; i++)
      out[r * rowBytes + i] = (planes[i]! - (i > 0 ? planes[i - 1]! : 0)) & 0xff;
  }
  return out;
}

describe('floating-point predictor (3)', () => {
  // Samples whose bytes change a lot from pixel to pixel, and whose planes' running sums wrap.
  const values = (n: number) =>
    Float64Array.from({ length: n }, (_, i) => Math.sin(i * 12.9898) * 43758.5453 + i);

  for (const [what, bps, width, offset] of [
    ['float64, word-aligned rows', 8, 37, 0],
    ['float32, word-aligned rows', 4, 33, 0],
    ['float32, rows at an odd byte offset (the byte-at-a-time loop)', 4, 33, 1],
    ['float64, rows at an odd byte offset', 8, 37, 3],
    ['16-bit samples, word-aligned rows (the general plane split)', 2, 34, 0],
    ['float32, a row of 3 bytes short of a word multiple', 4, 5, 0],
  ] as const) {
    it(`${what}: encode and decode equal the definition, and decode undoes encode`, () => {
      const height = 6;
      const n = width * height;
      const samples =
        bps === 8
          ? values(n)
          : bps === 4
            ? Float32Array.from(values(n))
            : Uint16Array.from(values(n), (v) => Math.abs(v) % 65536);
      const plain = new Uint8Array(samples.buffer.slice(0));
      const backing = new Uint8Array(offset + n * bps);
      const tile = backing.subarray(offset);
      tile.set(plain);
      encodeFloat(tile, width, height, bps, new Uint8Array(width * bps));
      const encoded = Uint8Array.from(tile);
      assert.notDeepEqual(encoded, plain);
      assert.deepEqual(encoded, encodeByDefinition(plain, width, height, bps));
      decodeFloat(tile, width, height, bps, new Uint8Array(width * bps));
      assert.deepEqual(tile, decodeByDefinition(encoded, width, height, bps));
      assert.deepEqual(tile, plain);
    });
  }
});

describe('horizontal predictor (2)', () => {
  /** Each sample less the one before it in its row, mod 2^(8·bps): TIFF 6.0, section 14. */
  const byDefinition = (samples: number[], width: number, bps: number) =>
    samples.map((v, i) => (i % width === 0 ? v : (v - samples[i - 1]! + 2 ** (8 * bps)) % 2 ** (8 * bps)));

  for (const [what, bps, width, offset] of [
    ['16-bit, even rows at a word boundary (two samples a word)', 2, 34, 0],
    ['16-bit, odd rows (a sample at a time)', 2, 33, 0],
    ['16-bit, even rows at a 2-byte offset (a sample at a time)', 2, 34, 2],
    ['8-bit', 1, 33, 0],
    ['32-bit', 4, 33, 0],
  ] as const) {
    it(`${what}: encode equals the definition and decode undoes it, wrapping both ways`, () => {
      const height = 5;
      const n = width * height;
      const top = 2 ** (8 * bps);
      // Extremes next to each other, so differences and sums wrap in every lane.
      const samples = Array.from({ length: n }, (_, i) =>
        i % 3 === 0
          ? top - 1 - (i % 7)
          : i % 3 === 1
            ? i % 5
            : Math.floor((Math.sin(i) * 0.5 + 0.5) * (top - 1)),
      );
      const View = bps === 1 ? Uint8Array : bps === 2 ? Uint16Array : Uint32Array;
      const backing = new ArrayBuffer(offset + n * bps);
      const typed = new View(backing, offset, n);
      typed.set(samples);
      const tile = new Uint8Array(backing, offset, n * bps);
      encodeHorizontal(tile, width, height, bps);
      assert.deepEqual([...typed], byDefinition(samples, width, bps));
      decodeHorizontal(tile, width, height, bps);
      assert.deepEqual([...typed], samples);
    });
  }
});
