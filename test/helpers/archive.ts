import { copyFile, mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { SPIRES_VARIABLES, SWANN_GRID, writeSpiresTile, writeSwann } from '../../scripts/demo/netcdf.js';
import { COLS, ROWS, snodasTar } from '../../scripts/demo/snodas.js';
import { cachedFixture } from './fixture-cache.js';
import { fixturePath } from './raster.js';

/**
 * Small files in each producer's archive layout, for a loopback archive: each returns the URL
 * path under the producer's folder (`/snodas`, `/swann`, `/spires`) and the local file.
 * Values are hand-checkable: a 10 × 10 block holds the day of the month (SNODAS, SWANN SWE).
 */
const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];

/** SNODAS rows/columns of the block holding the day of the month (raw header units). */
export const SNODAS_BLOCK = { row: 1000, col: 2000, n: 10 };

/** `SNODAS_<date>.tar` at `/snodas/<YYYY>/<MM>_<Mon>/`. */
export async function snodasArchiveFile(dir: string, date: string): Promise<[string, string]> {
  const day = Number(date.slice(6, 8));
  // One grid for all eight products: snodasTar gzips it once.
  const grid = new Int16Array(COLS * ROWS).fill(-9999);
  const { row, col, n } = SNODAS_BLOCK;
  for (let r = row; r < row + n; r++) grid.fill(day, r * COLS + col, r * COLS + col + n);
  const tar = await snodasTar(fixturePath('snodas/fake_snodas.hdr'), date, () => grid);
  const file = join(dir, `SNODAS_${date}.tar`);
  await writeFile(file, tar);
  const mm = date.slice(4, 6);
  return [`/snodas/${date.slice(0, 4)}/${mm}_${MONTHS[Number(mm) - 1]}/SNODAS_${date}.tar`, file];
}

/** Water year of `YYYYMMDD`. */
const wy = (date: string) => Number(date.slice(0, 4)) + (Number(date.slice(4, 6)) >= 10 ? 1 : 0);

/**
 * `UA_SWE_Depth_800m_v1_<date>_<stage>.nc` at `/swann/WY<YYYY>/`: SWE = `swe` mm in a block, 0
 * (no snow) elsewhere; only the block's chunks are written (the rest reads as HDF5's fill, 0).
 */
export async function swannArchiveFile(
  dir: string,
  date: string,
  stage: string,
  swe: number,
): Promise<[string, string]> {
  const { width: W, height: H } = SWANN_GRID;
  const s = new Int16Array(W * H);
  const d = new Int16Array(W * H);
  for (let r = 1000; r < 1010; r++) {
    s.fill(swe, r * W + 4000, r * W + 4010);
    d.fill(swe * 3, r * W + 4000, r * W + 4010);
  }
  const name = `UA_SWE_Depth_800m_v1_${date}_${stage}.nc`;
  const file = join(dir, name);
  await writeSwann(file, date, s, d, true);
  return [`/swann/WY${wy(date)}/${name}`, file];
}

/**
 * One SPIRES NRT tile (all fill values) at `/spires/<tile>/<YYYY>/`: written once per run (the
 * fixture cache; h5wasm deflates its 2400 × 2400 × 9 values in ~0.25 CPU-s) and copied.
 */
export async function spiresArchiveFile(dir: string, tile: string, date: string): Promise<[string, string]> {
  const [h, v] = [Number(tile.slice(1, 3)), Number(tile.slice(4, 6))];
  const name = `SPIRES_NRT_${tile}_MOD09GA061_${date}_V1.0.nc`;
  const made = await cachedFixture(`spires-${tile}-${date}`, async (into) => {
    const fill = new Map(SPIRES_VARIABLES.map(([n, dtype, f]) => [n, { dtype, f }]));
    await writeSpiresTile(join(into, name), h, v, date, (n) => {
      const { dtype, f } = fill.get(n)!;
      return dtype === 'u8' ? new Uint8Array(2400 * 2400).fill(f) : new Uint16Array(2400 * 2400).fill(f);
    });
  });
  const file = join(dir, 'spires', tile, name);
  await mkdir(join(dir, 'spires', tile), { recursive: true });
  await copyFile(join(made, name), file);
  return [`/spires/${tile}/${date.slice(0, 4)}/${name}`, file];
}
