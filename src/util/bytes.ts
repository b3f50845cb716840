/**
 * Whether `bytes` repeat with period `period` (every `period` bytes equal the `period` before),
 * by one native memcmp of the bytes against themselves shifted: with period = a sample's size,
 * all samples are one value; with period = a row's size, all rows are the first row.
 */
export function repeats(bytes: Uint8Array, period: number): boolean {
  if (bytes.length <= period) return true;
  const b = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.length);
  return b.compare(b, period, b.length, 0, b.length - period) === 0;
}
