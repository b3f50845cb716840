/**
 * Format-exact SNODAS daily archives: the eight products of a date as big-endian int16 `.dat`
 * grids with headers rewritten from a real NOHRSC header, each gzipped, in one ustar tar (the
 * layout of NSIDC G02158's `SNODAS_<YYYYMMDD>.tar`). Shared by the demo and the test generators.
 */
import { readFile } from 'node:fs/promises';
import { constants, crc32, deflateRawSync, gzipSync } from 'node:zlib';
import { gridOf } from '../../src/datasets/config.js';
import { TEMPLATES } from '../../src/datasets/templates.js';

/** Masked CONUS grid size (columns, rows). */
export const SNODAS_GRID = gridOf(TEMPLATES.snodas!);
export const COLS = SNODAS_GRID.width;
export const ROWS = SNODAS_GRID.height;

/** The eight products: stem parts and header units (raw values are header units). */
export const PRODUCTS = [
  {
    variable: 'precip_liquid',
    code: '01025SlL00',
    time: 'T0024',
    iv: 'DP001',
    units: 'Kilograms per square meter / 10.000000',
    base: 0,
  },
  {
    variable: 'precip_solid',
    code: '01025SlL01',
    time: 'T0024',
    iv: 'DP001',
    units: 'Kilograms per square meter / 10.000000',
    base: 100,
  },
  {
    variable: 'swe',
    code: '11034tS__',
    time: 'T0001',
    iv: 'HP001',
    units: 'Meters / 1000.000000',
    base: 200,
  },
  {
    variable: 'depth',
    code: '11036tS__',
    time: 'T0001',
    iv: 'HP001',
    units: 'Meters / 1000.000000',
    base: 1200,
  },
  { variable: 'average_temp', code: '11038wS__', time: 'A0024', iv: 'DP001', units: 'Kelvins', base: 2636 },
  {
    variable: 'sublimation_blowing',
    code: '11039lL00',
    time: 'T0024',
    iv: 'DP000',
    units: 'Meters / 100000.000000',
    base: 3,
  },
  {
    variable: 'runoff',
    code: '11044bS__',
    time: 'T0024',
    iv: 'DP000',
    units: 'Meters / 100000.000000',
    base: 40,
  },
  {
    variable: 'sublimation',
    code: '11050lL00',
    time: 'T0024',
    iv: 'DP000',
    units: 'Meters / 100000.000000',
    base: 7,
  },
] as const;

export type Product = (typeof PRODUCTS)[number];
export type Lattice = 'current' | 'pre2013';

/** Header corner coordinates [minX, maxX, minY, maxY] of the two SNODAS lattices. */
const CORNERS: Record<Lattice, [string, string, string, string]> = {
  current: ['-124.733333333333', '-66.9416666666642', '24.9499999999990', '52.8749999999978'],
  pre2013: ['-124.733749999995', '-66.9420833333302', '24.9495833333324', '52.8745833333313'],
};

/** Member stem of a product on a date, e.g. `us_ssmv11034tS__T0001TTNATS2025020105HP001`. */
export const stemOf = (region: string, p: Product, date: string) =>
  `${region}_ssmv${p.code}${p.time}TTNATS${date}05${p.iv}`;

/** A header from the real template at `templatePath` with this product's units, grid and data file. */
export async function headerText(
  templatePath: string,
  stem: string,
  units: string,
  lattice: Lattice,
  dims: readonly [number, number] = [COLS, ROWS],
): Promise<string> {
  const [minX, maxX, minY, maxY] = CORNERS[lattice];
  const repl: Record<string, string> = {
    'Data units': units,
    'Data file pathname': `${stem}.dat`,
    'Number of columns': String(dims[0]),
    'Number of rows': String(dims[1]),
    'Minimum x-axis coordinate': minX,
    'Maximum x-axis coordinate': maxX,
    'Minimum y-axis coordinate': minY,
    'Maximum y-axis coordinate': maxY,
  };
  const text = await readFile(templatePath, 'latin1');
  return text
    .split('\n')
    .map((line) => {
      const key = line.split(':')[0]!;
      return key in repl ? `${key}: ${repl[key]}` : line;
    })
    .join('\n');
}

