/**
 * A generated snow-cover database (shared, read-only; copy it to change it): a SPIRES-like
 * dataset `cover` (no template) with `snow_fraction` and `albedo` (uint8 percent) on a 90 × 60
 * window of the SNODAS lattice, terrain zones from the Zion DEM, one rectangular basin, and six
 * dates whose fraction is a known function of each pixel's elevation (FRACTION). `low.txt` holds
 * the basin's lowest 1000-ft band floor. A second dataset, `season`, holds daily SWE and
 * precipitation for an autumn with one missing day (SEASON), and two earlier autumns (one with a
 * missing day too). Registered from external configs: no SPIRES or SNODAS file can hold a cut grid.
 */
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { buildAreaRaster } from '../../src/datasets/artifacts.js';
import { openDataset } from '../../src/datasets/registry.js';
import { TEMPLATES } from '../../src/datasets/templates.js';
import { Database } from '../../src/db/database.js';
import { FileSource } from '../../src/io/source.js';
import { Cog } from '../../src/raster/cog.reader.js';
import { encodeCog } from '../../src/raster/cog.writer.js';
import { layerPath, M_TO_FT, ZONE_LAYERS } from '../../src/zones/layers.js';
import { cliOk } from './cli.js';
import { cachedFixture, copyFixture } from './fixture-cache.js';
import { fixturePath } from './raster.js';

export const BASIN = 'LINE:UT:TEST';
const BBOX = [-113.15, 37.25, -113.0, 37.4] as const;
const W = 90;
const H = 60;
const CELL = 0.008333333333333;
const ORIGIN_X = -124.73333333333333 + 1372 * CELL;
const ORIGIN_Y = 52.875 - 1839 * CELL;
export const DATES = ['2024-01-01', '2024-01-02', '2024-01-03', '2024-01-04', '2024-01-05', '2024-01-06'];

/** Per date, the fraction (percent, 255 = no data) of a pixel at `ft` feet; `low` = the basin's lowest band floor. */
export const FRACTION: Record<string, (ft: number, low: number) => number> = {
  '2024-01-01': (ft) => (ft > 6000 ? 100 : 0), // a step at 6000 ft
  '2024-01-02': () => 0, // no snow
  '2024-01-03': () => 100, // snow everywhere
  '2024-01-04': (ft, low) => (ft < low + 1000 ? 0 : 100), // only the lowest band bare
  '2024-01-05': (ft, low) => Math.round(Math.min(100, Math.max(0, (ft - low - 500) / 15))), // a ramp
  '2024-01-06': () => 255, // no data
  // Reference years for the snow line's normals: the ramp of 5 January, shifted.
  '2021-01-05': (ft, low) => Math.round(Math.min(100, Math.max(0, (ft - low - 800) / 15))),
  '2022-01-05': (ft, low) => Math.round(Math.min(100, Math.max(0, (ft - low - 300) / 15))),
  '2023-01-05': (ft, low) => Math.round(Math.min(100, Math.max(0, (ft - low - 1300) / 15))),
};

/** The reference years' dates of `cover` (water years 2021–2023), before DATES. */
export const REFERENCE_DATES = ['2021-01-05', '2022-01-05', '2023-01-05'];

