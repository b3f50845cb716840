import { execFile } from 'node:child_process';
import { copyFile, mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import {
  COLS,
  headerText as header,
  type Lattice,
  PRODUCTS,
  ROWS,
  stemOf,
} from '../../scripts/demo/snodas.js';
import { fixturePath } from './raster.js';

const run = promisify(execFile);

export { COLS, type Lattice, PRODUCTS, ROWS } from '../../scripts/demo/snodas.js';

/**
 * Raw values (header units) of row `row` of product index k into `out[c0, c1)` (all of it by
 * default): a band of data, nodata elsewhere. Column col holds -9999 where col % 97 = 0, else
 * base + (row·3 + col + k·7) % 95 (both residues stepped along the row, no division a sample).
 */
export function rawRow(k: number, row: number, out: Int16Array, c0 = 0, c1 = out.length): void {
  if (row < 900 || row >= 1500) {
    out.fill(-9999, c0, c1);
    return;
  }
  const base = PRODUCTS[k]!.base;
  let hole = c0 % 97; // col % 97
  let v = (row * 3 + c0 + k * 7) % 95; // (row·3 + col + k·7) % 95
  for (let col = c0; col < c1; col++) {
    out[col] = hole === 0 ? -9999 : base + v;
    if (++hole === 97) hole = 0;
    if (++v === 95) v = 0;
  }
}

/** A header from the real template (the fixture) with this product's units, grid corners and data file. */
export const headerText = (
  stem: string,
  units: string,
  lattice: Lattice,
  dims: [number, number] = [COLS, ROWS],
) => header(fixturePath('snodas/fake_snodas.hdr'), stem, units, lattice, dims);

/** Fills `out` with row `row` of product k (raw values): the generator's pattern unless a test supplies its own. */
export type RowOf = (k: number, row: number, out: Int16Array) => void;

/** Big-endian int16 bytes of product k on the full grid. */
export function datBytes(k: number, dims: [number, number] = [COLS, ROWS], rowOf: RowOf = rawRow): Buffer {
  const [w, h] = dims;
  const a = new Int16Array(w * h);
  for (let r = 0; r < h; r++) rowOf(k, r, a.subarray(r * w, (r + 1) * w));
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
  rowOf: RowOf = rawRow,
): Promise<Map<string, string>> {
  await mkdir(dir, { recursive: true });
  const stems = new Map<string, string>();
  await Promise.all(
    PRODUCTS.map(async (p, k) => {
      const stem = stemOf(region, p, date);
      stems.set(p.variable, stem);
      await writeFile(join(dir, `${stem}.dat`), datBytes(k, [COLS, ROWS], rowOf));
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
