/**
 * One page of the time-contiguous store: every stored grid block of one variable over the dates
 * of one 8-day page, each block a separate raw-deflate stream of its samples as stored in the
 * COGs, date-major (the values of the block's stored pixels — its mask's, blocks.ts, row-major —
 * for the first date, then the next). No time delta: undoing
 * one cost a fifth of a long query, and deflate already finds the days that repeat.
 *
 * A stream written by this release ends with a full flush (byte-aligned, no dictionary carried
 * over) and an empty final block, so a later date is appended by compressing that date alone
 * (`appendBlock`): the header's flag byte says so; a page without it (older releases) is
 * rewritten whole when it changes.
 *
 * File (little-endian): "SDBSPG02" · u32 header bytes · u32 block-set id · u8 dtype code · u8
 * appendable (1: every stream ends as above) · 2 pad ·
 * u32 dates · u32 blocks · dates × u32 (days since 1970-01-01) · blocks × u32 offset · blocks ×
 * u32 length (offsets from the end of the header) · the streams.
 */
import { open } from 'node:fs/promises';
import { SnowdbError } from '../errors.js';
import { DTYPES, type DType, type TypedArray } from '../raster/dtype.js';
import { deflateRawFlushed } from '../util/deflate.js';
import { InflateError, inflateInto } from '../util/inflate.js';

/** Block edge, pixels: a block holds BLOCK × BLOCK grid cells. */
export const BLOCK = 32;
export const BLOCK_PIXELS = BLOCK * BLOCK;
const MAGIC = 'SDBSPG02';
const FIXED = 28;
const DTYPE_CODES = Object.keys(DTYPES) as DType[];
const LITTLE_ENDIAN = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1;

export interface PageHeader {
  /** The file holding the page: its own, or its water year's pack (pack.ts). */
  readonly path: string;
  readonly blockSet: number;
  readonly dtype: DType;
  /** Every stream ends with a full flush and an empty final block: a later date can be appended. */
  readonly appendable: boolean;
  /** Days since 1970-01-01 of the dates held, ascending. */
  readonly days: Uint32Array;
  /** Stored blocks held (the block set's count). */
  readonly blocks: number;
  /** Block k's stream (block-set order): its offset from `dataStart`, bytes. */
  offset(k: number): number;
  /** Block k's stream length, bytes. */
  length(k: number): number;
  readonly dataStart: number;
}

/** The page a date belongs to: `YYYYMM-p`, p = 0 for days 1–8, 1 for 9–16, 2 for 17–24, 3 after. */
export function pageOf(iso: string): string {
  const dayOfMonth = Number(iso.slice(8, 10));
  return `${iso.slice(0, 4)}${iso.slice(5, 7)}-${Math.min(3, Math.floor((dayOfMonth - 1) / 8))}`;
}

/** Dates grouped by page, each list ascending. */
export function datesByPage(dates: readonly string[]): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (const d of [...dates].sort()) {
    const list = out.get(pageOf(d));
    if (list) list.push(d);
    else out.set(pageOf(d), [d]);
  }
  return out;
}

export const dayNumber = (iso: string): number => Date.parse(`${iso}T00:00:00Z`) / 86_400_000;

/** The ISO date of a day number (days since 1970-01-01). */
export const isoOfDay = (day: number): string => new Date(day * 86_400_000).toISOString().slice(0, 10);

/** An empty final block (fixed Huffman: BFINAL 1, BTYPE 01, end of block): every stream's last 2 bytes. */
const FINAL = Buffer.from([0x03, 0x00]);

/** Deflate `values` ending with a full flush: byte-aligned, its end a valid place to continue. */
const flushed = (values: TypedArray, level: number): Buffer =>
  deflateRawFlushed(new Uint8Array(values.buffer, values.byteOffset, values.byteLength), level);

/** Compress one block: `values` holds dates × its samples per date, date-major (an appendable stream). */
export function encodeBlock(values: TypedArray, level = 1): Buffer {
  return Buffer.concat([flushed(values, level), FINAL]);
}

/** An appendable stream with later dates' `values` (dates × samples per date) added: only they are compressed. */
export function appendBlock(stream: Uint8Array, values: TypedArray, level = 1): Buffer {
  return Buffer.concat([stream.subarray(0, stream.length - FINAL.length), flushed(values, level), FINAL]);
}

/** Bytes of one decoded block of `dates` dates, `count` samples a date (its mask's pixels). */
export const blockBytes = (dtype: DType, dates: number, count: number): number =>
  dates * count * DTYPES[dtype].bytes;

/**
 * Decompress one block of `dates` dates, `count` samples a date, into the page's dtype (dates ×
 * count samples): into the start of `into` when it is large enough (a scan's scratch, reused once
 * reduced), else new memory.
 */
