/**
 * TIFF predictors on one tile of little-endian samples, in place.
 * 2 = horizontal differencing per sample; 3 = floating point (TIFF Technical Note 3):
 * each row's bytes split into planes, most significant first, then byte-wise differencing.
 */

/** Apply predictor 2 to a tile of `bytesPerSample`-byte integers (width samples per row). */
export function encodeHorizontal(
  tile: Uint8Array,
  width: number,
  height: number,
  bytesPerSample: number,
): void {
  if (bytesPerSample === 1) {
    for (let r = 0; r < height; r++) {
      const o = r * width;
      for (let i = width - 1; i > 0; i--) tile[o + i] = (tile[o + i]! - tile[o + i - 1]!) & 0xff;
    }
  } else if (bytesPerSample === 2) {
    if (byWordPairs(tile, width, height, difference16)) return;
    const a = new Uint16Array(tile.buffer, tile.byteOffset, width * height);
    for (let r = 0; r < height; r++) {
      const o = r * width;
      for (let i = width - 1; i > 0; i--) a[o + i] = (a[o + i]! - a[o + i - 1]!) & 0xffff;
    }
  } else {
    const a = new Uint32Array(tile.buffer, tile.byteOffset, width * height);
    for (let r = 0; r < height; r++) {
      const o = r * width;
      for (let i = width - 1; i > 0; i--) a[o + i] = (a[o + i]! - a[o + i - 1]!) >>> 0;
    }
  }
}

/** Undo predictor 2. */
export function decodeHorizontal(
  tile: Uint8Array,
  width: number,
  height: number,
  bytesPerSample: number,
): void {
  if (bytesPerSample === 1) {
    for (let r = 0; r < height; r++) {
      const o = r * width;
      for (let i = 1; i < width; i++) tile[o + i] = (tile[o + i]! + tile[o + i - 1]!) & 0xff;
    }
  } else if (bytesPerSample === 2) {
    if (byWordPairs(tile, width, height, prefixSum16)) return;
    const a = new Uint16Array(tile.buffer, tile.byteOffset, width * height);
    for (let r = 0; r < height; r++) {
      const o = r * width;
      for (let i = 1; i < width; i++) a[o + i] = (a[o + i]! + a[o + i - 1]!) & 0xffff;
    }
  } else if (bytesPerSample === 4) {
    const a = new Uint32Array(tile.buffer, tile.byteOffset, width * height);
    for (let r = 0; r < height; r++) {
      const o = r * width;
      for (let i = 1; i < width; i++) a[o + i] = (a[o + i]! + a[o + i - 1]!) >>> 0;
    }
  } else {
    const a = new BigUint64Array(tile.buffer, tile.byteOffset, width * height);
    for (let r = 0; r < height; r++) {
      const o = r * width;
      for (let i = 1; i < width; i++) a[o + i] = BigInt.asUintN(64, a[o + i]! + a[o + i - 1]!);
    }
  }
}

/**
 * Run `each` on every row of 16-bit samples taken two a word (the row's words [w0, w1)) and say
 * so; false, touching nothing, where rows cannot be taken so (big-endian host, unaligned tile, odd
 * width).
 */
function byWordPairs(
  tile: Uint8Array,
  width: number,
  height: number,
  each: (words: Uint32Array, w0: number, w1: number) => void,
): boolean {
  if (!LITTLE_ENDIAN || width % 2 !== 0 || tile.byteOffset % 4 !== 0) return false;
  const words = new Uint32Array(tile.buffer, tile.byteOffset, (width * height) >> 1);
  for (let r = 0; r < height; r++) each(words, (r * width) >> 1, ((r + 1) * width) >> 1);
  return true;
}
const LOW15 = 0x7fff7fff;
const HIGH16 = 0x80008000;

/**
 * Predictor 2 on one row of 16-bit samples held two a word, words [w0, w1) in place: each sample
 * less the one before it, mod 2^16, both halves at once (no borrow across halves).
 */
