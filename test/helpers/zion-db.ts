import assert from 'node:assert/strict';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { snodasTar } from '../../scripts/demo/snodas.js';
import { cliOk, snowdb } from './cli.js';
import { copyFixture } from './fixture-cache.js';
import { shiftedRecord } from './fs.js';
import { fixturePath } from './raster.js';
import { COLS, datBytes, PRODUCTS, ROWS } from './snodas.js';

export const ZION = '09406000:UT:USGS';
const SWE = PRODUCTS.findIndex((p) => p.variable === 'swe');
/** A column of SNODAS that crosses the Virgin River basin: nodata on every date. */
export const HOLE_COL = 1400;

/** SWE of the generated days: 2024-01-15 uniform 100 mm, 2024-01-16 varying by pixel. */
export const ZION_DAYS: readonly [string, (row: number, col: number) => number][] = [
  ['20240115', () => 100],
  ['20240116', (row, col) => 20 + ((row * 7 + col * 3) % 41)],
];

/** `.dat.gz` bytes of product k in the generator's pattern (all but SWE), made once per process. */
const patternGz = new Map<number, Buffer>();
function patternMember(k: number): { gz: Buffer } {
  let gz = patternGz.get(k);
  if (gz === undefined) {
    gz = gzipSync(datBytes(k), { level: 1 });
    patternGz.set(k, gz);
  }
  return { gz };
}

/** A generated SNODAS tar of `date` whose SWE is `swe` (nodata in HOLE_COL); other products keep the generator's pattern. */
export async function zionTar(dir: string, date: string, swe: (row: number, col: number) => number) {
  const tar = await snodasTar(fixturePath('snodas/fake_snodas.hdr'), date, (p) => {
    const k = PRODUCTS.indexOf(p);
    if (k !== SWE) return patternMember(k);
    const a = new Int16Array(COLS * ROWS);
    for (let row = 0; row < ROWS; row++)
      for (let col = 0, at = row * COLS; col < COLS; col++, at++)
        a[at] = col === HOLE_COL ? -9999 : swe(row, col);
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
