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

/** Apply predictor 3; `scratch` must hold one row (width × bytesPerSample bytes). */
export function encodeFloat(
  tile: Uint8Array,
  width: number,
  height: number,
  bps: number,
  scratch: Uint8Array,
): void {
  const rowBytes = width * bps;
  for (let r = 0; r < height; r++) {
    const row = tile.subarray(r * rowBytes, (r + 1) * rowBytes);
    // Plane b holds byte (bps-1-b) of each little-endian sample: most significant plane first.
    for (let i = 0; i < width; i++) {
      for (let b = 0; b < bps; b++) scratch[b * width + i] = row[i * bps + (bps - 1 - b)]!;
    }
    for (let i = rowBytes - 1; i > 0; i--) row[i] = (scratch[i]! - scratch[i - 1]!) & 0xff;
    row[0] = scratch[0]!;
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
  for (let r = 0; r < height; r++) {
    const row = tile.subarray(r * rowBytes, (r + 1) * rowBytes);
    scratch[0] = row[0]!;
    for (let i = 1; i < rowBytes; i++) scratch[i] = (scratch[i - 1]! + row[i]!) & 0xff;
    for (let i = 0; i < width; i++) {
      for (let b = 0; b < bps; b++) row[i * bps + (bps - 1 - b)] = scratch[b * width + i]!;
    }
  }
}