async function build(dir: string): Promise<void> {
  const root = join(dir, 'db');
  const cli = cliOk(() => ({ SNOWDB_CONFIG: root }));
  await cli('init', root);
  const records = join(dir, 'records');
  await mkdir(records);
  const [x0, y0, x1, y1] = BBOX;
  const ring = [
    [x0, y0],
    [x1, y0],
    [x1, y1],
    [x0, y1],
    [x0, y0],
  ];
  await writeFile(
    join(records, 'LINE_UT_TEST.geojson'),
    JSON.stringify({
      type: 'GeometryCollection',
      id: BASIN,
      properties: { name: 'LINE' },
      geometries: [
        { type: 'Point', coordinates: [x0, y0] },
        { type: 'MultiPolygon', coordinates: [[ring]] },
      ],
    }),
  );
  await cli('pourpoint', 'sync', records);
  const config = join(root, 'data/cover/dataset.json');
  await mkdir(join(root, 'data/cover'), { recursive: true });
  const spires = TEMPLATES.instarr!.variables; // uint8 percent, nodata 255
  await writeFile(
    config,
    JSON.stringify({
      resource: 'snowdb.dataset/v1',
      description: 'generated snow cover on a 90 × 60 window of the SNODAS lattice',
      ingester: 'spires',
      grid: {
        crs: 'EPSG:4326',
        origin_x: ORIGIN_X,
        origin_y: ORIGIN_Y,
        cell_width: CELL,
        cell_height: CELL,
        width: W,
        height: H,
        tile_size: 64,
      },
      footprint: null,
      variables: { snow_fraction: spires.snow_fraction, albedo: spires.albedo_dirty_flat },
      zones: { terrain: { elevation: { band_step_ft: 1000 } } },
    }),
  );
  await cli('dataset', 'register', 'cover', config);
  await cli('pourpoint', 'reindex');
  await cli('pourpoint', 'rasterize', '--all', '--dataset', 'cover');
  await cli('dataset', 'generate-zones', 'cover', '--source', 'terrain', fixturePath('zion/srtm.tif'));
  const d = await openDataset(await Database.open(root), 'cover');
  await buildAreaRaster(d);
  const layer = ZONE_LAYERS.find((l) => l.key === 'terrain.elevation')!;
  const source = new FileSource(layerPath(d, layer));
  const cog = await Cog.open(source);
  // The layer covers a window of the grid (where the DEM is): elevation per grid pixel, -9999 outside.
  const g = cog.grid;
  const layerCells = (await cog.readWindow({
    col: 0,
    row: 0,
    width: g.width,
    height: g.height,
  })) as Float32Array;
  const dc = Math.round((g.originX - ORIGIN_X) / CELL);
  const dr = Math.round((ORIGIN_Y - g.originY) / CELL);
  const elevation = new Float32Array(W * H).fill(-9999);
  for (let r = 0; r < g.height; r++)
    for (let c = 0; c < g.width; c++) elevation[(r + dr) * W + c + dc] = layerCells[r * g.width + c]!;
  await source.close();
  // The basin's lowest band floor: over the pixels its rectangle overlaps.
  let min = Number.POSITIVE_INFINITY;
  for (let r = 0; r < H; r++)
    for (let c = 0; c < W; c++) {
      const px0 = ORIGIN_X + c * CELL;
      const py1 = ORIGIN_Y - r * CELL;
      if (px0 + CELL > x0 && px0 < x1 && py1 > y0 && py1 - CELL < y1 && elevation[r * W + c]! > -9999)
        min = Math.min(min, elevation[r * W + c]! * M_TO_FT);
    }
  const low = Math.floor(min / 1000) * 1000;
  for (const date of [...REFERENCE_DATES, ...DATES]) {
    await mkdir(d.paths.date(date), { recursive: true });
    const manifest = {
      date,
      source_hash: 'v1:generated',
      sources: [],
      fields: { generator: 'test/stats/snowline.test.ts' },
      rank: 0,
      variables: ['albedo', 'snow_fraction'],
      ingested_at: '2026-11-26T00:00:00Z',
    };
    await writeFile(d.paths.manifest(date), JSON.stringify(manifest));
    const data = new Uint8Array(W * H);
    elevation.forEach((m, i) => {
      data[i] = m <= -9999 ? 255 : FRACTION[date]!(m * M_TO_FT, low);
    });
    for (const v of ['snow_fraction', 'albedo'])
      await writeFile(d.paths.cog(date, v), encodeCog(d.grid, data, { nodata: 255, level: 1 }));
  }
  await writeFile(join(dir, 'low.txt'), String(low));
  await cli('dataset', 'activate', 'cover');
  await addSeason(root, cli);
}

/** The `season` dataset's days: 20 September – 31 December 2023, without SEASON_GAP. */
export const SEASON_GAP = '2023-11-15';
export const SEASON_DATES: readonly string[] = Array.from({ length: 103 }, (_, t) =>
  new Date(Date.UTC(2023, 8, 20 + t)).toISOString().slice(0, 10),
).filter((d) => d !== SEASON_GAP);
/** Its reference autumns: 1 October – 31 December of 2021 and 2022, without REFERENCE_GAP. */
export const REFERENCE_GAP = '2022-11-20';
export const SEASON_REFERENCE_DATES: readonly string[] = [2021, 2022]
  .flatMap((y) =>
    Array.from({ length: 92 }, (_, t) => new Date(Date.UTC(y, 9, 1 + t)).toISOString().slice(0, 10)),
  )
  .filter((d) => d !== REFERENCE_GAP);