function difference16(words: Uint32Array, w0: number, w1: number): void {
  let last = 0; // the previous word's high sample, 0…65535
  for (let i = w0; i < w1; i++) {
    const x = words[i]!;
    const y = (x << 16) | last;
    words[i] = ((x | HIGH16) - (y & LOW15)) ^ ((x ^ ~y) & HIGH16);
    last = x >>> 16;
  }
}

/** Undo difference16: running sums mod 2^16 of the row's samples, two a word. */
function prefixSum16(words: Uint32Array, w0: number, w1: number): void {
  let carry = 0; // the sum so far, 0…65535
  for (let i = w0; i < w1; i++) {
    let y = words[i]!;
    let z = y << 16;
    y = ((y & LOW15) + (z & LOW15)) ^ ((y ^ z) & HIGH16);
    z = Math.imul(carry, 0x00010001);
    y = ((y & LOW15) + (z & LOW15)) ^ ((y ^ z) & HIGH16);
    words[i] = y;
    carry = y >>> 16;
  }
}

/** Apply predictor 3; `scratch` must hold one row (width × bytesPerSample bytes). */
export function encodeFloat(
  tile: Uint8Array,
  width: number,
  height: number,
  bps: number,
  scratch: Uint8Array,
): void {
  const rowBytes = width * bps;
  const words = scratchWords(tile, scratch, rowBytes);
  for (let r = 0; r < height; r++) {
    const row = tile.subarray(r * rowBytes, (r + 1) * rowBytes);
    const row32 = words && new Uint32Array(tile.buffer, row.byteOffset, rowBytes >> 2);
    // Plane b holds byte (bps-1-b) of each little-endian sample: most significant plane first.
    if (bps === 4 && row32) deinterleave4Words(row32, scratch, width);
    else if (bps === 8) deinterleave8(row, scratch, width);
    else
      for (let i = 0; i < width; i++) {
        for (let b = 0; b < bps; b++) scratch[b * width + i] = row[i * bps + (bps - 1 - b)]!;
      }
    if (words && row32) differenceWords(words, row32);
    else {
      for (let i = rowBytes - 1; i > 0; i--) row[i] = (scratch[i]! - scratch[i - 1]!) & 0xff;
      row[0] = scratch[0]!;
    }
  }
}

/** Undo predictor 3; `scratch` must hold one row. */
export function decodeFloat(
  tile: Uint8Array,
  width: number,
  height: number,
  bps: number,
  scratch: Uint8Array,
): void {
  const rowBytes = width * bps;
  const words = scratchWords(tile, scratch, rowBytes);
  for (let r = 0; r < height; r++) {
    const row = tile.subarray(r * rowBytes, (r + 1) * rowBytes);
    const row32 = words && new Uint32Array(tile.buffer, row.byteOffset, rowBytes >> 2);
    if (row32 && words) prefixSumWords(row32, words);
    else {
      scratch[0] = row[0]!;
      for (let i = 1; i < rowBytes; i++) scratch[i] = (scratch[i - 1]! + row[i]!) & 0xff;
    }
    if (bps === 8) interleave8(row, scratch, width);
    else if (bps === 4 && row32) interleave4Words(row32, scratch, width);
    else
      for (let i = 0; i < width; i++) {
        for (let b = 0; b < bps; b++) row[i * bps + (bps - 1 - b)] = scratch[b * width + i]!;
      }
  }
}

const LITTLE_ENDIAN = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1;
const LOW7 = 0x7f7f7f7f;
const HIGH = 0x80808080;

/**
 * Running byte sums mod 256 of a row, four bytes a word (the first byte in the low bits): each
 * word's own prefix by two shifted adds, then the carried-in byte, every add byte-wise (no carry
 * across bytes). Equal to `out[i] = (out[i − 1] + row[i]) & 0xff` over the bytes.
 */
