/**
 * A closed water year of one variable in one file: the year's pages (page.ts) with their block
 * streams copied byte for byte, block-major (block 0 of every page, then block 1 …), and one
 * index read once. A query over the year then opens one file, and a block's dates lie in one run.
 * Pages and packs convert into each other without decoding (`packYear`, `unpackYear`).
 *
 * File (little-endian): "SDBSPK01" · u32 header bytes · u32 block-set id · u8 dtype code · u8
 * appendable (1: every page's streams are, page.ts) · 2 pad ·
 * u32 pages · u32 blocks · u32 dates · pages × u32 (dates per page) · dates × u32 (days since
 * 1970-01-01, page by page, ascending) · blocks × pages × u32 stream length (block-major) · the
 * streams, in that order.
 */
import { rm } from 'node:fs/promises';
import { SnowdbError } from '../errors.js';
import { writeFileAtomic, writeFileAtomicBy } from '../io/atomic.js';
import { OpenFiles } from '../io/open-files.js';
import { DTYPES, type DType } from '../raster/dtype.js';
import { encodePage, headerLength, type PageHeader, parsePageHeader, streamRange, u32Words } from './page.js';

const MAGIC = 'SDBSPK01';
const FIXED = 32;
const DTYPE_CODES = Object.keys(DTYPES) as DType[];
/** Offsets are u32: a pack holds under 4 GiB (a variable's year of 1.8 M pixels is ~0.3 GB). */
const MAX_BYTES = 2 ** 32 - 1;

/** The water year a page key (`YYYYMM-p`) belongs to: October–December count to the next year. */
export function waterYearOfPage(page: string): number {
  const y = Number(page.slice(0, 4));
  return Number(page.slice(4, 6)) >= 10 ? y + 1 : y;
}

/** Whether water year `wy` has ended before `today` (ISO): its pages may be packed. */
export const yearClosed = (wy: number, today: string): boolean => `${wy}-09-30` < today;

/** Today's date, ISO (UTC). */
export const todayIso = (): string => new Date().toISOString().slice(0, 10);

/** A pack's index: per page (ascending) its key and, built when asked, its header. */
export interface PackIndex {
  readonly path: string;
  readonly blockSet: number;
  readonly dtype: DType;
  readonly appendable: boolean;
  /** Page keys held, ascending. */
  readonly pages: readonly string[];
  /** The header of page `i`: its days and, per block, the stream's offset and length. */
  header(i: number): PageHeader;
}

/** The header length a pack's first FIXED bytes announce. */
export function packHeaderLength(first: Uint8Array, path: string): number {
  const b = Buffer.from(first.buffer, first.byteOffset, first.byteLength);
  if (b.length < FIXED || b.toString('latin1', 0, 8) !== MAGIC)
    throw new SnowdbError('invalid-series', `${path}: not a snowdb series pack`);
  return b.readUInt32LE(8);
}

/** Bytes that always hold a pack's length word (one read, then one more for the whole index). */
export const PACK_PROBE = FIXED;

/** Parse a pack's index from its first `packHeaderLength` bytes; `pageKey` names a page by its first day. */
export function parsePack(bytes: Uint8Array, path: string, pageKey: (day: number) => string): PackIndex {
  const b = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const length = packHeaderLength(bytes, path);
  const dtype = DTYPE_CODES[b.readUInt8(16)];
  const np = b.readUInt32LE(20);
  const nb = b.readUInt32LE(24);
  const nd = b.readUInt32LE(28);
  if (dtype === undefined || length !== FIXED + 4 * (np + nd + nb * np) || b.length < length)
    throw new SnowdbError('invalid-series', `${path}: damaged series pack index`);
  const counts = u32Words(b, FIXED, np);
  const days = u32Words(b, FIXED + 4 * np, nd);
  const lengths = u32Words(b, FIXED + 4 * (np + nd), nb * np);
  const firstDay = new Uint32Array(np + 1); // page i's days: days[firstDay[i] … firstDay[i+1])
  for (let i = 0; i < np; i++) firstDay[i + 1] = firstDay[i]! + counts[i]!;
  if (firstDay[np] !== nd) throw new SnowdbError('invalid-series', `${path}: damaged series pack index`);
  // Where block k's streams start (from the data's start): the lengths summed block by block;
  // inside a block, a page's offset is summed when the block is first asked for (a query wants few).
  const blockStart = new Float64Array(nb + 1);
  for (let k = 0, at = 0; k < nb; k++) {
    for (let j = k * np; j < (k + 1) * np; j++) at += lengths[j]!;
    blockStart[k + 1] = at;
  }
  const within = new Map<number, Float64Array>(); // block → its pages' offsets from its start
  const offsetsOf = (k: number): Float64Array => {
    let o = within.get(k);
    if (o === undefined) {
      o = new Float64Array(np);
      for (let i = 1; i < np; i++) o[i] = o[i - 1]! + lengths[k * np + i - 1]!;
      within.set(k, o);
    }
    return o;
  };
  const pages = Array.from({ length: np }, (_, i) => pageKey(days[firstDay[i]!]!));
  const appendable = b.readUInt8(17) === 1;
  return {
    path,
    blockSet: b.readUInt32LE(12),
    dtype,
    appendable,
    pages,
    header: (i) => ({
      path,
      blockSet: b.readUInt32LE(12),
      dtype,
      appendable,
      days: days.subarray(firstDay[i]!, firstDay[i + 1]!),
      blocks: nb,
      offset: (k) => blockStart[k]! + offsetsOf(k)[i]!,
      length: (k) => lengths[k * np + i]!,
      dataStart: length,
    }),
  };
}

