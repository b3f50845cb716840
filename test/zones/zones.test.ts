import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { copyFile, readdir, readFile, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { promisify } from 'node:util';
import { snowdb, tempDir } from '../helpers/cli.js';
import { FileServer } from '../helpers/file-server.js';
import { snapshotTree } from '../helpers/fs.js';
import { gdalTool, type OracleInfo, oracle } from '../helpers/gdal.js';
import { fixturePath } from '../helpers/raster.js';

const run = promisify(execFile);
const SRTM = fixturePath('zion/srtm.tif');
const NLCD = fixturePath('zion/nlcd2011.tif');
const TERRAIN = [
  'aspect_entropy.tif',
  'aspect_majority.tif',
  'eastness.tif',
  'elevation.tif',
  'northness.tif',
];

interface Outcome {
  dataset: string;
  provider: string;
  action: string;
  layers: string[];
  window: { col: number; row: number; width: number; height: number } | null;
  sourcePixels: number;
}
interface TerrainCheck {
  elevation_cells: number;
  elevation_ours_cells: number;
  elevation_max_abs: number;
  cells: number;
  ours_cells: number;
  clear: number;
  clear_mismatch: number;
  all_mismatch: number;
  entropy_max_abs: number;
  northness_max_abs: number;
  eastness_max_abs: number;
  northness_mean_abs: number;
}

describe('zone layers: generate-zones from local and network sources', () => {
  let dir: string;
  let cleanup: () => Promise<void>;
  let env: Record<string, string>;
  let utm: string;
  const cli = (...args: string[]) => snowdb(args, { env });
  const layerDir = (d: string, p: string) => join(dir, 'db', 'data', d, 'zones', p);
  const samples = async (file: string) =>
    Number((await oracle<OracleInfo[]>('info', file))[0]!.metadata.SNOWDB_ZONE_SAMPLES);
  /** Both datasets from the local UTM DEM and the NLCD fixture. */
  const BOTH_LOCAL = () => ['snodas', 'instarr', '--source', 'terrain', utm, '--source', 'landcover', NLCD];
  const generate = async (...args: string[]): Promise<Outcome[]> => {
    const r = await cli('dataset', 'generate-zones', ...args, '--format', 'json');
    assert.equal(r.code, 0, r.stderr);
    return JSON.parse(r.stdout) as Outcome[];
  };

  before(async () => {
    ({ dir, cleanup } = await tempDir());
    env = { SNOWDB_CONFIG: join(dir, 'db') };
    assert.equal((await snowdb(['init', join(dir, 'db')])).code, 0);
    assert.equal((await cli('pourpoint', 'sync', fixturePath('zion/pourpoints'))).code, 0);
    for (const name of ['snodas', 'instarr']) {
      assert.equal((await cli('dataset', 'create', name, '--template', name)).code, 0);
    }
    // The Zion DEM on a projected grid, so gdaldem's Horn aspect is the oracle's.
    utm = join(dir, 'srtm_utm.tif');
    await gdalTool(
      'gdalwarp',
      ['-q', '-t_srs', 'EPSG:32612', '-tr', '90', '90', '-r', 'bilinear'].concat([
        '-ot',
        'Float32',
        '-dstnodata',
        '-9999',
        SRTM,
        utm,
      ]),
    );
  });
  after(() => cleanup());

  it('elevation from a geographic DEM equals gdalwarp -r average on the SNODAS grid', async () => {
    const out = await generate('snodas', '--source', 'terrain', SRTM, '--provider', 'terrain');
    assert.deepEqual(
      out.map((o) => [o.dataset, o.provider, o.action]),
      [['snodas', 'terrain', 'generated']],
    );
    assert.deepEqual(
      [...out[0]!.layers].sort(),
      TERRAIN.map((f) => `zones/terrain/${f}`),
    );
    const check = await oracle<{ n: number; interior_max_abs: number; interior: number; max_abs: number }>(
      'zone-elevation',
      join(layerDir('snodas', 'terrain'), 'elevation.tif'),
      SRTM,
    );
    // Cells wholly inside the DEM agree to 5 cm (GDAL weights pixels by area, we by 4×4 points);
    // cells on the DEM's edge differ more, because GDAL scales partial edge pixels differently.
    assert.ok(check.interior > 1500, `${check.interior} interior cells`);
    assert.ok(check.interior_max_abs < 0.05, `interior max |Δ| ${check.interior_max_abs} m`);
    // Our layer is a COG on the dataset grid, window-aligned to its tiles.
    const [info] = await oracle<OracleInfo[]>('info', join(layerDir('snodas', 'terrain'), 'elevation.tif'));
    assert.deepEqual(info!.cog_errors, []);
    const w = out[0]!.window!;
    assert.deepEqual(info!.size, [w.width, w.height]);
    assert.equal(w.col % 256, 0);
    assert.ok(Math.abs(info!.geotransform[0]! - (-124.733333333333 + w.col / 120)) < 1e-9);
    assert.equal(info!.nodata, -9999);
    assert.equal(info!.metadata.SNOWDB_ZONE_LAYER, 'terrain.elevation');
  });

  it('one shared read serves SNODAS and INSTARR; every layer matches GDAL/OSR recomputation', async () => {
    const out = await generate(...BOTH_LOCAL());
    assert.deepEqual(
      out.map((o) => `${o.dataset}/${o.provider}/${o.action}`),
      [
        'snodas/terrain/generated',
        'instarr/terrain/generated',
        'snodas/landcover/generated',
        'instarr/landcover/generated',
      ],
    );
    // The dataset advertises its axes, now generated (what GET /datasets/{dataset} publishes).
    const info = JSON.parse((await cli('dataset', 'info', 'instarr', '--format', 'json')).stdout);
    assert.deepEqual(
      info.zones.map((z: { key: string; present: boolean }) => `${z.key}:${z.present}`),
      [
        'landcover.forest_cover',
        'terrain.aspect',
        'terrain.aspect_entropy',
        'terrain.eastness',
        'terrain.elevation',
        'terrain.northness',
      ].map((k) => `${k}:true`),
    );
    assert.deepEqual(info.zones[4], {
      key: 'terrain.elevation',
      kind: 'banded',
      param: 'band_step_ft',
      default: 1000,
      unit: 'ft',
      min: -1000,
      max: 15000,
      present: true,
    });
    assert.deepEqual(
      info.zones[1].classes.map((c: { label: string }) => c.label),
      ['N', 'E', 'S', 'W', 'flat'],
    );
    // One pass per provider: both datasets report the same pixels read, at most the source once.
    for (const p of ['terrain', 'landcover']) {
      const px = out.filter((o) => o.provider === p).map((o) => o.sourcePixels);
      assert.equal(px[0], px[1]);
      const [w, h] = p === 'terrain' ? (await oracle<OracleInfo[]>('info', utm))[0]!.size : [1073, 1359];
      assert.ok(px[0]! > 0 && px[0]! <= w * h, `${p}: ${px[0]} of ${w * h}`);
    }
    // Terrain on SNODAS: gdaldem slope/aspect on the same DEM, S×S points per pixel by OSR.
    const s = await samples(join(layerDir('snodas', 'terrain'), 'aspect_majority.tif'));
    const t = await oracle<TerrainCheck>('zone-terrain', layerDir('snodas', 'terrain'), utm, String(s));
    assert.ok(t.cells > 2000);
    assert.equal(t.ours_cells, t.cells);
    assert.equal(t.elevation_ours_cells, t.elevation_cells);
    assert.ok(t.elevation_max_abs < 0.5, `elevation ${t.elevation_max_abs}`);
    // Majority class: identical wherever the winner leads by 15 % of the cell; near-ties may flip
    // (gdaldem computes in float32), at most 1 % of cells.
    assert.equal(t.clear_mismatch, 0);
    assert.ok(t.clear > 1000);
    assert.ok(t.all_mismatch <= t.cells / 100, `${t.all_mismatch} near-tie flips`);
    assert.ok(t.northness_mean_abs < 1e-3 && t.northness_max_abs < 0.05, JSON.stringify(t));
    assert.ok(t.eastness_max_abs < 0.05 && t.entropy_max_abs < 0.1, JSON.stringify(t));
    // Forest cover on both grids (UTM NLCD → geographic SNODAS and sinusoidal INSTARR).
    for (const d of ['snodas', 'instarr']) {
      const layer = join(layerDir(d, 'landcover'), 'forest_cover_pct.tif');
      const f = await oracle<{ cells: number; mismatch: number; max_diff: number; forested_cells: number }>(
        'zone-forest',
        layer,
        NLCD,
        String(await samples(layer)),
      );
      assert.ok(f.cells > 2000 && f.forested_cells > 1000, JSON.stringify(f));
      assert.ok(f.mismatch <= f.cells / 500 && f.max_diff <= 1, `${d}: ${JSON.stringify(f)}`);
    }
  });

  it('a second run skips current layers; --force regenerates; a failed run keeps the old layers', async () => {
    const before = await snapshotTree(join(dir, 'db', 'data'));
    const again = await generate(...BOTH_LOCAL());
    assert.deepEqual([...new Set(again.map((o) => o.action))], ['current']);
    assert.deepEqual(await snapshotTree(join(dir, 'db', 'data')), before);

    const forced = await generate('snodas', '--source', 'terrain', utm, '--provider', 'terrain', '--force');
    assert.deepEqual(
      forced.map((o) => o.action),
      ['generated'],
    );

    const snap = await snapshotTree(join(dir, 'db'));
    const broken = join(dir, 'broken.tif');
    await writeFile(broken, (await readFile(utm)).subarray(0, 4000));
    const r = await cli('dataset', 'generate-zones', 'snodas', '--source', 'terrain', broken, '--force');
    assert.equal(r.code, 1);
    assert.match(r.stderr, /broken\.tif/);
    const missing = await cli(
      'dataset',
      'generate-zones',
      'snodas',
      '--source',
      'terrain',
      join(dir, 'nope.tif'),
    );
    assert.equal(missing.code, 1);
    assert.match(missing.stderr, /nope\.tif: no such file/);
    const odd = await cli('dataset', 'generate-zones', 'snodas', '--source', 'terrain');
    assert.equal(odd.code, 2);
    assert.match(odd.stderr, /--source takes two values, <provider> <path>/);
    const unknown = await cli('dataset', 'generate-zones', 'snodas', '--source', 'soil', utm);
    assert.equal(unknown.code, 2);
    assert.match(unknown.stderr, /unknown zone provider 'soil' \(known: terrain, landcover\)/);
    const nods = await cli('dataset', 'generate-zones', 'nosuch');
    assert.equal(nods.code, 1);
    assert.match(nods.stderr, /nosuch/);
    // A DEM given as land cover is refused by what it holds, not turned into a forest layer.
    const dem = await cli(
      'dataset',
      'generate-zones',
      'snodas',
      '--source',
      'landcover',
      utm,
      '--provider',
      'landcover',
    );
    assert.equal(dem.code, 1);
    assert.match(
      dem.stderr,
      /not a land-cover raster: land cover holds 8-bit class codes \(NLCD\), this one holds \w+ values/,
    );
    // Terrain from another DEM generated, then land cover failing: no new terrain layer lands.
    const half = await cli(
      'dataset',
      'generate-zones',
      'snodas',
      '--source',
      'terrain',
      fixturePath('zion/srtm.tif'),
      '--source',
      'landcover',
      broken,
      '--force',
    );
    assert.equal(half.code, 1);
    assert.match(half.stderr, /broken\.tif/);
    assert.deepEqual(await snapshotTree(join(dir, 'db')), snap);
  });

  it('network defaults: 3DEP tiles by range requests and a resumable NLCD zip, from a loopback server', async () => {
    // Two 3DEP-style tiles (EPSG:4269, float32, nodata -999999, COG) cut from the Zion DEM at
    // -113° (column 287.5) with 8 columns of overlap, like the real 1/3″ tiles.
    const tiles = new Map<string, string>();
    for (const [name, win] of [
      ['n38w114', ['0', '0', '292', '457']],
      ['n38w113', ['284', '0', '181', '457']],
    ] as const) {
      const f = join(dir, `USGS_13_${name}.tif`);
      await gdalTool(
        'gdal_translate',
        ['-q', '-of', 'COG', '-a_srs', 'EPSG:4269', '-ot', 'Float32'].concat([
          '-a_nodata',
          '-999999',
          '-srcwin',
          ...win,
          SRTM,
          f,
        ]),
      );
      tiles.set(`/dem/${name}/USGS_13_${name}.tif`, f);
    }
    const zip = join(dir, 'nlcd.zip');
    await run('/usr/bin/python3', [
      '-c',
      `import zipfile; z = zipfile.ZipFile('${zip}', 'w', zipfile.ZIP_DEFLATED); z.write('${NLCD}', 'Annual_NLCD_test.tif'); z.close()`,
    ]);
    tiles.set('/nlcd/Annual_NLCD_test.zip', zip);
    const server = await FileServer.start(tiles);
    try {
      const netEnv = {
        ...env,
        SNOWDB_3DEP_URL: `${server.base}/dem`,
        SNOWDB_NLCD_URL: `${server.base}/nlcd/Annual_NLCD_test.zip`,
      };
      const net = (...args: string[]) => snowdb(['dataset', 'generate-zones', ...args], { env: netEnv });

      // The download breaks after 100 kB: a clear error, the layers untouched, the part file kept.
      const snap = await snapshotTree(join(dir, 'db', 'data'));
      server.fault('/nlcd/Annual_NLCD_test.zip', { kind: 'reset', after: 100_000 });
      const broken = await net('snodas', '--provider', 'landcover');
      assert.equal(broken.code, 1);
      assert.match(broken.stderr, /download interrupted after \d+ bytes.*run the command again to resume/);
      assert.deepEqual(await snapshotTree(join(dir, 'db', 'data')), snap);
      const cache = join(dir, 'db', '.cache', 'landcover');
      const kept = (await stat(join(cache, 'Annual_NLCD_test.zip.part'))).size;
      assert.ok(kept > 0 && kept <= 100_000, `${kept} bytes kept`);

      // The next run resumes from the bytes kept, extracts the GeoTIFF and deletes the zip.
      const ok = await net('snodas', 'instarr', '--format', 'json');
      assert.equal(ok.code, 0, ok.stderr);
      const out = JSON.parse(ok.stdout) as Outcome[];
      // Terrain comes from a new source; the extracted NLCD is byte-identical to the fixture the
      // landcover layers were built from, so they are current (provenance is by content).
      assert.deepEqual(
        out.map((o) => `${o.dataset}/${o.provider}/${o.action}`),
        [
          'snodas/terrain/generated',
          'instarr/terrain/generated',
          'snodas/landcover/current',
          'instarr/landcover/current',
        ],
      );
      assert.ok(
        server.seen.some((s) => s.path.endsWith('.zip') && s.range === `bytes=${kept}-` && s.status === 206),
      );
      assert.deepEqual((await readdir(cache)).sort(), ['Annual_NLCD_test.tif']);
      assert.equal(
        (await readFile(join(cache, 'Annual_NLCD_test.tif'))).toString('hex'),
        (await readFile(NLCD)).toString('hex'),
      );
      // Every 3DEP read was a range request; absent tiles answered 404 and were skipped.
      const dem = server.seen.filter((s) => s.path.startsWith('/dem/'));
      assert.ok(dem.filter((s) => s.status === 206).length >= 2);
      assert.ok(dem.every((s) => s.status === 404 || s.range !== undefined));
      // The mosaic of the two tiles is the Zion DEM: the same elevations as from the local file.
      const local = join(dir, 'local');
      await copyFile(join(layerDir('snodas', 'terrain'), 'elevation.tif'), `${local}-net.tif`);
      await generate('snodas', '--source', 'terrain', SRTM, '--provider', 'terrain');
      const a = await oracle<{ sum: number }>('raster-sum', `${local}-net.tif`);
      const b = await oracle<{ sum: number }>(
        'raster-sum',
        join(layerDir('snodas', 'terrain'), 'elevation.tif'),
      );
      assert.ok(Math.abs(a.sum - b.sum) < 1e-6 * Math.abs(b.sum), `${a.sum} vs ${b.sum}`);
      // A second network run is current without touching the (deleted) zip.
      const seen = server.seen.length;
      const again = JSON.parse(
        (await net('snodas', '--provider', 'landcover', '--format', 'json')).stdout,
      ) as Outcome[];
      assert.deepEqual(
        again.map((o) => o.action),
        ['current'],
      );
      assert.equal(server.seen.filter((s, i) => i >= seen && s.path.endsWith('.zip')).length, 0);
    } finally {
      await server.close();
    }
  });
});
