import assert from 'node:assert/strict';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { snodasTar } from '../../scripts/demo/snodas.js';
import { cliOk, snowdb } from './cli.js';
import { copyFixture } from './fixture-cache.js';
import { shiftedRecord } from './fs.js';
import { fixturePath } from './raster.js';
import { COLS, datBytes, PRODUCTS, ROWS, rawRow } from './snodas.js';

export const ZION = '09406000:UT:USGS';
const SWE = PRODUCTS.findIndex((p) => p.variable === 'swe');
/** A column of SNODAS that crosses the Virgin River basin: nodata on every date. */
export const HOLE_COL = 1400;

/** SWE of the generated days: 2024-01-15 uniform 100 mm, 2024-01-16 varying by pixel. */
export const ZION_DAYS: readonly [string, (row: number, col: number) => number][] = [
  ['20240115', () => 100],
  ['20240116', (row, col) => 20 + ((row * 7 + col * 3) % 41)],
];

/**
 * The SNODAS cells where a Zion tar follows its day's SWE formula: the 256 × 256 COG tile that
 * holds the Virgin basin (rows 1833–1903, columns 1381–1472). Elsewhere SWE is the formula's value
 * at the window's first cell, one value a date, so the rest of CONUS ingests as uniform tiles.
 */
export const ZION_WINDOW = { row: 1792, col: 1280, size: 256 } as const;

/** SWE (mm) of a Zion tar at (row, col) for a day's formula `swe`: nodata in HOLE_COL, the formula in ZION_WINDOW. */
export function zionSwe(swe: (row: number, col: number) => number): (row: number, col: number) => number {
  const { row: r0, col: c0, size } = ZION_WINDOW;
  const outside = swe(r0, c0);
  return (row, col) =>
    col === HOLE_COL
      ? -9999
      : row >= r0 && row < r0 + size && col >= c0 && col < c0 + size
        ? swe(row, col)
        : outside;
}

/**
 * `.dat.gz` bytes of product k, made once per process: the generator's pattern (test/helpers/snodas.ts)
 * in ZION_WINDOW's columns, nodata elsewhere (the band of rows it fills does not reach the basin).
 */
const patternGz = new Map<number, Buffer>();
function patternMember(k: number): { gz: Buffer } {
  let gz = patternGz.get(k);
  if (gz === undefined) {
    const { col, size } = ZION_WINDOW;
    const rowOf = (p: number, row: number, out: Int16Array) => {
      out.fill(-9999, 0, col).fill(-9999, col + size);
      rawRow(p, row, out, col, col + size);
    };
    gz = gzipSync(datBytes(k, undefined, rowOf), { level: 1 });
    patternGz.set(k, gz);
  }
  return { gz };
}

/** A generated SNODAS tar of `date` whose SWE is `zionSwe(swe)`; other products keep the windowed pattern. */
export async function zionTar(dir: string, date: string, swe: (row: number, col: number) => number) {
  const { row: r0, col: c0, size } = ZION_WINDOW;
  const at = zionSwe(swe);
  const tar = await snodasTar(fixturePath('snodas/fake_snodas.hdr'), date, (p) => {
    const k = PRODUCTS.indexOf(p);
    if (k !== SWE) return patternMember(k);
    // Outside the window and the hole, one value (row 0, column 0 is such a cell).
    const a = new Int16Array(COLS * ROWS).fill(at(0, 0));
    for (let row = r0; row < r0 + size; row++)
      for (let col = c0; col < c0 + size; col++) a[row * COLS + col] = at(row, col);
    for (let row = 0; row < ROWS; row++) a[row * COLS + HOLE_COL] = at(row, HOLE_COL);
    return a;
  });
  await mkdir(dir, { recursive: true });
  const file = join(dir, `SNODAS_${date}.tar`);
  await writeFile(file, tar);
  return file;
}

/** `generate-zones` sources of the Zion database: the Zion SRTM DEM and NLCD 2011 sample. */
export const zionZoneSources = (): string[] => [
  '--source',
  'terrain',
  fixturePath('zion/srtm.tif'),
  '--source',
  'landcover',
  fixturePath('zion/nlcd2011.tif'),
];

/**
 * A database at `<dir>/db` holding the Virgin River basin, an inactive `snodas` dataset with zone
 * layers from the Zion DEM and NLCD, and the ZION_DAYS ingested (their tars beside it in `<dir>`).
 * Built once per test run, then copied. Returns the CLI environment.
 */
export async function buildZionDb(dir: string): Promise<Record<string, string>> {
  await copyFixture('zion', makeZionDb, dir);
  return { SNOWDB_CONFIG: join(dir, 'db') };
}

/** Build the Zion database into `dir` with the real CLI, as a user would. */
async function makeZionDb(dir: string): Promise<void> {
  const db = join(dir, 'db');
  const env = { SNOWDB_CONFIG: db };
  const cli = cliOk(() => env);
  await cli('init', db);
  await cli('pourpoint', 'sync', fixturePath('zion/pourpoints'));
  await cli('dataset', 'create', 'snodas', '--template', 'snodas');
  await cli('dataset', 'generate-zones', 'snodas', ...zionZoneSources());
  const tars: string[] = [];
  for (const [date, swe] of ZION_DAYS) tars.push(await zionTar(dir, date, swe));
  await cli('dataset', 'ingest', 'snodas', ...tars);
}

export const OFFGRID = 'OFFGRID:UT:TEST';

/** Import the Zion basin moved 60° west (to about -173°, off the SNODAS grid) as OFFGRID. */
export async function importOffGrid(dir: string, env: Record<string, string>): Promise<void> {
  const file = join(dir, 'OFFGRID_UT_TEST.geojson');
  await writeFile(
    file,
    await shiftedRecord(fixturePath('zion/pourpoints/09406000_UT_USGS.geojson'), OFFGRID, -60, 0),
  );
  const r = await snowdb(['pourpoint', 'import', file], { env });
  assert.equal(r.code, 0, r.stderr);
}
