import { SnowdbError } from '../../errors.js';
import type { Source } from '../../io/source.js';
import { FieldSize, FieldType } from './tags.js';

/** A parsed tag value: a string for ASCII, numbers otherwise. */
export type TagValue = string | readonly number[];

/** One IFD: tag → value. */
export type Ifd = ReadonlyMap<number, TagValue>;

const utf8 = new TextDecoder();

/**
 * First bytes fetched to read the header and, for COGs, usually every IFD (an IFD past them is
 * read on its own). 16 KiB: a basin's AOI raster is ~4 KB whole, and a status or doctor of 10⁵
 * basins opens each (a 64 KiB buffer a header made those 1.1–1.5× slower: BENCHMARKS.md).
 */
export const HEAD_BYTES = 16 * 1024;

/** Lazily extends a prefix of the source as parsing reaches further. */
class HeadReader {
  private bytes: Uint8Array = new Uint8Array(0);
  constructor(private readonly source: Source) {}

  async view(offset: number, length: number): Promise<DataView> {
    if (offset + length > this.bytes.length) {
      if (offset + length <= HEAD_BYTES || this.bytes.length === 0) {
        this.bytes = await this.source.fetch(0, Math.max(HEAD_BYTES, offset + length));
      } else {
        // Past the first bytes: a read of its own, as short as the file (an offset past its end).
        const extra = await this.source.fetch(offset, length);
        if (extra.byteLength < length) throw this.truncated(offset + length, offset + extra.byteLength);
        return new DataView(extra.buffer, extra.byteOffset, extra.byteLength);
      }
      if (offset + length > this.bytes.length) throw this.truncated(offset + length, this.bytes.length);
    }
    return new DataView(this.bytes.buffer, this.bytes.byteOffset + offset, length);
  }

  private truncated(needs: number, has: number): SnowdbError {
    return new SnowdbError(
      'invalid-raster',
      `${this.source.url}: truncated TIFF (needs byte ${needs}, has ${has})`,
    );
  }
}

function readNumber(v: DataView, at: number, type: number): number {
  switch (type) {
    case FieldType.BYTE:
    case FieldType.UNDEFINED:
    case FieldType.ASCII:
      return v.getUint8(at);
    case FieldType.SBYTE:
      return v.getInt8(at);
    case FieldType.SHORT:
      return v.getUint16(at, true);
    case FieldType.SSHORT:
      return v.getInt16(at, true);
    case FieldType.LONG:
      return v.getUint32(at, true);
    case FieldType.SLONG:
      return v.getInt32(at, true);
    case FieldType.FLOAT:
      return v.getFloat32(at, true);
    case FieldType.DOUBLE:
      return v.getFloat64(at, true);
    case FieldType.RATIONAL:
      return v.getUint32(at, true) / v.getUint32(at + 4, true);
    case FieldType.SRATIONAL:
      return v.getInt32(at, true) / v.getInt32(at + 4, true);
    case FieldType.LONG8:
    case FieldType.IFD8:
      return Number(v.getBigUint64(at, true));
    case FieldType.SLONG8:
      return Number(v.getBigInt64(at, true));
    default:
      return Number.NaN;
  }
}

/**
 * Read every IFD of a little-endian classic TIFF or BigTIFF, with all tag values.
 * @throws SnowdbError `invalid-raster` for anything that is not such a TIFF.
 */
export async function readIfds(source: Source): Promise<Ifd[]> {
  const head = new HeadReader(source);
  const h = await head.view(0, 16).catch((e: unknown) => {
    // Only a short read means "not a TIFF"; a missing file or a network error passes through.
    if (!(SnowdbError.is(e) && e.key === 'invalid-raster')) throw e;
    throw new SnowdbError('invalid-raster', `${source.url}: not a TIFF (shorter than its header)`);
  });
  const order = String.fromCharCode(h.getUint8(0), h.getUint8(1));
  if (order === 'MM')
    throw new SnowdbError('invalid-raster', `${source.url}: big-endian TIFF is not supported`);
  if (order !== 'II') throw new SnowdbError('invalid-raster', `${source.url}: not a TIFF file`);
  const magic = h.getUint16(2, true);
  if (magic !== 42 && magic !== 43)
    throw new SnowdbError('invalid-raster', `${source.url}: not a TIFF file (magic ${magic})`);
  const big = magic === 43;
  let next = big ? Number(h.getBigUint64(8, true)) : h.getUint32(4, true);
  const ifds: Ifd[] = [];
  const seen = new Set<number>();
  while (next !== 0) {
    if (seen.has(next) || ifds.length > 64)
      throw new SnowdbError('invalid-raster', `${source.url}: IFD loop`);
    seen.add(next);
    const countSize = big ? 8 : 2;
    const entrySize = big ? 20 : 12;
    const cv = await head.view(next, countSize);
    const n = big ? Number(cv.getBigUint64(0, true)) : cv.getUint16(0, true);
    const body = await head.view(next + countSize, n * entrySize + (big ? 8 : 4));
    const ifd = new Map<number, TagValue>();
    for (let i = 0; i < n; i++) {
      const at = i * entrySize;
      const tag = body.getUint16(at, true);
      const type = body.getUint16(at + 2, true);
      const count = big ? Number(body.getBigUint64(at + 4, true)) : body.getUint32(at + 4, true);
      const size = (FieldSize[type] ?? 1) * count;
      const inline = size <= (big ? 8 : 4);
      const valueAt = at + (big ? 12 : 8);
      const v = inline
        ? new DataView(body.buffer, body.byteOffset + valueAt, size)
        : await head.view(
            big ? Number(body.getBigUint64(valueAt, true)) : body.getUint32(valueAt, true),
            size,
          );
      if (type === FieldType.ASCII) {
        const text = utf8.decode(new Uint8Array(v.buffer, v.byteOffset, count));
        ifd.set(tag, text.replace(/\0+$/, ''));
      } else {
        const step = FieldSize[type] ?? 1;
        const values = new Array<number>(count);
        for (let k = 0; k < count; k++) values[k] = readNumber(v, k * step, type);
        ifd.set(tag, values);
      }
    }
    ifds.push(ifd);
    next = big ? Number(body.getBigUint64(n * entrySize, true)) : body.getUint32(n * entrySize, true);
  }
  return ifds;
}