/** `length` bytes of a stream, or `invalid-series` when the file ends inside it. */
function streamAt(files: OpenFiles, path: string, at: number, length: number): Buffer {
  const out = files.read(path, at, length);
  if (out.length !== length) throw new SnowdbError('invalid-series', `${path}: ends inside a block stream`);
  return out;
}

/** Block `k`'s stream of the page whose header is `h`, from the file at `path`. */
function pageStream(files: OpenFiles, path: string, h: PageHeader, k: number): Buffer {
  const [from, to] = streamRange(h, k);
  return streamAt(files, path, from, to - from);
}

/**
 * Write the pack of one water year from its page files (every page on block set `blockSet`, of
 * `dtype`, in ascending order), streams copied as they are, then remove the pages.
 * @returns the pack's size, bytes.
 */
export async function packYear(
  target: string,
  pagePaths: readonly string[],
  blockSet: number,
  dtype: DType,
): Promise<number> {
  const files = new OpenFiles();
  try {
    const headers = pagePaths.map((p) => {
      const h = parsePageHeader(streamAt(files, p, 0, headerLength(streamAt(files, p, 0, PACK_PROBE), p)), p);
      if (h.blockSet !== blockSet || h.dtype !== dtype)
        throw new SnowdbError('invalid-series', `${p}: another block set or dtype than its pack's`);
      return h;
    });
    const np = headers.length;
    const nb = headers[0]?.blocks ?? 0;
    if (headers.some((h) => h.blocks !== nb))
      throw new SnowdbError('invalid-series', `${target}: its pages hold different block counts`);
    const nd = headers.reduce((a, h) => a + h.days.length, 0);
    const head = Buffer.alloc(FIXED + 4 * (np + nd + nb * np));
    head.write(MAGIC, 0, 'latin1');
    head.writeUInt32LE(head.length, 8);
    head.writeUInt32LE(blockSet >>> 0, 12);
    head.writeUInt8(DTYPE_CODES.indexOf(dtype), 16);
    head.writeUInt8(headers.every((h) => h.appendable) ? 1 : 0, 17);
    head.writeUInt32LE(np, 20);
    head.writeUInt32LE(nb, 24);
    head.writeUInt32LE(nd, 28);
    let at = FIXED;
    for (const h of headers) at = head.writeUInt32LE(h.days.length, at);
    for (const h of headers) for (const day of h.days) at = head.writeUInt32LE(day, at);
    let total = head.length;
    for (let k = 0; k < nb; k++)
      for (const h of headers) {
        at = head.writeUInt32LE(h.length(k), at);
        total += h.length(k);
      }
    if (total > MAX_BYTES) throw new SnowdbError('invalid-series', `${target}: a pack over 4 GiB`);
    // Block k of every page: one read per page, written in ~4 MiB batches.
    const size = await writeFileAtomicBy(target, async (write) => {
      await write([head]);
      let batch: Buffer[] = [];
      let bytes = 0;
      for (let k = 0; k < nb; k++) {
        headers.forEach((h, i) => {
          batch.push(pageStream(files, pagePaths[i]!, h, k));
          bytes += h.length(k);
        });
        if (bytes >= 4 << 20 || k === nb - 1) {
          await write(batch);
          batch = [];
          bytes = 0;
        }
      }
    });
    for (const p of pagePaths) await rm(p, { force: true });
    return size;
  } finally {
    files.close();
  }
}

/**
 * Write a pack's pages back as page files (`pagePath(key)`), streams copied as they are, then
 * remove the pack: the year's pages can then be rewritten one by one.
 */
export async function unpackYear(index: PackIndex, pagePath: (page: string) => string): Promise<void> {
  const files = new OpenFiles();
  try {
    for (let i = 0; i < index.pages.length; i++) {
      const h = index.header(i);
      const streams = Array.from({ length: h.blocks }, (_x, k) => pageStream(files, index.path, h, k));
      await writeFileAtomic(pagePath(index.pages[i]!), [
        encodePage(h.blockSet, h.dtype, [...h.days], streams, h.appendable),
      ]);
    }
  } finally {
    files.close();
  }
  await rm(index.path, { force: true });
}
