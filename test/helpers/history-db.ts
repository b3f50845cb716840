/**
 * A generated 20-year database for history tests: a SNODAS-lattice dataset cut to a 90 × 60 cell
 * window around Zion (registered from an external config, terrain zones from the Zion DEM), two
 * synthetic basins (FULL inside the DEM, HALF about half outside it), and daily SWE for water
 * years 2004–2023 plus October–January of water year 2024 (an incomplete year); doctor finds it
 * healthy. SWE follows a known seasonal cycle scaled per water year, with one extreme year (2011,
 * ×2.5) and one poor year (2015, ×0.2); leap days are included. Date rasters are written as the
 * ingest writes them (one COG per date and variable, without an fsync each), then the series
 * store is built: no SNODAS tar can hold a cut grid.
 */
import { link, mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { buildAreaRaster } from '../../src/datasets/artifacts.js';
import { openDataset } from '../../src/datasets/registry.js';
import { Database } from '../../src/db/database.js';
import { encodeCog, writeCog } from '../../src/raster/cog.writer.js';
import { rebuildSeries } from '../../src/series/build.js';
import { mapPool } from '../../src/util/pool.js';
import { cliOk } from './cli.js';
import { cachedFixture } from './fixture-cache.js';
import { fixturePath } from './raster.js';

export const FULL = 'FULL:UT:TEST';
export const HALF = 'HALF:UT:TEST';
const W = 90;
const H = 60;
const DAY_MS = 86_400_000;
/** First and last date: 1 Oct 2003 (water year 2004) … 31 Jan 2024 (water year 2024, incomplete). */
const FIRST = Date.UTC(2003, 9, 1);
const LAST = Date.UTC(2024, 0, 31);

/** Water-year scale of the season: 2011 extreme, 2015 poor, others between 0.7 and 1.3. */
export const yearScale = (wy: number): number =>
  wy === 2011 ? 2.5 : wy === 2015 ? 0.2 : 0.7 + (((wy * 7919) % 13) / 12) * 0.6;

/** SWE (mm) of a pixel on day t of water year wy (t = 0 on 1 October). */
export function sweOf(wy: number, t: number, row: number, col: number): number {
  const season = Math.max(0, Math.sin((Math.PI * (t - 30)) / 250)); // November to early June
  return Math.round(400 * yearScale(wy) * season * (0.4 + (row + 2 * col) / (H + 2 * W)));
}

const basin = (triplet: string, [x0, y0, x1, y1]: readonly number[]) =>
  JSON.stringify({
    type: 'GeometryCollection',
    id: triplet,
    properties: { name: triplet.split(':')[0] },
    geometries: [
      { type: 'Point', coordinates: [x0, y0] },
      {
        type: 'MultiPolygon',
        coordinates: [
          [
            [
              [x0, y0],
              [x1, y0],
              [x1, y1],
              [x0, y1],
              [x0, y0],
            ],
          ],
        ],
      },
    ],
  });

async function build(dir: string): Promise<void> {
  const root = join(dir, 'db');
  const env = { SNOWDB_CONFIG: root };
  const cli = cliOk(() => env);
  await cli('init', root);
  const records = join(dir, 'records');
  await mkdir(records);
  // FULL lies inside the Zion DEM (−113.24…−112.85, 37.13…37.51); HALF crosses its east edge.
  await writeFile(join(records, 'FULL_UT_TEST.geojson'), basin(FULL, [-113.15, 37.25, -113.0, 37.4]));
  await writeFile(join(records, 'HALF_UT_TEST.geojson'), basin(HALF, [-112.95, 37.2, -112.75, 37.35]));
  await cli('pourpoint', 'sync', records);
  const config = join(root, 'data/hist/dataset.json'); // inside the database: registered by a relative path
  await mkdir(join(root, 'data/hist'), { recursive: true });
  await writeFile(
    config,
    JSON.stringify({
      resource: 'snowdb.dataset/v1',
      description: 'generated SWE on a 90 × 60 window of the SNODAS lattice',
      ingester: 'snodas',
      grid: {
        crs: 'EPSG:4326',
        origin_x: -124.73333333333333 + 1372 * 0.008333333333333,
        origin_y: 52.875 - 1839 * 0.008333333333333,
        cell_width: 0.008333333333333,
        cell_height: 0.008333333333333,
        width: W,
        height: H,
        tile_size: 64,
      },
      footprint: null,
      variables: {
        swe: {
          description: 'generated SWE',
          unit: 'mm',
          scale_factor: 1,
          dtype: 'int16',
          nodata: -9999,
          reducer: 'mean',
          volume_m_per_unit: 0.001,
        },
      },
      zones: { terrain: { elevation: { band_step_ft: 1000 } } },
    }),
  );
  await cli('dataset', 'register', 'hist', config);
  await cli('pourpoint', 'reindex');
  await cli('pourpoint', 'rasterize', '--all', '--dataset', 'hist');
  await cli('dataset', 'generate-zones', 'hist', '--source', 'terrain', fixturePath('zion/srtm.tif'));
  const db = await Database.open(root);
  const d = await openDataset(db, 'hist');
  await buildAreaRaster(d);
  const bare = join(dir, 'bare.tif'); // snow-free days share one raster (hard links)
  await writeCog(bare, d.grid, new Int16Array(W * H), { nodata: -9999, level: 1 });
  const days = Array.from({ length: (LAST - FIRST) / DAY_MS + 1 }, (_, i) => FIRST + i * DAY_MS);
  await mapPool(days, 16, async (ms) => {
    const date = new Date(ms).toISOString().slice(0, 10);
    const wy = Number(date.slice(0, 4)) + (date.slice(5, 7) >= '10' ? 1 : 0);
    const t = Math.round((ms - Date.UTC(wy - 1, 9, 1)) / DAY_MS);
    await mkdir(d.paths.date(date), { recursive: true });
    const manifest = {
      date,
      source_hash: 'v1:generated',
      sources: [],
      fields: { generator: 'test/helpers/history-db.ts' },
      rank: 0,
      variables: ['swe'],
      ingested_at: '2026-11-23T00:00:00Z',
    };
    await writeFile(d.paths.manifest(date), JSON.stringify(manifest));
    if (t <= 30 || t >= 280) return link(bare, d.paths.cog(date, 'swe'));
    const data = new Int16Array(W * H);
    for (let r = 0; r < H; r++) for (let c = 0; c < W; c++) data[r * W + c] = sweOf(wy, t, r, c);
    // The writer's bytes, without its fsync per file (a test fixture, rebuilt every run).
    await writeFile(d.paths.cog(date, 'swe'), encodeCog(d.grid, data, { nodata: -9999, level: 1 }));
  });
  await rebuildSeries(d);
  await cli('dataset', 'activate', 'hist');
}

/**
 * The run's history database, shared: for tests that only read it (queries write nothing), as
 * copying 7,400 date folders costs more than the queries. Returns the CLI environment.
 */
export async function historyDb(): Promise<Record<string, string>> {
  return { SNOWDB_CONFIG: join(await cachedFixture('history', build), 'db') };
}
