import { FieldSize, FieldType } from './tags.js';

/** One IFD entry to write: tag, field type and its values. */
export interface IfdEntry {
  readonly tag: number;
  readonly type: number;
  /** Numbers for numeric types; a string (NUL added here) for ASCII. */
  readonly values: ArrayLike<number> | string;
}

export const shortEntry = (tag: number, ...v: number[]): IfdEntry => ({
  tag,
  type: FieldType.SHORT,
  values: v,
});
export const longEntry = (tag: number, v: ArrayLike<number>): IfdEntry => ({
  tag,
  type: FieldType.LONG,
  values: v,
});
export const doubleEntry = (tag: number, v: ArrayLike<number>): IfdEntry => ({
  tag,
  type: FieldType.DOUBLE,
  values: v,
});
export const asciiEntry = (tag: number, s: string): IfdEntry => ({ tag, type: FieldType.ASCII, values: s });

const countOf = (e: IfdEntry): number =>
  typeof e.values === 'string' ? Buffer.byteLength(e.values) + 1 : e.values.length;
const payloadSize = (e: IfdEntry): number => countOf(e) * (FieldSize[e.type] ?? 1);

/** Bytes a classic-TIFF IFD takes with its out-of-line values (each value block word-aligned). */
export function ifdSize(entries: readonly IfdEntry[]): number {
  let size = 2 + entries.length * 12 + 4;
  for (const e of entries) {
    const p = payloadSize(e);
    if (p > 4) size += p + (p & 1);
  }
  return size;
}

/**
 * Serialize a classic little-endian IFD at absolute file offset `at` into `buf` (at `at`),
 * entries sorted by tag, out-of-line values right after it; `next` is the next IFD's offset (0 = last).
 */
export function writeIfd(buf: Buffer, at: number, entries: readonly IfdEntry[], next: number): void {
  const sorted = [...entries].sort((a, b) => a.tag - b.tag);
  buf.writeUInt16LE(sorted.length, at);
  let extra = at + 2 + sorted.length * 12 + 4;
  sorted.forEach((e, i) => {
    const p = at + 2 + i * 12;
    buf.writeUInt16LE(e.tag, p);
    buf.writeUInt16LE(e.type, p + 2);
    buf.writeUInt32LE(countOf(e), p + 4);
    const size = payloadSize(e);
    const dst = size > 4 ? extra : p + 8;
    if (size > 4) {
      buf.writeUInt32LE(extra, p + 8);
      extra += size + (size & 1);
    } else {
      buf.writeUInt32LE(0, p + 8);
    }
    writeValues(buf, dst, e);
  });
  buf.writeUInt32LE(next, at + 2 + sorted.length * 12);
}

function writeValues(buf: Buffer, at: number, e: IfdEntry): void {
  if (typeof e.values === 'string') {
    buf.write(e.values, at, 'utf8');
    buf.writeUInt8(0, at + Buffer.byteLength(e.values));
    return;
  }
  const v = e.values;
  for (let i = 0; i < v.length; i++) {
    const x = v[i]!;
    if (e.type === FieldType.SHORT) buf.writeUInt16LE(x, at + i * 2);
    else if (e.type === FieldType.LONG) buf.writeUInt32LE(x, at + i * 4);
    else if (e.type === FieldType.DOUBLE) buf.writeDoubleLE(x, at + i * 8);
    else throw new Error(`writeIfd: unsupported field type ${e.type}`);
  }
}