/** One ustar header block (512 bytes) for a regular file. */
function ustarHeader(name: string, size: number, mtime: number): Buffer {
  const h = Buffer.alloc(512);
  const put = (text: string, at: number, len: number) => h.write(text.slice(0, len), at, len, 'latin1');
  const octal = (n: number, len: number) =>
    `${Math.floor(n)
      .toString(8)
      .padStart(len - 1, '0')}\0`;
  put(name, 0, 100);
  put(octal(0o644, 8), 100, 8);
  put(octal(0, 8), 108, 8);
  put(octal(0, 8), 116, 8);
  put(octal(size, 12), 124, 12);
  put(octal(mtime, 12), 136, 12);
  put('        ', 148, 8); // checksum field counts as spaces
  put('0', 156, 1);
  put('ustar\u000000', 257, 8);
  let sum = 0;
  for (const b of h) sum += b;
  put(`${sum.toString(8).padStart(6, '0')}\0 `, 148, 8);
  return h;
}

/** A ustar archive of `members` (name, bytes), padded to 512-byte blocks, two zero blocks at the end. */
export function ustar(members: readonly { name: string; data: Uint8Array }[], mtime: number): Buffer {
  const parts: Uint8Array[] = [];
  for (const m of members) {
    parts.push(ustarHeader(m.name, m.data.length, mtime), m.data);
    const pad = (512 - (m.data.length % 512)) % 512;
    if (pad > 0) parts.push(Buffer.alloc(pad));
  }
  parts.push(Buffer.alloc(1024));
  return Buffer.concat(parts);
}

let scratch = Buffer.alloc(0);

/** Big-endian bytes of int16 values (the `.dat` layout), in a buffer reused by the next call. */
function bigEndian(values: Int16Array): Buffer {
  if (scratch.length < values.byteLength) scratch = Buffer.allocUnsafe(values.byteLength);
  const out = scratch.subarray(0, values.byteLength);
  out.set(new Uint8Array(values.buffer, values.byteOffset, values.byteLength));
  return out.swap16();
}

/** Gzipped `.dat` bytes of each grid already written (the same all-0 grid serves several products and dates). */
const gzipped = new WeakMap<Int16Array, Buffer>();

/**
 * A `.dat` canvas reused from date to date: only the rows [r0, r1) of `rows` (ascending, apart)
 * may differ from the last call with the same buffer; every other row is as it was.
 */
export interface RowsChanged {
  readonly dat: Buffer;
  readonly rows: readonly (readonly [number, number])[];
}

/** x · M over GF(2), M a 32 × 32 bit matrix by columns (zlib's crc32_combine). */
function gf2Times(mat: Uint32Array, x: number): number {
  let sum = 0;
  for (let i = 0, v = x >>> 0; v !== 0; v >>>= 1, i++) if (v & 1) sum ^= mat[i]!;
  return sum >>> 0;
}

/** CRC-32 of A then B from CRC-32(A), CRC-32(B) and B's length (zlib's crc32_combine). */
export function crc32Combine(crcA: number, crcB: number, lengthB: number): number {
  if (lengthB <= 0) return crcA;
  const square = (out: Uint32Array, m: Uint32Array) => {
    for (let n = 0; n < 32; n++) out[n] = gf2Times(m, m[n]!);
  };
  const even = new Uint32Array(32);
  const odd = new Uint32Array(32);
  odd[0] = 0xedb88320; // the CRC-32 polynomial: the operator for one zero bit
  for (let n = 1, row = 1; n < 32; n++, row <<= 1) odd[n] = row;
  square(even, odd); // two zero bits
  square(odd, even); // four
  let crc = crcA >>> 0;
  let len = lengthB;
  for (;;) {
    square(even, odd); // one zero byte, then 4, 16, …
    if (len % 2 === 1) crc = gf2Times(even, crc);
    len = Math.floor(len / 2);
    if (len === 0) break;
    square(odd, even);
    if (len % 2 === 1) crc = gf2Times(odd, crc);
    len = Math.floor(len / 2);
    if (len === 0) break;
  }
  return (crc ^ crcB) >>> 0;
}

