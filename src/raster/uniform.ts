/**
 * Finding squares of one value in an image without copying them out: most tiles of a CONUS grid
 * are nodata or snow-free, and a tile of one value encodes to the same bytes every time. Values
 * are compared as bit patterns (NaN equals NaN; 0 and −0 differ).
 */

import { repeats } from '../util/bytes.js';
import type { TypedArray } from './dtype.js';

/** Samples per run of the run map: one native compare each. */
export const RUN = 1024;

/** An image seen as bytes, as sample-wide unsigned words, and as runs of one value. */
export interface UniformImage {
  readonly bytes: Buffer;
  readonly bps: number;
  /** Sample i's bit pattern (samples of 1, 2 or 4 bytes). */
  readonly words: Uint8Array | Uint16Array | Uint32Array;
  /** Per run of RUN samples (the last may be short): 1 when its samples are one bit pattern. */
  readonly runs: Uint8Array;
}

/** The run map of a whole image: one native compare per RUN samples; none for 8-byte samples. */
export function uniformImage(data: TypedArray): UniformImage | undefined {
  const bps = data.BYTES_PER_ELEMENT;
  const { buffer, byteOffset, length } = data;
  const words =
    bps === 1
      ? new Uint8Array(buffer, byteOffset, length)
      : bps === 2
        ? new Uint16Array(buffer, byteOffset, length)
        : bps === 4
          ? new Uint32Array(buffer, byteOffset, length)
          : undefined;
  if (words === undefined) return undefined;
  const bytes = Buffer.from(buffer, byteOffset, data.byteLength);
  const runs = new Uint8Array(Math.ceil(length / RUN));
  for (let k = 0; k < runs.length; k++) {
    const o = k * RUN * bps;
    runs[k] = repeats(bytes, bps, o, Math.min(bytes.length, o + RUN * bps)) ? 1 : 0;
  }
  return { bytes, bps, words, runs };
}

/**
 * Whether the size × size square of `img` from sample `at` (rows `width` samples apart) holds one
 * bit pattern: a row whose runs are of that value is known from the run map; any other row is
 * compared natively with the square's first row.
 */
export function uniformSquare(img: UniformImage, at: number, width: number, size: number): boolean {
  const { bytes, bps, words, runs } = img;
  const v = words[at]!;
  const rowBytes = size * bps;
  const a = at * bps;
  let firstChecked = false;
  for (let r = 0, s = at; r < size; r++, s += width) {
    let known = true;
    for (let k = Math.floor(s / RUN), k1 = Math.floor((s + size - 1) / RUN); k <= k1; k++)
      if (runs[k] !== 1 || words[k * RUN] !== v) {
        known = false;
        break;
      }
    if (known) continue;
    if (!firstChecked) {
      // The first row's samples all v: then any row equal to it is.
      if (!repeats(bytes, bps, a, a + rowBytes)) return false;
      firstChecked = true;
    }
    const o = s * bps;
    if (o !== a && bytes.compare(bytes, a, a + rowBytes, o, o + rowBytes) !== 0) return false;
  }
  return true;
}

/**
 * The key (hex bytes of the value) of a tile whose samples (`bps` bytes each) are all one value,
 * NaN included, else undefined: the first row is compared in JS, which rejects most tiles at once,
 * then the tile against itself shifted by a row, one native memcmp (each row equals the one above).
 */
export function uniformKey(bytes: Uint8Array, bps: number, tileSize: number): string | undefined {
  const rowBytes = tileSize * bps;
  for (let i = bps; i < rowBytes; i++) if (bytes[i] !== bytes[i - bps]) return undefined;
  if (!repeats(bytes, rowBytes)) return undefined;
  return Buffer.from(bytes.buffer, bytes.byteOffset, bps).toString('hex');
}
