/**
 * Raster core scenarios (issue 3): coverage of the largest BAGIS basin on the SNODAS grid, writing
 * one full SNODAS-size int16 COG, and warm/cold 100 × 100 px window reads.
 */
import { execFileSync } from 'node:child_process';
import { mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gridOf } from '../src/datasets/config.js';
import { TEMPLATES } from '../src/datasets/templates.js';
import { FileSource } from '../src/io/source.js';
import { Cog } from '../src/raster/cog.reader.js';
import { writeCog } from '../src/raster/cog.writer.js';
import { polygonCoverage } from '../src/raster/coverage.js';
import type { AreaGeometry } from '../src/raster/geometry.js';
import type { Grid } from '../src/raster/grid.js';
import { TileCache } from '../src/raster/tile.cache.js';
import { median, time } from './stats.js';

/** The SNODAS dataset grid, as the template defines it. */
const SNODAS: Grid = gridOf(TEMPLATES.snodas!);

/** A SNODAS-like SWE field: ~48 % nodata outside a CONUS-ish blob, smooth snow rising northward, noise. */
function snodasLike(seed = 1): Int16Array {
  const { width: W, height: H } = SNODAS;
  const a = new Int16Array(W * H);
  let s = seed;
  for (let r = 0; r < H; r++) {
    for (let c = 0; c < W; c++) {
      s = (s * 1103515245 + 12345) >>> 0;
      const dx = (c - W / 2) / (W / 2);
      const dy = (r - H / 2) / (H / 2);
      const inside = dx * dx * 0.9 + dy * dy * 1.6 < 1;
      const snow = Math.max(
        0,
        Math.round(400 * (1 - r / H) * (1 + Math.sin(c / 40) * Math.cos(r / 55)) - 150 + (s % 23)),
      );
      a[r * W + c] = inside ? snow : -9999;
    }
  }
  return a;
}

export async function rasterBench(): Promise<Record<string, string>[]> {
  const rows: Record<string, string>[] = [];
  const basinFile = new URL('../../test/fixtures/pourpoints/06287000_MT_USGS.geojson', import.meta.url);
  const rec = JSON.parse(await readFile(basinFile, 'utf8')) as { geometries: AreaGeometry[] };
  const basin = rec.geometries.find((g) => g.type !== ('Point' as string))!;
  const cov = await time(11, () => polygonCoverage(SNODAS, basin));
  rows.push({
    scenario: 'coverage 06287000 (51,000 km², 41,519 vertices) on SNODAS 30″',
    median_ms: median(cov).toFixed(1),
    target: '< 1000 ms',
  });

  const dir = await mkdtemp(join(tmpdir(), 'snowdb-bench-'));
  try {
    const data = snodasLike();
    const path = join(dir, 'snodas.tif');
    for (const level of [6, 1]) {
      const w = await time(3, () => writeCog(path, SNODAS, data, { nodata: -9999, level }), 0);
      const size = (await stat(path)).size;
      rows.push({
        scenario: `write SNODAS int16 COG 6935×3351, deflate L${level}+pred2 (${(size / 1e6).toFixed(1)} MB)`,
        median_ms: median(w).toFixed(0),
        target: level === 6 ? '< 1500 ms' : '',
      });
    }
    const ours = Number(rows.at(-2)?.median_ms);
    const gdal = await time(
      3,
      () =>
        execFileSync('gdal_translate', [
          '-q',
          '-of',
          'COG',
          '-co',
          'COMPRESS=DEFLATE',
          '-co',
          'PREDICTOR=YES',
          '-co',
          'BLOCKSIZE=256',
          '-co',
          'NUM_THREADS=1',
          path,
          join(dir, 'gdal.tif'),
        ]),
      0,
    );
    rows.push({
      scenario: `reference: gdal_translate -of COG, same raster, DEFLATE+PREDICTOR, 1 thread (ours/GDAL ${(ours / median(gdal)).toFixed(2)})`,
      median_ms: median(gdal).toFixed(0),
      target: '',
    });
    const window = { col: 1800, row: 1000, width: 100, height: 100 };
    const cog = await Cog.open(new FileSource(path), new TileCache());
    const warm = await time(201, () => cog.readWindow(window), 5);
    rows.push({
      scenario: 'read 100×100 px window, warm (tiles cached)',
      median_ms: median(warm).toFixed(3),
      target: '< 2 ms',
    });
    const cold = await time(21, async () => {
      const c = await Cog.open(new FileSource(path), new TileCache());
      await c.readWindow(window);
      await c.close();
    });
    rows.push({
      scenario: 'open + read 100×100 px window, cold tile cache (OS cache warm)',
      median_ms: median(cold).toFixed(2),
      target: '',
    });
    await cog.close();
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
  return rows;
}
