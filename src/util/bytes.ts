/**
 * Whether bytes[start, end) repeat with period `period` (every `period` bytes equal the `period`
 * before), by one native memcmp of the range against itself shifted: with period = a sample's
 * size, all samples are one value; with period = a row's size, all rows are the first row.
 */
export function repeats(bytes: Uint8Array, period: number, start = 0, end = bytes.length): boolean {
  if (end - start <= period) return true;
  const b = Buffer.isBuffer(bytes) ? bytes : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.length);
  return b.compare(b, start + period, end, start, end - period) === 0;
}