/** Day t of SEASON for a date: days since 20 September of its year, plus 3 (2021) or 9 (2022) days. */
export const seasonDay = (date: string): number => {
  const y = Number(date.slice(0, 4));
  const days = Math.round((Date.parse(date) - Date.UTC(y, 8, 20)) / 86_400_000);
  return days + ({ 2021: 3, 2022: 9 }[y] ?? 0);
};

/** Stored values of pixel (r, c) on day t (0 = 20 September): SWE (mm) that rises and melts back, solid and liquid precipitation (kg/m² × 10). */
export const SEASON: Record<
  'swe' | 'precip_solid' | 'precip_liquid',
  (t: number, r: number, c: number) => number
> = {
  swe: (t, r, c) => Math.max(0, Math.round(3 * t + 40 * Math.sin(t / 4) + r + c - 60)),
  precip_solid: (t, _r, c) => Math.max(0, Math.round(10 * (2 + 3 * Math.sin(t / 3 + c / 20)))),
  precip_liquid: (t, r) => ((t + r) % 5 === 0 ? 15 : 0),
};

/**
 * A second dataset, `season`: daily SWE and precipitation (SNODAS's variable specs) on the same
 * window for an autumn with one missing day, for the change metrics.
 */
async function addSeason(root: string, cli: (...args: string[]) => Promise<unknown>): Promise<void> {
  const config = join(root, 'data/season/dataset.json');
  await mkdir(join(root, 'data/season'), { recursive: true });
  const snodas = TEMPLATES.snodas!.variables;
  await writeFile(
    config,
    JSON.stringify({
      ...JSON.parse(await readFile(join(root, 'data/cover/dataset.json'), 'utf8')),
      description: 'generated daily SWE and precipitation on a 90 × 60 window of the SNODAS lattice',
      ingester: 'snodas',
      variables: { swe: snodas.swe, precip_solid: snodas.precip_solid, precip_liquid: snodas.precip_liquid },
    }),
  );
  await cli('dataset', 'register', 'season', config);
  await cli('pourpoint', 'rasterize', '--all', '--dataset', 'season');
  await cli('dataset', 'generate-zones', 'season', '--source', 'terrain', fixturePath('zion/srtm.tif'));
  const d = await openDataset(await Database.open(root), 'season');
  await buildAreaRaster(d);
  for (const date of [...SEASON_REFERENCE_DATES, ...SEASON_DATES]) {
    const t = seasonDay(date);
    await mkdir(d.paths.date(date), { recursive: true });
    const variables = Object.keys(SEASON) as (keyof typeof SEASON)[];
    await writeFile(
      d.paths.manifest(date),
      JSON.stringify({
        date,
        source_hash: 'v1:generated',
        sources: [],
        fields: { generator: 'test/helpers/cover-db.ts' },
        rank: 0,
        variables: [...variables].sort(),
        ingested_at: '2026-11-26T00:00:00Z',
      }),
    );
    for (const v of variables) {
      const data = new Int16Array(W * H);
      for (let r = 0; r < H; r++) for (let c = 0; c < W; c++) data[r * W + c] = SEASON[v](t, r, c);
      await writeFile(d.paths.cog(date, v), encodeCog(d.grid, data, { nodata: -9999, level: 1 }));
    }
  }
  await cli('dataset', 'activate', 'season');
}

/** The shared snow-cover database: its folder (the database is `db/` in it) and the basin's lowest band floor, ft. */
export async function coverDb(): Promise<{ dir: string; low: number }> {
  const dir = await cachedFixture('cover', build);
  return { dir, low: Number(await readFile(join(dir, 'low.txt'), 'utf8')) };
}

/** A private copy of the snow-cover database in `dest` (its database is `dest/db`). */
export async function copyCoverDb(dest: string): Promise<void> {
  await copyFixture('cover', build, dest);
}