export function decodeBlock(
  stream: Uint8Array,
  dtype: DType,
  dates: number,
  count: number,
  into?: Uint8Array,
): TypedArray {
  // Not zero-filled (a 365-date query's 19 MB cost ~5 ms to clear): inflate writes every byte, or throws below.
  const need = blockBytes(dtype, dates, count);
  const bytes =
    into !== undefined && into.byteLength >= need ? into.subarray(0, need) : Buffer.allocUnsafeSlow(need);
  const out = new DTYPES[dtype].ctor(bytes.buffer, bytes.byteOffset, dates * count);
  let n: number;
  try {
    n = inflateInto('raw', stream, bytes);
  } catch (e) {
    if (!(e instanceof InflateError)) throw e;
    const what = e.reason === 'overflow' ? `more than the ${bytes.length} bytes expected` : e.message;
    throw new SnowdbError('invalid-series', `series block does not decode: ${what}`);
  }
  if (n !== bytes.length)
    throw new SnowdbError('invalid-series', `series block decodes to ${n} bytes, expected ${bytes.length}`);
  return out;
}

/** Serialize a page: its header and the already compressed block streams, in block-set order. */
export function encodePage(
  blockSet: number,
  dtype: DType,
  days: readonly number[],
  streams: readonly Uint8Array[],
  appendable: boolean,
): Buffer {
  const headerBytes = FIXED + 4 * days.length + 8 * streams.length;
  const head = Buffer.alloc(headerBytes);
  head.write(MAGIC, 0, 'latin1');
  head.writeUInt32LE(headerBytes, 8);
  head.writeUInt32LE(blockSet >>> 0, 12);
  head.writeUInt8(DTYPE_CODES.indexOf(dtype), 16);
  head.writeUInt8(appendable ? 1 : 0, 17);
  head.writeUInt32LE(days.length, 20);
  head.writeUInt32LE(streams.length, 24);
  let at = FIXED;
  for (const d of days) {
    head.writeUInt32LE(d, at);
    at += 4;
  }
  let offset = 0;
  for (const s of streams) {
    head.writeUInt32LE(offset, at);
    head.writeUInt32LE(s.length, at + 4 * streams.length);
    offset += s.length;
    at += 4;
  }
  return Buffer.concat([head, ...streams]);
}

/** Most days a page holds (8: days 1–8, 9–16 and 17–24 of a month; 7 after). */
const PAGE_DAYS = 8;

/** Bytes that hold the header of any page of a block set of `blocks` blocks: one read parses it. */
export const headerBound = (blocks: number): number => FIXED + 4 * PAGE_DAYS + 8 * blocks;

/** The header length a page's first bytes announce (at least FIXED). */
export function headerLength(first: Uint8Array, path: string): number {
  const b = Buffer.from(first.buffer, first.byteOffset, first.byteLength);
  if (b.length < FIXED || b.toString('latin1', 0, 8) !== MAGIC)
    throw new SnowdbError('invalid-series', `${path}: not a snowdb series page`);
  return b.readUInt32LE(8);
}

/** `n` u32 little-endian words of `b` from byte `at`: copied byte for byte on a little-endian host, else read one by one. */
export function u32Words(b: Buffer, at: number, n: number): Uint32Array {
  const out = new Uint32Array(n);
  if (LITTLE_ENDIAN) new Uint8Array(out.buffer).set(b.subarray(at, at + 4 * n));
  else for (let i = 0; i < n; i++) out[i] = b.readUInt32LE(at + 4 * i);
  return out;
}

/** Where block `k`'s stream lies in the file of header `h`: [first byte, end byte). */
export function streamRange(h: PageHeader, k: number): [number, number] {
  const at = h.dataStart + h.offset(k);
  return [at, at + h.length(k)];
}

/** Block `k`'s stream, from `bytes` holding the header's file from its start. */
export const streamIn = (h: PageHeader, bytes: Uint8Array, k: number): Uint8Array =>
  bytes.subarray(...streamRange(h, k));

/** Parse a page header from its first `headerLength` bytes. */
export function parsePageHeader(bytes: Uint8Array, path: string): PageHeader {
  const b = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const length = headerLength(bytes, path);
  const dtype = DTYPE_CODES[b.readUInt8(16)];
  const nd = b.readUInt32LE(20);
  const nb = b.readUInt32LE(24);
  if (dtype === undefined || length !== FIXED + 4 * nd + 8 * nb || b.length < length)
    throw new SnowdbError('invalid-series', `${path}: damaged series page header`);
  const offsets = u32Words(b, FIXED + 4 * nd, nb);
  const lengths = u32Words(b, FIXED + 4 * nd + 4 * nb, nb);
  return {
    path,
    blockSet: b.readUInt32LE(12),
    dtype,
    appendable: b.readUInt8(17) === 1,
    days: u32Words(b, FIXED, nd),
    blocks: nb,
    offset: (k) => offsets[k]!,
    length: (k) => lengths[k]!,
    dataStart: length,
  };
}

/** The block-set id a page file was written for (16 bytes read), or null when absent or not a page. */
export async function pageBlockSet(path: string): Promise<number | null> {
  const fh = await open(path, 'r').catch(() => null);
  if (fh === null) return null;
  try {
    const b = Buffer.alloc(16);
    const { bytesRead } = await fh.read(b, 0, 16, 0);
    return bytesRead === 16 && b.toString('latin1', 0, 8) === MAGIC ? b.readUInt32LE(12) : null;
  } finally {
    await fh.close();
  }
}
