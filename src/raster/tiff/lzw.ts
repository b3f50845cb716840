/**
 * TIFF LZW decoder (TIFF 6.0 §13, MSB-first codes, "early change"): 9–12-bit codes,
 * 256 = Clear, 257 = EOI. Writes into a caller-sized output and returns it.
 */
const CLEAR = 256;
const EOI = 257;

export function decodeLzw(input: Uint8Array, expectedBytes: number): Uint8Array {
  const out = new Uint8Array(expectedBytes);
  // Dictionary as (prefix code, last byte, length) triples; entries 0..255 are single bytes.
  const prefix = new Int32Array(4096);
  const suffix = new Uint8Array(4096);
  const length = new Uint16Array(4096);
  for (let i = 0; i < 256; i++) {
    prefix[i] = -1;
    suffix[i] = i;
    length[i] = 1;
  }
  let next = 258;
  let width = 9;
  let bitPos = 0;
  const totalBits = input.length * 8;
  let outPos = 0;
  let prev = -1;

  const readCode = (): number => {
    if (bitPos + width > totalBits) return EOI;
    let code = 0;
    for (let i = 0; i < width; i++) {
      const bit = (input[(bitPos + i) >> 3]! >> (7 - ((bitPos + i) & 7))) & 1;
      code = (code << 1) | bit;
    }
    bitPos += width;
    return code;
  };
  /** Write the string of `code` at outPos (bytes past the output are dropped). */
  const emit = (code: number): void => {
    const len = length[code]!;
    let c = code;
    for (let p = outPos + len - 1; p >= outPos; p--) {
      if (p < out.length) out[p] = suffix[c]!;
      c = prefix[c]!;
    }
    outPos = Math.min(outPos + len, out.length);
  };
  /** First byte of the string of `code` (its root entry). */
  const firstOf = (code: number): number => {
    let c = code;
    while (prefix[c]! >= 0) c = prefix[c]!;
    return c;
  };
  const add = (first: number): void => {
    if (next >= 4096) return;
    prefix[next] = prev;
    suffix[next] = first;
    length[next] = length[prev]! + 1;
    next++;
  };

  for (;;) {
    const code = readCode();
    if (code === EOI) break;
    if (code === CLEAR) {
      next = 258;
      width = 9;
      prev = -1;
      continue;
    }
    if (prev < 0) {
      emit(code);
    } else if (code < next) {
      emit(code);
      add(firstOf(code));
    } else {
      // KwKwK: the new string is prev followed by the first byte of prev.
      add(firstOf(prev));
      emit(next - 1);
    }
    prev = code;
    if (next + 1 >= 1 << width && width < 12) width++;
    if (outPos >= out.length) break;
  }
  return out;
}