function prefixSumWords(row: Uint32Array, out: Uint32Array): void {
  let carry = 0; // the last byte's sum so far, 0…255
  for (let i = 0; i < row.length; i++) {
    let y = row[i]!;
    let z = y << 8;
    y = ((y & LOW7) + (z & LOW7)) ^ ((y ^ z) & HIGH);
    z = y << 16;
    y = ((y & LOW7) + (z & LOW7)) ^ ((y ^ z) & HIGH);
    z = Math.imul(carry, 0x01010101);
    y = ((y & LOW7) + (z & LOW7)) ^ ((y ^ z) & HIGH);
    out[i] = y;
    carry = y >>> 24;
  }
}

/**
 * Scratch as words, where a tile's rows and the scratch can be taken four bytes at a time
 * (little-endian host, word-aligned, rows a whole number of words: ~2.5× faster); else null.
 */
function scratchWords(tile: Uint8Array, scratch: Uint8Array, rowBytes: number): Uint32Array | null {
  return LITTLE_ENDIAN && rowBytes % 4 === 0 && tile.byteOffset % 4 === 0 && scratch.byteOffset % 4 === 0
    ? new Uint32Array(scratch.buffer, scratch.byteOffset, rowBytes >> 2)
    : null;
}

/**
 * Byte differences of a row, four bytes a word: each byte less the byte before it (0 before the
 * first), mod 256, every subtract byte-wise (no borrow across bytes). Equal to
 * `out[i] = (row[i] − row[i − 1]) & 0xff` over the bytes.
 */
function differenceWords(row: Uint32Array, out: Uint32Array): void {
  let last = 0; // the previous word's top byte, 0…255
  for (let i = 0; i < row.length; i++) {
    const x = row[i]!;
    const y = (x << 8) | last;
    out[i] = ((x | HIGH) - (y & LOW7)) ^ ((x ^ ~y) & HIGH);
    last = x >>> 24;
  }
}

/** Little-endian 8-byte samples into planes (most significant first), unrolled. */
function deinterleave8(row: Uint8Array, planes: Uint8Array, width: number): void {
  const w = width;
  for (let i = 0, o = 0; i < w; i++, o += 8) {
    planes[7 * w + i] = row[o]!;
    planes[6 * w + i] = row[o + 1]!;
    planes[5 * w + i] = row[o + 2]!;
    planes[4 * w + i] = row[o + 3]!;
    planes[3 * w + i] = row[o + 4]!;
    planes[2 * w + i] = row[o + 5]!;
    planes[w + i] = row[o + 6]!;
    planes[i] = row[o + 7]!;
  }
}

/** Little-endian 4-byte samples, a word each, into planes (most significant first). */
function deinterleave4Words(row: Uint32Array, planes: Uint8Array, width: number): void {
  const [p1, p2, p3] = [width, 2 * width, 3 * width];
  for (let i = 0; i < width; i++) {
    const x = row[i]!;
    planes[p3 + i] = x;
    planes[p2 + i] = x >>> 8;
    planes[p1 + i] = x >>> 16;
    planes[i] = x >>> 24;
  }
}

/** Planes (most significant first) back into little-endian 4-byte samples, a word each. */
function interleave4Words(row: Uint32Array, planes: Uint8Array, width: number): void {
  const [p1, p2, p3] = [width, 2 * width, 3 * width];
  for (let i = 0; i < width; i++)
    row[i] = planes[p3 + i]! | (planes[p2 + i]! << 8) | (planes[p1 + i]! << 16) | (planes[i]! << 24);
}

/** Planes (most significant first) back into little-endian 8-byte samples, unrolled. */
function interleave8(row: Uint8Array, planes: Uint8Array, width: number): void {
  const w = width;
  for (let i = 0, o = 0; i < w; i++, o += 8) {
    row[o] = planes[7 * w + i]!;
    row[o + 1] = planes[6 * w + i]!;
    row[o + 2] = planes[5 * w + i]!;
    row[o + 3] = planes[4 * w + i]!;
    row[o + 4] = planes[3 * w + i]!;
    row[o + 5] = planes[2 * w + i]!;
    row[o + 6] = planes[w + i]!;
    row[o + 7] = planes[i]!;
  }
}
