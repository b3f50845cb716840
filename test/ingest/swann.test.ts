import assert from 'node:assert/strict';
import { copyFile, readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { snowdb, tempDir } from '../helpers/cli.js';
import { snapshotTree } from '../helpers/fs.js';
import { type OracleInfo, oracle } from '../helpers/gdal.js';

const name = (date: string, stage: string) => `UA_SWE_Depth_800m_v1_${date}_${stage}.nc`;

describe('dataset ingest: SWANN NetCDF-4 (h5wasm) with stage precedence', () => {
  let dir: string;
  let cleanup: () => Promise<void>;
  let root: string;
  const env = () => ({ SNOWDB_CONFIG: root });
  const cog = (date: string, v: string) => join(root, 'data/swann/cogs', date, `${v}.tif`);
  const f = (n: string) => join(dir, n);

  before(async () => {
    ({ dir, cleanup } = await tempDir());
    root = join(dir, 'db');
    assert.equal((await snowdb(['init', root])).code, 0);
    assert.equal(
      (await snowdb(['dataset', 'create', 'swann', '--template', 'swann-800m'], { env: env() })).code,
      0,
    );
    // Rows stored south-first in one file and north-first in the other (both real layouts).
    await oracle('make-swann', f(name('20240115', 'early')), 'south', '1');
    await oracle('make-swann', f(name('20240115', 'stable')), 'north', '2');
    await copyFile(f(name('20240115', 'early')), f(name('20240116', 'provisional')));
  });
  after(() => cleanup());

  it("ingests north-up COGs equal to what GDAL's netCDF driver reads, recording the stage", async () => {
    const r = await snowdb(
      ['dataset', 'ingest', 'swann', f(name('20240115', 'early')), f(name('20240116', 'provisional'))],
      { env: env() },
    );
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /2024-01-15\s+ingested/);
    assert.match(r.stdout, /2024-01-16\s+ingested/);
    for (const [v, nc] of [
      ['swe', 'SWE'],
      ['depth', 'DEPTH'],
    ]) {
      const [src, out] = await oracle<OracleInfo[]>(
        'info',
        `NETCDF:"${f(name('20240115', 'early'))}":${nc}`,
        cog('20240115', v!),
      );
      assert.equal(out!.sha256, src!.sha256, v);
      assert.deepEqual(out!.cog_errors, []);
      assert.deepEqual(out!.geotransform, [-125.0208, 0.008333325394357, 0, 49.9375, 0, -0.008333325394357]);
      assert.equal(out!.nodata, -999);
      assert.equal(out!.metadata.SOURCE_STAGE, 'early');
      assert.equal(out!.metadata.SOURCE_ROW_ORDER, 'south-up (flipped)');
    }
  });

  it('a later stage replaces an earlier one; an earlier stage never replaces a later one', async () => {
    const stable = await snowdb(['dataset', 'ingest', 'swann', f(name('20240115', 'stable'))], {
      env: env(),
    });
    assert.equal(stable.code, 0, stable.stderr);
    assert.match(stable.stdout, /2024-01-15\s+ingested\s+UA_SWE_Depth_800m_v1_20240115_stable\.nc/);
    const [src, out] = await oracle<OracleInfo[]>(
      'info',
      `NETCDF:"${f(name('20240115', 'stable'))}":SWE`,
      cog('20240115', 'swe'),
    );
    assert.equal(out!.sha256, src!.sha256);
    assert.equal(out!.metadata.SOURCE_STAGE, 'stable');
    const before = await snapshotTree(join(root, 'data'));
    const early = await snowdb(['dataset', 'ingest', 'swann', f(name('20240115', 'early'))], {
      env: env(),
    });
    assert.equal(early.code, 0, early.stderr);
    assert.match(early.stdout, /2024-01-15\s+kept-later-stage/);
    assert.deepEqual(await snapshotTree(join(root, 'data')), before);
    // --force with an explicit file always wins, so a bad later stage can be undone.
    const forced = await snowdb(['dataset', 'ingest', 'swann', f(name('20240115', 'early')), '--force'], {
      env: env(),
    });
    assert.equal(forced.code, 0, forced.stderr);
    assert.match(forced.stdout, /2024-01-15\s+ingested\s+UA_SWE_Depth_800m_v1_20240115_early\.nc/);
    const [back] = await oracle<OracleInfo[]>('info', cog('20240115', 'swe'));
    assert.equal(back!.metadata.SOURCE_STAGE, 'early');
    const restable = await snowdb(['dataset', 'ingest', 'swann', f(name('20240115', 'stable'))], {
      env: env(),
    });
    assert.match(restable.stdout, /2024-01-15\s+ingested/);
    // Two stages of one date in one call: only the later is ingested.
    const both = await snowdb(
      ['dataset', 'ingest', 'swann', f(name('20240115', 'early')), f(name('20240115', 'stable'))],
      { env: env() },
    );
    assert.match(both.stdout, /2024-01-15\s+up-to-date\s+UA_SWE_Depth_800m_v1_20240115_stable\.nc/);
  });

  it('bad input is refused by name and changes nothing', async () => {
    await writeFile(f(name('20240117', 'early')), 'this is not HDF5\n');
    await writeFile(f('UA_SWE_Depth_800m_v2_20240117_early.nc'), 'x');
    await oracle('make-spires', f(name('20240118', 'early')), '9', '4', '1', 'snow_fraction');
    // A chunk of deflated data overwritten mid-file: HDF5's filter pipeline fails on that chunk.
    const good = await readFile(f(name('20240115', 'early')));
    const bad = Buffer.from(good);
    bad.fill(0x5a, bad.length >> 1, (bad.length >> 1) + 4096);
    await writeFile(f(name('20240116', 'stable')), bad);
    await oracle('make-swann', f(name('20240120', 'provisional')), 'north', '3', '-21720');
    const before = await snapshotTree(join(root, 'data'));
    const cases: [string, RegExp][] = [
      [name('20240117', 'early'), /UA_SWE_Depth_800m_v1_20240117_early\.nc: not a NetCDF-4\/HDF5 file/],
      [
        'UA_SWE_Depth_800m_v2_20240117_early.nc',
        /UA_SWE_Depth_800m_v2_20240117_early\.nc: not a SWANN file name/,
      ],
      [name('20240118', 'early'), /UA_SWE_Depth_800m_v1_20240118_early\.nc: no variable 'lat'/],
      [
        name('20240116', 'stable'),
        /20240116_stable\.nc: variable '(SWE|DEPTH)' cannot be read \(filter returned failure during read\)/,
      ],
      [
        name('20240120', 'provisional'),
        /20240120_provisional\.nc: depth: 1 cell\(s\) outside the valid range 0…32767 \(first: -21720 at row 1000, column 4000\)/,
      ],
    ];
    for (const [file, msg] of cases) {
      const r = await snowdb(['dataset', 'ingest', 'swann', f(file)], { env: env() });
      assert.equal(r.code, 1, file);
      assert.match(r.stderr, msg);
    }
    assert.deepEqual(await snapshotTree(join(root, 'data')), before);
    assert.deepEqual(
      (await readdir(join(root, 'data/swann/cogs'))).filter((n) => !n.startsWith('.')).sort(),
      ['20240115', '20240116'],
    );
  });
});
