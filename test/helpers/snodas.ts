import { execFile } from 'node:child_process';
import { copyFile, mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { fixturePath } from './raster.js';

const run = promisify(execFile);

export const COLS = 6935;
export const ROWS = 3351;

/** The eight products: stem parts, header units, and a value pattern (raw header units). */
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

export type Lattice = 'current' | 'pre2013';
const CORNERS: Record<Lattice, [string, string, string, string]> = {
  current: ['-124.733333333333', '-66.9416666666642', '24.9499999999990', '52.8749999999978'],
  pre2013: ['-124.733749999995', '-66.9420833333302', '24.9495833333324', '52.8745833333313'],
};

export const stemOf = (region: string, p: (typeof PRODUCTS)[number], date: string) =>
  `${region}_ssmv${p.code}${p.time}TTNATS${date}05${p.iv}`;

/** Raw value (header units) of cell (row, col) of product index k: a band of data, nodata elsewhere. */
export function rawValue(k: number, row: number, col: number): number {
  if (row < 900 || row >= 1500 || col % 97 === 0) return -9999;
  return PRODUCTS[k]!.base + ((row * 3 + col + k * 7) % 95);
}

/** A header from the real template with this product's units, grid corners and data file. */
export async function headerText(
  stem: string,
  units: string,
  lattice: Lattice,
  dims: [number, number] = [COLS, ROWS],
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
  const text = await readFile(fixturePath('snodas/fake_snodas.hdr'), 'latin1');
  return text
    .split('\n')
    .map((line) => {
      const key = line.split(':')[0]!;
      return key in repl ? `${key}: ${repl[key]}` : line;
    })
    .join('\n');
}

/** Raw value of product k at (row, col): the generator's pattern unless a test supplies its own. */
export type ValueOf = (k: number, row: number, col: number) => number;

/** Big-endian int16 bytes of product k on the full grid. */
export function datBytes(
  k: number,
  dims: [number, number] = [COLS, ROWS],
  value: ValueOf = rawValue,
): Buffer {
  const [w, h] = dims;
  const a = new Int16Array(w * h);
  for (let r = 0; r < h; r++) for (let c = 0; c < w; c++) a[r * w + c] = value(k, r, c);
  return Buffer.from(a.buffer).swap16();
}

/**
 * Write every member of one date into `dir` as `<stem>.dat`/`<stem>.<ext>` plus gzipped copies
 * (system gzip -k), and a `<stem>.hdr` copy for GDAL's SNODAS driver. Returns the stems by variable.
 */
export async function writeMembers(
  dir: string,
  date: string,
  lattice: Lattice,
  ext: 'txt' | 'Hdr',
  region = 'us',
  value: ValueOf = rawValue,
): Promise<Map<string, string>> {
  await mkdir(dir, { recursive: true });
  const stems = new Map<string, string>();
  await Promise.all(
    PRODUCTS.map(async (p, k) => {
      const stem = stemOf(region, p, date);
      stems.set(p.variable, stem);
      await writeFile(join(dir, `${stem}.dat`), datBytes(k, [COLS, ROWS], value));
      await writeFile(join(dir, `${stem}.${ext}`), await headerText(stem, p.units, lattice));
      await copyFile(join(dir, `${stem}.${ext}`), join(dir, `${stem}.hdr`));
      await run('gzip', ['-k', '-1', '-f', join(dir, `${stem}.dat`), join(dir, `${stem}.${ext}`)]);
    }),
  );
  return stems;
}

/** `tar -cf out -C dir names…` (system tar: an independent writer). */
export async function tarOf(out: string, dir: string, names: readonly string[]): Promise<string> {
  await run('tar', ['--format=ustar', '-cf', out, '-C', dir, ...names]);
  return out;
}

/** The gzipped member names of a date in `dir` (data + header per product). */
export function memberNames(stems: Map<string, string>, ext: 'txt' | 'Hdr', skip?: string): string[] {
  return [...stems].filter(([v]) => v !== skip).flatMap(([, s]) => [`${s}.dat.gz`, `${s}.${ext}.gz`]);
}
