import assert from 'node:assert/strict';
import { mkdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { snowdb, tempDir } from '../helpers/cli.js';
import { snapshotTree } from '../helpers/fs.js';
import { type OracleInfo, oracle } from '../helpers/gdal.js';

const tileName = (h: number, v: number, date: string, collection = 'MOD09GA061', version = 'V1.0') =>
  `SPIRES_NRT_h${String(h).padStart(2, '0')}v${String(v).padStart(2, '0')}_${collection}_${date}_${version}.nc`;

describe('dataset ingest: SPIRES NRT tiles mosaicked on the instarr grid', () => {
  let dir: string;
  let cleanup: () => Promise<void>;
  let root: string;
  let tiles: string;
  const env = () => ({ SNOWDB_CONFIG: root });
  const cog = (v: string) => join(root, 'data/instarr/cogs/20250101', `${v}.tif`);
  const TILES: [number, number][] = [
    [8, 4],
    [9, 5],
    [10, 4],
  ];
  const pathOf = (h: number, v: number) =>
    join(tiles, `h${String(h).padStart(2, '0')}v0${v}`, '2025', '01', tileName(h, v, '20250101'));

  before(async () => {
    ({ dir, cleanup } = await tempDir());
    root = join(dir, 'db');
    tiles = join(dir, 'tiles');
    assert.equal((await snowdb(['init', root])).code, 0);
    assert.equal(
      (await snowdb(['dataset', 'create', 'instarr', '--template', 'instarr'], { env: env() })).code,
      0,
    );
    for (const [h, v] of TILES) {
      await mkdir(join(pathOf(h, v), '..'), { recursive: true });
      await oracle('make-spires', pathOf(h, v), String(h), String(v), String(h * 10 + v));
    }
  });
  after(() => cleanup());

  it('mosaics a folder of tiles (upstream layout) into one date; each tile lands where GDAL reads it', async () => {
    const r = await snowdb(['dataset', 'ingest', 'instarr', tiles], { env: env() });
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /2025-01-01\s+ingested\s+SPIRES_NRT_h08v04/);
    for (const [h, v] of TILES) {
      for (const variable of ['snow_fraction', 'grain_size', 'radiative_forcing']) {
        const c = await oracle<{ mismatches: number; shape: number[] }>(
          'compare-window',
          cog(variable),
          `NETCDF:"${pathOf(h, v)}":${variable}`,
          String((h - 8) * 2400),
          String((v - 4) * 2400),
        );
        assert.deepEqual(c.shape, [2400, 2400]);
        assert.equal(c.mismatches, 0, `h${h}v${v} ${variable}`);
      }
    }
    const [info] = await oracle<OracleInfo[]>('info', cog('grain_size'));
    assert.deepEqual(info!.cog_errors, []);
    assert.equal(info!.dtype, 'uint16');
    assert.equal(info!.nodata, 65535);
    assert.deepEqual(info!.size, [7200, 4800]);
    assert.ok(Math.abs(info!.geotransform[0]! - -11119505.196666665) < 1e-6);
    assert.equal(info!.metadata.SOURCE_TILES, 'h08v04 h09v05 h10v04');
    assert.equal(info!.metadata.SOURCE_COLLECTION, 'MOD09GA061');
    // A missing tile (h08v05) stays nodata.
    const out = join(dir, 'h08v05.bin');
    await oracle('window', cog('snow_fraction'), '0', '2400', '2400', '2400', out);
    assert.ok((await readFile(out)).every((b) => b === 255));
  });

  it('mosaics tiles named one by one (e.g. by fetch) into one date, not one tile per source', async () => {
    assert.equal(
      (await snowdb(['dataset', 'create', 'byfile', '--template', 'instarr'], { env: env() })).code,
      0,
    );
    const r = await snowdb(['dataset', 'ingest', 'byfile', ...TILES.map(([h, v]) => pathOf(h, v))], {
      env: env(),
    });
    assert.equal(r.code, 0, r.stderr);
    const cogOf = (v: string) => join(root, 'data/byfile/cogs/20250101', `${v}.tif`);
    const [info] = await oracle<OracleInfo[]>('info', cogOf('snow_fraction'));
    assert.equal(info!.metadata.SOURCE_TILES, 'h08v04 h09v05 h10v04');
    const c = await oracle<{ mismatches: number }>(
      'compare-window',
      cogOf('snow_fraction'),
      `NETCDF:"${pathOf(10, 4)}":snow_fraction`,
      String(2 * 2400),
      '0',
    );
    assert.equal(c.mismatches, 0);
  });

  it('refuses tiles outside the grid, mixed collections, misplaced tiles and missing variables', async () => {
    const bad = join(dir, 'bad');
    await mkdir(bad);
    const before = await snapshotTree(join(root, 'data'));
    const outside = join(bad, tileName(11, 4, '20250102'));
    await oracle('make-spires', outside, '11', '4', '1', 'snow_fraction');
    const mixedA = join(bad, 'mixed', tileName(8, 4, '20250103'));
    const mixedB = join(bad, 'mixed', tileName(9, 4, '20250103', 'MOD09GA062'));
    await mkdir(join(bad, 'mixed'));
    await oracle('make-spires', mixedA, '8', '4', '1', 'snow_fraction');
    await oracle('make-spires', mixedB, '9', '4', '1', 'snow_fraction');
    const misplaced = join(bad, tileName(8, 4, '20250104'));
    await oracle('make-spires', misplaced, '9', '4', '1');
    const partial = join(bad, tileName(8, 4, '20250105'));
    await oracle('make-spires', partial, '8', '4', '1', 'snow_fraction,deltavis');
    const cases: [string, RegExp][] = [
      [
        outside,
        /h11v04_MOD09GA061_20250102_V1\.0\.nc: tile h11v04 is outside the grid \(h08-h10 x v04-v05\)/,
      ],
      [
        join(bad, 'mixed'),
        /MOD09GA062_20250103_V1\.0\.nc: MOD09GA062 V1\.0 differs from .*MOD09GA061 V1\.0\); tiles of a date must agree/,
      ],
      [
        misplaced,
        /20250104_V1\.0\.nc: its coordinates place it at column 2400\.000, row 0\.000, not where tile h8v4 lies/,
      ],
      [partial, /20250105_V1\.0\.nc: no variable 'viewable_snow_fraction'/],
    ];
    for (const [src, msg] of cases) {
      const r = await snowdb(['dataset', 'ingest', 'instarr', src], { env: env() });
      assert.equal(r.code, 1, src);
      assert.match(r.stderr, msg);
    }
    const snap = await snapshotTree(join(root, 'data'));
    assert.deepEqual(snap, before);
  });
});
