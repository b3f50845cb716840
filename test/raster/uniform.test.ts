import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { TypedArray } from '../../src/raster/dtype.js';
import { RUN, uniformImage, uniformSquare } from '../../src/raster/uniform.js';
import { seeded } from '../helpers/raster.js';

/** Brute force: every sample of the square has the bit pattern of its first (byte by byte). */
function plainUniform(data: TypedArray, at: number, width: number, size: number): boolean {
  const bps = data.BYTES_PER_ELEMENT;
  const b = new Uint8Array(data.buffer, data.byteOffset, data.byteLength);
  for (let r = 0; r < size; r++)
    for (let c = 0; c < size; c++)
      for (let k = 0; k < bps; k++) if (b[(at + r * width + c) * bps + k] !== b[at * bps + k]) return false;
  return true;
}

/**
 * An image of blocks of one value (some the same value as a neighbour), each block spoiled at a
 * seeded sample with probability ½: a mix of uniform squares, squares one sample off (first row,
 * middle, last sample), runs of the map that straddle squares, and one whole row of another value.
 */
function blocks(
  make: (n: number) => TypedArray,
  width: number,
  height: number,
  size: number,
  values: number[],
) {
  const rnd = seeded(width * 7 + size);
  const data = make(width * height);
  for (let r = 0; r < height; r++)
    for (let c = 0; c < width; c++)
      data[r * width + c] = values[(Math.floor(r / size) * 3 + Math.floor(c / size)) % values.length]!;
  for (let by = 0; by + size <= height; by += size)
    for (let bx = 0; bx + size <= width; bx += size) {
      if (rnd() < 0.5) continue;
      const pick = rnd();
      const [r, c] =
        pick < 0.3
          ? [0, Math.floor(rnd() * size)]
          : pick < 0.6
            ? [size - 1, size - 1]
            : [Math.floor(rnd() * size), Math.floor(rnd() * size)];
      const other = Object.is(values[1], data[(by + r) * width + bx + c]) ? values[2]! : values[1]!;
      // A fifth of the spoiled blocks: column c all along (every row equals the first, which is not uniform).
      if (rnd() < 0.2) for (let k = 0; k < size; k++) data[(by + k) * width + bx + c] = other;
      else data[(by + r) * width + bx + c] = other;
    }
  // A whole image row of another value: runs inside it are uniform, of a value not the squares'.
  data.fill(values[1]!, (size + 3) * width, (size + 4) * width);
  return data;
}

describe('uniform squares found in the image (the COG writer skips copying them)', () => {
  const cases: [string, (n: number) => TypedArray, number[]][] = [
    ['uint8', (n) => new Uint8Array(n), [0, 255, 7]],
    ['int16', (n) => new Int16Array(n), [-9999, 0, 12]],
    ['uint16', (n) => new Uint16Array(n), [65535, 0, 300]],
    ['float32 (NaN, 0 and −0)', (n) => new Float32Array(n), [Number.NaN, 0, -0]],
  ];
  for (const [name, make, values] of cases)
    it(`${name}: the same answer as a sample-by-sample check, squares across runs of ${RUN}`, () => {
      // Odd widths: rows start anywhere in a run, as a CONUS grid's (6935 samples) do.
      for (const [width, height, size] of [
        [1031, 300, 64],
        [517, 260, 128],
        [4099, 80, 16],
      ] as const) {
        const data = blocks(make, width, height, size, values);
        const img = uniformImage(data)!;
        let uniform = 0;
        let checked = 0;
        for (let r0 = 0; r0 + size <= height; r0 += size)
          for (let c0 = 0; c0 + size <= width; c0 += size) {
            const at = r0 * width + c0;
            const want = plainUniform(data, at, width, size);
            assert.equal(
              uniformSquare(img, at, width, size),
              want,
              `${name} ${width}×${height} square at ${r0},${c0}`,
            );
            uniform += want ? 1 : 0;
            checked++;
          }
        // Both kinds occur in every image (the test is not vacuous).
        assert.ok(uniform > 0 && uniform < checked, `${uniform} of ${checked} uniform`);
      }
    });

  it('8-byte samples have no run map (the writer copies their tiles as before)', () => {
    assert.equal(uniformImage(new Float64Array(10)), undefined);
  });
});