/** Per canvas: raw deflate and CRC-32 of each unchanging run of rows, by its row range. */
const unchanged = new WeakMap<Buffer, Map<string, { deflated: Buffer; crc: number }>>();

/**
 * A gzip member of `c.dat` whose unchanging rows are deflated once per canvas: the member is one
 * deflate stream of row runs, each ended by a full flush (byte-aligned, nothing carried over) but
 * the last, so a run's bytes are the same whatever comes before it; its CRC-32 is combined from
 * the runs'. Any gzip reader sees one ordinary member.
 */
function gzipRows(c: RowsChanged): Buffer {
  const rowBytes = COLS * 2;
  const runs: [number, number, boolean][] = []; // [r0, r1) and whether it may have changed
  let at = 0;
  for (const [r0, r1] of c.rows) {
    if (r0 > at) runs.push([at, r0, false]);
    runs.push([r0, r1, true]);
    at = r1;
  }
  if (at < ROWS) runs.push([at, ROWS, false]);
  const kept = unchanged.get(c.dat) ?? new Map<string, { deflated: Buffer; crc: number }>();
  unchanged.set(c.dat, kept);
  const parts: Buffer[] = [Buffer.from([0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 3])]; // gzip header, as gzipSync writes it
  let crc = 0;
  for (const [k, [r0, r1, changed]] of runs.entries()) {
    const key = `${r0}:${r1}`;
    let run = changed ? undefined : kept.get(key);
    if (run === undefined) {
      const bytes = c.dat.subarray(r0 * rowBytes, r1 * rowBytes);
      const last = k === runs.length - 1;
      run = {
        deflated: deflateRawSync(bytes, {
          level: 1,
          ...(last ? {} : { finishFlush: constants.Z_FULL_FLUSH }),
        }),
        crc: crc32(bytes),
      };
      if (!changed) kept.set(key, run);
    }
    parts.push(run.deflated);
    crc = crc32Combine(crc, run.crc, (r1 - r0) * rowBytes);
  }
  const trailer = Buffer.alloc(8);
  trailer.writeUInt32LE(crc, 0);
  trailer.writeUInt32LE(c.dat.length >>> 0, 4); // ISIZE: the length mod 2^32
  parts.push(trailer);
  return Buffer.concat(parts);
}

/**
 * A whole `SNODAS_<date>.tar` in memory: for each product its `.dat.gz` (from `grids`, raw header
 * units on the current lattice: native int16 values, or a Buffer of the `.dat`'s big-endian bytes,
 * or such a Buffer reused with the rows that changed) and `.txt.gz` header, gzipped at level 1 (or
 * `{ gz }`: a `.dat.gz` already made).
 */
export async function snodasTar(
  templatePath: string,
  date: string,
  grids: (p: Product) => Int16Array | Buffer | RowsChanged | { readonly gz: Buffer },
): Promise<Buffer> {
  const members: { name: string; data: Uint8Array }[] = [];
  for (const p of PRODUCTS) {
    const stem = stemOf('us', p, date);
    const header = await headerText(templatePath, stem, p.units, 'current');
    const grid = grids(p);
    let dat: Buffer;
    if ('gz' in grid) dat = grid.gz;
    else if ('rows' in grid) dat = gzipRows(grid);
    else if (grid instanceof Int16Array) {
      dat = gzipped.get(grid) ?? gzipSync(bigEndian(grid), { level: 1 });
      gzipped.set(grid, dat);
    } else dat = gzipSync(grid, { level: 1 });
    members.push({ name: `${stem}.dat.gz`, data: dat });
    members.push({ name: `${stem}.txt.gz`, data: gzipSync(Buffer.from(header, 'latin1'), { level: 1 }) });
  }
  const t = Date.UTC(Number(date.slice(0, 4)), Number(date.slice(4, 6)) - 1, Number(date.slice(6, 8)), 12);
  return ustar(members, t / 1000);
}
