import assert from 'node:assert/strict';
import { copyFile, mkdir, readdir, readFile, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { snowdb, tempDir } from '../helpers/cli.js';
import { shiftedRecord, snapshotTree } from '../helpers/fs.js';
import { type OracleInfo, oracle } from '../helpers/gdal.js';
import { fixturePath } from '../helpers/raster.js';

const FIX = fixturePath('pourpoints');
const CEA_WGS84 = '+proj=cea +lon_0=0 +lat_ts=0 +datum=WGS84 +units=m +no_defs';
const CEA_GRS80 = '+proj=cea +lon_0=0 +lat_ts=0 +ellps=GRS80 +units=m +no_defs';
const SINU = '+proj=sinu +lon_0=0 +x_0=0 +y_0=0 +R=6371007.181 +units=m +no_defs';
const SWANN_BOX = ['-125.0208', '24.0625246505202881', '-66.4791891046392891', '49.9375'];

interface RasterSum {
  sum: number;
  size: [number, number];
  geotransform: number[];
  metadata: Record<string, string>;
}
interface IndexFile {
  features: { id: string; properties: { area_meters: number; coverage: Record<string, string> } }[];
}

/** A real basin moved by (dLon, dLat) degrees under a new triplet: same shape, another place. */
describe('datasets: templates, create, register, activate, AOI rasters and coverage', () => {
  let dir: string;
  let cleanup: () => Promise<void>;
  let root: string;
  let src: string;
  const env = () => ({ SNOWDB_CONFIG: root });
  const index = async () =>
    JSON.parse(await readFile(join(root, 'pourpoints/index.geojson'), 'utf8')) as IndexFile;
  const entry = async (id: string) => (await index()).features.find((f) => f.id === id)!;

  before(async () => {
    ({ dir, cleanup } = await tempDir());
    root = join(dir, 'db');
    src = join(dir, 'src');
    await mkdir(src);
    for (const n of ['10311100_NV_USGS', '06091700_MT_USGS', 'WHEATFLD_AZ_USGS']) {
      await copyFile(join(FIX, `${n}.geojson`), join(src, `${n}.geojson`));
    }
    // Kings Canyon moved 10.79° north: it straddles SWANN's north edge (49.9375°N).
    await writeFile(
      join(src, 'EDGE_NV_TEST.geojson'),
      await shiftedRecord(join(FIX, '10311100_NV_USGS.geojson'), 'EDGE:NV:TEST', 0, 10.79),
    );
    // Moved 32° east (to about -87.8°): inside SNODAS, east of every SPIRES tile.
    await writeFile(
      join(src, 'EAST_NV_TEST.geojson'),
      await shiftedRecord(join(FIX, '10311100_NV_USGS.geojson'), 'EAST:NV:TEST', 32, 0),
    );
    assert.equal((await snowdb(['init', root])).code, 0);
    const s = await snowdb(['pourpoint', 'sync', src], { env: env() });
    assert.equal(s.code, 0, s.stderr);
  });
  after(() => cleanup());

  it('create snodas: config, area raster and AOI rasters that GDAL reads; registered inactive', async () => {
    const r = await snowdb(['dataset', 'create', 'snodas', '--template', 'snodas'], { env: env() });
    assert.equal(r.code, 0, r.stderr);
    assert.match(
      r.stdout,
      /^created snodas \(snodas\) at .*; area raster built; AOI rasters: 5 built, 0 current, 0 removed; coverage: 5 full, 0 partial, 0 none$/m,
    );
    assert.match(r.stderr, /registered snodas \(inactive/);
    const config = JSON.parse(await readFile(join(root, 'snowdb.json'), 'utf8'));
    assert.deepEqual(config.datasets.snodas, { path: 'data/snodas/dataset.json', active: false });

    const [area] = await oracle<OracleInfo[]>('info', join(root, 'data/snodas/area.tif'));
    assert.deepEqual(area!.cog_errors, []);
    assert.deepEqual(area!.size, [6935, 3351]);
    assert.deepEqual(
      area!.geotransform,
      [-124.73333333333333, 0.008333333333333, 0, 52.875, 0, -0.008333333333333],
    );
    // The whole grid's cell areas add up to the ellipsoidal area of its lon/lat box (CEA is equal-area).
    const total = await oracle<RasterSum>('raster-sum', join(root, 'data/snodas/area.tif'));
    const box = [
      '-124.73333333333333',
      String(52.875 - 3351 * 0.008333333333333),
      String(-124.73333333333333 + 6935 * 0.008333333333333),
      '52.875',
    ];
    const rect = await oracle<{ area: number }>('box-area', ...box, CEA_WGS84);
    assert.ok(Math.abs(total.sum / rect.area - 1) < 1e-6, `${total.sum} vs ${rect.area}`);

    // Fully covered basins: AOI weights add up to the basin's area (GDAL sum vs OGR area in CEA).
    for (const [stem, id] of [
      ['10311100_NV_USGS', '10311100:NV:USGS'],
      ['06091700_MT_USGS', '06091700:MT:USGS'],
      ['WHEATFLD_AZ_USGS', 'WHEATFLD:AZ:USGS'],
    ] as const) {
      const aoi = await oracle<RasterSum>('raster-sum', join(root, 'data/snodas/aoi', `${stem}.tif`));
      const ogr = await oracle<{ area: number }>('basin-area', join(FIX, `${stem}.geojson`), CEA_WGS84);
      assert.ok(Math.abs(aoi.sum / ogr.area - 1) < 1e-6, `${stem}: ${aoi.sum} vs ${ogr.area}`);
      assert.ok(Math.abs(aoi.sum / (await entry(id)).properties.area_meters - 1) < 1e-6);
      // Written over whole 256-px tiles of the dataset grid.
      const [col, row, w, h] = aoi.metadata.SNOWDB_AOI_WINDOW!.split(' ').map(Number) as [
        number,
        number,
        number,
        number,
      ];
      assert.equal(col % 256, 0);
      assert.equal(row % 256, 0);
      assert.deepEqual(aoi.size, [w, h]);
      assert.ok(Math.abs(aoi.geotransform[0]! - (-124.73333333333333 + col * 0.008333333333333)) < 1e-9);
      assert.ok(Math.abs(aoi.geotransform[3]! - (52.875 - row * 0.008333333333333)) < 1e-9);
    }
    assert.deepEqual((await entry('EAST:NV:TEST')).properties.coverage, { snodas: 'full' });
  });

  it('create is convergent: a second run rebuilds nothing and changes no byte', async () => {
    const before = await snapshotTree(root);
    const r = await snowdb(['dataset', 'create', 'snodas', '--template', 'snodas'], { env: env() });
    assert.equal(r.code, 0, r.stderr);
    assert.match(
      r.stdout,
      /^dataset already created: snodas .* area raster current; AOI rasters: 0 built, 5 current/m,
    );
    assert.deepEqual(await snapshotTree(root), before);
  });

  it('swann-800m: a basin over the north edge is partial and its AOI holds only the in-grid part', async () => {
    const r = await snowdb(['dataset', 'create', 'swann', '--template', 'swann-800m'], { env: env() });
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /coverage: 4 full, 1 partial, 0 none$/m);
    assert.equal((await entry('EDGE:NV:TEST')).properties.coverage.swann, 'partial');
    const aoi = await oracle<RasterSum>('raster-sum', join(root, 'data/swann/aoi/EDGE_NV_TEST.tif'));
    const src2 = join(src, 'EDGE_NV_TEST.geojson');
    const inGrid = await oracle<{ area: number }>('basin-area', src2, CEA_GRS80, ...SWANN_BOX);
    const whole = (await entry('EDGE:NV:TEST')).properties.area_meters;
    assert.ok(inGrid.area < 0.9 * whole && inGrid.area > 0.1 * whole, `${inGrid.area} of ${whole}`);
    assert.ok(Math.abs(aoi.sum / inGrid.area - 1) < 1e-6, `${aoi.sum} vs ${inGrid.area}`);
    assert.equal(aoi.geotransform[3], 49.9375); // the window starts at the grid's first row
  });

  it('instarr: coverage against the tile footprint; a basin east of the tiles is none and gets no raster', async () => {
    const r = await snowdb(['dataset', 'create', 'instarr', '--template', 'instarr'], { env: env() });
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /AOI rasters: 4 built.*coverage: 4 full, 0 partial, 1 none$/m);
    assert.equal((await entry('EAST:NV:TEST')).properties.coverage.instarr, 'none');
    assert.ok(!(await readdir(join(root, 'data/instarr/aoi'))).includes('EAST_NV_TEST.tif'));
    // Projected grid: weights add up to the basin's area in the sinusoid (edges straight there).
    const aoi = await oracle<RasterSum>('raster-sum', join(root, 'data/instarr/aoi/10311100_NV_USGS.tif'));
    const ogr = await oracle<{ area: number }>('basin-area', join(FIX, '10311100_NV_USGS.geojson'), SINU);
    assert.ok(Math.abs(aoi.sum / ogr.area - 1) < 1e-6, `${aoi.sum} vs ${ogr.area}`);
    const [info] = await oracle<OracleInfo[]>('info', join(root, 'data/instarr/area.tif'));
    assert.deepEqual(info!.size, [7200, 4800]);
    assert.equal(info!.block[0], 512);
  });

  it('list and info: stat names with volumes, grid, artifacts', async () => {
    const list = await snowdb(['dataset', 'list'], { env: env() });
    assert.equal(list.code, 0, list.stderr);
    assert.match(list.stdout, /^instarr\s+no\s+instarr\s+0\s*$/m);
    const info = JSON.parse(
      (await snowdb(['dataset', 'info', 'snodas', '--format', 'json'], { env: env() })).stdout,
    );
    assert.deepEqual(
      info.variables.map((v: { stat: string }) => v.stat),
      [
        'mean_average_temp_k',
        'mean_depth_mm',
        'mean_precip_liquid_kg_per_m2',
        'total_precip_liquid_m3',
        'mean_precip_solid_kg_per_m2',
        'total_precip_solid_m3',
        'mean_runoff_mm',
        'total_runoff_m3',
        'mean_sublimation_mm',
        'mean_sublimation_blowing_mm',
        'mean_swe_mm',
        'total_swe_m3',
      ],
    );
    assert.equal(info.aoi_rasters, 5);
    assert.equal(info.area_raster, true);
    assert.deepEqual(info.date_list, []);
    const swann = JSON.parse(
      (await snowdb(['dataset', 'info', 'swann', '--format', 'json'], { env: env() })).stdout,
    );
    assert.equal(swann.grid.cell_width, 0.008333325394357);
    assert.deepEqual([swann.grid.width, swann.grid.height, swann.grid.crs], [7025, 3105, 'EPSG:4269']);
    const table = await snowdb(['dataset', 'info', 'instarr'], { env: env() });
    assert.match(table.stdout, /^grid\s+MODIS:SINUSOIDAL 7200 x 4800/m);
    assert.match(table.stdout, /^grain_size\s+mean_grain_size_um\s+um\s+uint16\s+65535/m);
  });

  it('a basin imported later gets its AOI rasters and coverage; a prune removes them', async () => {
    const r = await snowdb(['pourpoint', 'import', join(FIX, '150021_CA_USGS.geojson')], { env: env() });
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stderr, /built 3 AOI raster\(s\) of imported basins/);
    assert.deepEqual((await entry('150021:CA:USGS')).properties.coverage, {
      instarr: 'full',
      snodas: 'full',
      swann: 'full',
    });
    for (const ds of ['snodas', 'swann', 'instarr'])
      await stat(join(root, 'data', ds, 'aoi/150021_CA_USGS.tif'));
    const archive = join(dir, 'archive');
    const p = await snowdb(['pourpoint', 'sync', src, '--prune-to', archive], { env: env() });
    assert.equal(p.code, 0, p.stderr);
    assert.match(p.stdout, /pruned 1 to/);
    for (const ds of ['snodas', 'swann', 'instarr']) {
      assert.ok(!(await readdir(join(root, 'data', ds, 'aoi'))).includes('150021_CA_USGS.tif'), ds);
    }
    const rz = await snowdb(['pourpoint', 'rasterize', '--all', '-d', 'snodas'], { env: env() });
    assert.equal(rz.code, 0, rz.stderr);
    assert.match(rz.stderr, /built 0, current 5/);
  });

  it('register, activate, deactivate; bad names, unknown datasets and templates are refused', async () => {
    const ext = join(dir, 'external');
    await mkdir(ext);
    await copyFile(join(root, 'data/swann/dataset.json'), join(ext, 'dataset.json'));
    const reg = await snowdb(['dataset', 'register', 'ext', join(ext, 'dataset.json')], { env: env() });
    assert.equal(reg.code, 0, reg.stderr);
    let config = JSON.parse(await readFile(join(root, 'snowdb.json'), 'utf8'));
    assert.deepEqual(config.datasets.ext, { path: join(ext, 'dataset.json'), active: false });
    assert.equal((await entry('10311100:NV:USGS')).properties.coverage.ext, undefined); // until reindex
    assert.equal((await snowdb(['pourpoint', 'reindex'], { env: env() })).code, 0);
    assert.equal((await entry('EDGE:NV:TEST')).properties.coverage.ext, 'partial');

    assert.equal(
      (await snowdb(['dataset', 'activate', 'snodas'], { env: env() })).stdout.trim(),
      'activated snodas',
    );
    assert.equal(
      (await snowdb(['dataset', 'activate', 'snodas'], { env: env() })).stdout.trim(),
      'snodas is already active',
    );
    config = JSON.parse(await readFile(join(root, 'snowdb.json'), 'utf8'));
    assert.equal(config.datasets.snodas.active, true);
    assert.equal(
      (await snowdb(['dataset', 'deactivate', 'snodas'], { env: env() })).stdout.trim(),
      'deactivated snodas',
    );

    const before = await snapshotTree(root);
    const unknown = await snowdb(['dataset', 'activate', 'nope'], { env: env() });
    assert.equal(unknown.code, 1);
    assert.match(
      unknown.stderr,
      /^Error: no dataset 'nope' is registered \(registered: ext, instarr, snodas, swann\)/m,
    );
    // A reader (stats, the API) is told only of the active datasets: snodas is inactive now.
    const reader = await snowdb(['stats', 'nope', 'X:UT:USGS'], { env: env() });
    assert.equal(reader.code, 1);
    assert.match(reader.stderr, /^Error: no active dataset 'nope'/m);
    assert.doesNotMatch(reader.stderr, /snodas/);
    for (const bad of ['../x', 'a/b', '.hidden', 'x.json']) {
      const r = await snowdb(['dataset', 'create', bad, '--template', 'snodas'], { env: env() });
      assert.equal(r.code, 1, bad);
      assert.match(r.stderr, /is not a dataset name/);
    }
    const tpl = await snowdb(['dataset', 'create', 'x', '--template', 'modis'], { env: env() });
    assert.equal(tpl.code, 2);
    assert.match(tpl.stderr, /Allowed choices are snodas, swann-800m, instarr/);
    const broken = join(dir, 'broken.json');
    await writeFile(broken, '{"resource": "snowdb.dataset/v1"}');
    const bad = await snowdb(['dataset', 'register', 'broken', broken], { env: env() });
    assert.equal(bad.code, 1);
    assert.match(bad.stderr, /broken\.json is not a snowdb dataset config at description/);
    assert.deepEqual(await snapshotTree(root), before);
  });
});
