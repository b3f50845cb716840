/**
 * `npm run test:bad-input` (also in npm test): malformed sources and arguments against one copy of
 * the Zion database (snodas active, a swann dataset beside it). Each must end with a message
 * naming the problem, exit 1 (2 for a usage error, as commander and snowtool's catalog say), and
 * leave the database byte-identical (every file, folder and date link).
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { copyFile, mkdir, readFile, stat, truncate, writeFile } from 'node:fs/promises';
import { type AddressInfo, createServer } from 'node:net';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { gzipSync } from 'node:zlib';
import { snowdb, tempDir } from '../helpers/cli.js';
import { shiftedRecord, snapshotTree } from '../helpers/fs.js';
import { oracle } from '../helpers/gdal.js';
import { fixturePath } from '../helpers/raster.js';
import { tarOf } from '../helpers/snodas.js';
import { buildZionDb, ZION } from '../helpers/zion-db.js';

/** One bad input: the arguments (made in `dir`), the exit code and the message wanted on stderr. */
type Case = readonly [what: string, make: () => Promise<string[]>, code: 1 | 2, message: RegExp];

describe('bad input: a clear message, exit 1, the database byte-identical', () => {
  let dir: string;
  let cleanup: () => Promise<void>;
  let env: Record<string, string>;
  let members: string[];
  const m = (...p: string[]) => join(dir, 'm', ...p);
  const f = (...p: string[]) => join(dir, 'bad', ...p);
  const swe = () => members.find((n) => n.includes('11034') && n.endsWith('.dat.gz'))!;
  const sweHdr = () => members.find((n) => n.includes('11034') && n.endsWith('.txt.gz'))!;
  const swann = (date: string, stage = 'early') => f(`UA_SWE_Depth_800m_v1_${date}_${stage}.nc`);
  /** A copy of the good members with some replaced, as a tar named `name`. */
  async function tarWith(
    name: string,
    replace: Record<string, Buffer | string>,
    drop?: string,
  ): Promise<string> {
    const d = f(name.replace('.tar', ''));
    await mkdir(d, { recursive: true });
    const names = members.filter((n) => n !== drop);
    for (const n of names) await copyFile(m(n), join(d, n));
    for (const [n, bytes] of Object.entries(replace)) await writeFile(join(d, n), bytes);
    return tarOf(f(name), d, [...new Set([...names, ...Object.keys(replace)])]);
  }
  const headerWith = async (edit: (text: string) => string) =>
    gzipSync(edit(execFileSync('gzip', ['-dc', m(sweHdr())], { encoding: 'latin1' })));
  const record = (triplet: string) =>
    shiftedRecord(fixturePath('zion/pourpoints/09406000_UT_USGS.geojson'), triplet, 0.01, 0);
  const write = async (path: string, text: string | Buffer) => {
    await mkdir(join(path, '..'), { recursive: true });
    await writeFile(path, text);
    return path;
  };
  const terrainFrom = (source: string) => [
    'dataset',
    'generate-zones',
    'snodas',
    '--force',
    '--provider',
    'terrain',
    '--source',
    'terrain',
    source,
  ];
  const stats = (...more: string[]) => ['stats', 'snodas', ZION, '--dates', '2024-01-15', ...more];

  const CASES: readonly Case[] = [
    // SNODAS daily tars
    [
      'tar truncated',
      async () => {
        const p = await write(f('SNODAS_20240116.tar'), await readFile(join(dir, 'SNODAS_20240116.tar')));
        await truncate(p, Math.floor((await stat(p)).size / 2));
        return ['dataset', 'ingest', 'snodas', p];
      },
      1,
      /SNODAS_20240116\.tar: truncated tar: member .* needs \d+ bytes/,
    ],
    [
      'tar without a data member',
      async () => ['dataset', 'ingest', 'snodas', await tarWith('SNODAS_miss.tar', {}, swe())],
      1,
      /SNODAS_miss\.tar: .*11034.* has no \.dat\.gz data member/,
    ],
    [
      'member not gzip',
      async () => ['dataset', 'ingest', 'snodas', await tarWith('SNODAS_gz.tar', { [swe()]: 'not gzip' })],
      1,
      /SNODAS_gz\.tar: member .*11034.*\.dat\.gz is not valid gzip/,
    ],
    [
      'member gzip CRC broken',
      async () => {
        const b = await readFile(m(swe()));
        b[b.length - 6]! ^= 0xff; // the CRC-32 in the gzip trailer
        return ['dataset', 'ingest', 'snodas', await tarWith('SNODAS_crc.tar', { [swe()]: b })];
      },
      1,
      /SNODAS_crc\.tar: member .*11034.*\.dat\.gz is not valid gzip \(incorrect data check|SNODAS_crc\.tar: .*11034.*(check|CRC)/i,
    ],
    [
      'member inflating past its grid (bomb)',
      async () => [
        'dataset',
        'ingest',
        'snodas',
        await tarWith('SNODAS_bomb.tar', { [swe()]: gzipSync(Buffer.alloc(48 << 20), { level: 1 }) }),
      ],
      1,
      /SNODAS_bomb\.tar: .*\.dat\.gz inflates past 46478370 bytes/,
    ],
    [
      'header inflating past 64 KiB',
      async () => [
        'dataset',
        'ingest',
        'snodas',
        await tarWith('SNODAS_hbomb.tar', { [sweHdr()]: gzipSync(Buffer.alloc(1 << 20, 'a')) }),
      ],
      1,
      /SNODAS_hbomb\.tar: .*\.txt\.gz inflates past 65536 bytes/,
    ],
    [
      'header with another nodata',
      async () => [
        'dataset',
        'ingest',
        'snodas',
        await tarWith('SNODAS_nd.tar', {
          [sweHdr()]: await headerWith((t) => t.replace(/^No data value: .*$/m, 'No data value: -9998')),
        }),
      ],
      1,
      /SNODAS_nd\.tar: .*nodata is -9998, expected -9999/,
    ],
    [
      'header with other dimensions',
      async () => [
        'dataset',
        'ingest',
        'snodas',
        await tarWith('SNODAS_dim.tar', {
          [sweHdr()]: await headerWith((t) =>
            t.replace(/^Number of columns: .*$/m, 'Number of columns: 7000'),
          ),
        }),
      ],
      1,
      /SNODAS_dim\.tar: .*7000/,
    ],
    [
      'not a tar',
      async () => [
        'dataset',
        'ingest',
        'snodas',
        await write(f('SNODAS_text.tar'), 'hello, not a tar archive\n'.repeat(40)),
      ],
      1,
      /SNODAS_text\.tar: not a tar archive, or damaged at byte 0/,
    ],
    [
      'empty tar file',
      async () => ['dataset', 'ingest', 'snodas', await write(f('SNODAS_empty.tar'), '')],
      1,
      /SNODAS_empty\.tar: /,
    ],
    [
      'products of the masked and unmasked grids',
      async () => {
        const zz = members.map((n) => n.replace(/^us_/, 'zz_'));
        const d = f('zz');
        await mkdir(d, { recursive: true });
        for (let i = 0; i < zz.length; i++) await copyFile(m(members[i]!), join(d, zz[i]!));
        return ['dataset', 'ingest', 'snodas', await tarOf(f('SNODAS_zz.tar'), d, zz)];
      },
      1,
      /SNODAS_zz\.tar: .* is on the 'zz' grid/,
    ],
    [
      'a source that does not exist',
      async () => ['dataset', 'ingest', 'snodas', f('nowhere.tar')],
      1,
      /nowhere\.tar: no such file or directory/,
    ],
    [
      'a folder without tars',
      async () => {
        await write(f('notars', 'readme.txt'), 'x');
        return ['dataset', 'ingest', 'snodas', f('notars')];
      },
      1,
      /notars: no source files/,
    ],
    // SWANN NetCDF-4
    [
      'SWANN not HDF5',
      async () => ['dataset', 'ingest', 'swann', await write(swann('20240101'), 'this is not HDF5\n')],
      1,
      /20240101_early\.nc: not a NetCDF-4\/HDF5 file \(no HDF5 signature\)/,
    ],
    [
      'SWANN NetCDF classic',
      async () => [
        'dataset',
        'ingest',
        'swann',
        await write(swann('20240102'), Buffer.concat([Buffer.from('CDF\x01'), Buffer.alloc(64)])),
      ],
      1,
      /20240102_early\.nc: not a NetCDF-4\/HDF5 file \(it is NetCDF classic\)/,
    ],
    [
      'SWANN empty file',
      async () => ['dataset', 'ingest', 'swann', await write(swann('20240103'), '')],
      1,
      /20240103_early\.nc: not a NetCDF-4\/HDF5 file/,
    ],
    [
      'SWANN name without a stage',
      async () => ['dataset', 'ingest', 'swann', await write(f('UA_SWE_Depth_800m_v1_20240104.nc'), 'x')],
      1,
      /UA_SWE_Depth_800m_v1_20240104\.nc: not a SWANN file name/,
    ],
    [
      'SWANN chunk corrupted',
      async () => {
        const b = Buffer.from(await readFile(f('good.nc')));
        b.fill(0x5a, b.length >> 1, (b.length >> 1) + 4096);
        return ['dataset', 'ingest', 'swann', await write(swann('20240105', 'stable'), b)];
      },
      1,
      /20240105_stable\.nc: variable '(SWE|DEPTH)' cannot be read \(filter returned failure during read\)/,
    ],
    [
      'SWANN value out of range',
      async () => ['dataset', 'ingest', 'swann', await copyAs(f('negative.nc'), swann('20240106'))],
      1,
      /20240106_early\.nc: depth: 1 cell\(s\) outside the valid range 0…32767 \(first: -21720/,
    ],
    [
      'SWANN packed SWE (scale_factor)',
      async () => {
        const p = await copyAs(f('good.nc'), swann('20240108'));
        const h5 = (await import('h5wasm/node')).default;
        await h5.ready;
        const file = new h5.File(p, 'a');
        (file.get('SWE') as InstanceType<typeof h5.Dataset>).create_attribute('scale_factor', 0.1);
        file.close();
        return ['dataset', 'ingest', 'swann', p];
      },
      1,
      /20240108_early\.nc: SWE is packed \(scale_factor 0\.1, add_offset 0\); the producers' files store plain values/,
    ],
    [
      'SWANN truncated',
      async () => {
        const p = await copyAs(f('good.nc'), swann('20240107'));
        await truncate(p, 4096);
        return ['dataset', 'ingest', 'swann', p];
      },
      1,
      /20240107_early\.nc: (not a readable NetCDF-4\/HDF5 file|variable)/,
    ],
    // Pourpoint records
    [
      'record not JSON',
      async () => ['pourpoint', 'import', await write(f('p', 'A_UT_TEST.geojson'), '{ not json')],
      1,
      /A_UT_TEST\.geojson: not valid UTF-8 JSON/,
    ],
    [
      'record a JSON array',
      async () => ['pourpoint', 'import', await write(f('p', 'B_UT_TEST.geojson'), '[1, 2]')],
      1,
      /B_UT_TEST\.geojson: not a JSON object/,
    ],
    [
      'record with a bad triplet',
      async () => [
        'pourpoint',
        'import',
        await write(
          f('p', 'C_UT_TEST.geojson'),
          (await record('C:UT:TEST')).replace('"C:UT:TEST"', '"not-a-triplet"'),
        ),
      ],
      1,
      /C_UT_TEST\.geojson: id 'not-a-triplet' is not a station triplet/,
    ],
    [
      'record with an open ring',
      async () => {
        const doc = JSON.parse(await record('D:UT:TEST'));
        const poly = doc.geometries.find((g: { type: string }) => g.type !== 'Point');
        const ring = poly.type === 'Polygon' ? poly.coordinates[0] : poly.coordinates[0][0];
        ring.push([ring[0][0] + 0.5, ring[0][1]]);
        return ['pourpoint', 'import', await write(f('p', 'D_UT_TEST.geojson'), JSON.stringify(doc))];
      },
      1,
      /D_UT_TEST\.geojson: .* is not closed/,
    ],
    [
      'record with a position off the globe',
      async () => [
        'pourpoint',
        'import',
        await write(
          f('p', 'E_UT_TEST.geojson'),
          (await record('E:UT:TEST')).replace(/"coordinates":\s*\[\s*(-?[\d.]+)/, '"coordinates":[-999'),
        ),
      ],
      1,
      /E_UT_TEST\.geojson: .*is not a WGS84 lon\/lat position/,
    ],
    [
      'record of the wrong type',
      async () => [
        'pourpoint',
        'import',
        await write(f('p', 'F_UT_TEST.geojson'), '{"type": "FeatureCollection", "features": []}'),
      ],
      1,
      /F_UT_TEST\.geojson: no features \(a basin set is a FeatureCollection of Polygon or MultiPolygon features\)/,
    ],
    [
      'record that does not exist',
      async () => ['pourpoint', 'import', f('p', 'nowhere.geojson')],
      1,
      /nowhere\.geojson/,
    ],
    [
      'sync source whose only record is a damaged copy of a stored one',
      async () => {
        await write(
          f('damaged', '09406000_UT_USGS.geojson'),
          (await readFile(fixturePath('zion/pourpoints/09406000_UT_USGS.geojson'))).subarray(0, 200),
        );
        return ['pourpoint', 'sync', f('damaged')];
      },
      1,
      /09406000_UT_USGS\.geojson: not valid UTF-8 JSON/,
    ],
    [
      'sync that would prune without --prune-to',
      async () => [
        'pourpoint',
        'sync',
        await write(f('other', 'H_UT_TEST.geojson'), await record('H:UT:TEST')).then(() => f('other')),
      ],
      1,
      /1 stored pourpoint\(s\) would be removed \(09406000:UT:USGS\); pass --prune-to/,
    ],
    // Zone sources
    [
      'terrain source not a TIFF',
      async () => terrainFrom(await write(f('dem.tif'), 'not a tiff')),
      1,
      /dem\.tif: not a TIFF/,
    ],
    ['terrain source missing', async () => terrainFrom(f('none.tif')), 1, /none\.tif/],
    [
      'unknown zone provider',
      async () => ['dataset', 'generate-zones', 'snodas', '--provider', 'nope'],
      2,
      /argument 'nope' is invalid/,
    ],
    // Arguments
    [
      'date not on the calendar',
      async () => ['stats', 'snodas', ZION, '--dates', '2024-13-01'],
      1,
      /'2024-13-01' is not a calendar date/,
    ],
    [
      'a month/day/year date',
      async () => ['stats', 'snodas', ZION, '--dates', '04/01/2025'],
      1,
      /'04\/01\/2025' is not a date snowdb reads: write YYYY-MM-DD \(2025-04-01 if you mean month\/day\/year\)/,
    ],
    [
      'a month/day/year date range',
      async () => ['stats', 'snodas', ZION, '--dates', '1/15/2024/2/1/2024'],
      1,
      /'1\/15\/2024' is not a date snowdb reads: write YYYY-MM-DD \(2024-01-15 if you mean month\/day\/year\)/,
    ],
    [
      'a file format given to export as --format',
      async () => ['export', 'snodas', '--format', 'netcdf', '--out', f('x.nc')],
      2,
      /'netcdf' is a file format: give it as --to netcdf/,
    ],
    [
      'control bytes from a file are shown as escapes, never echoed raw',
      async () => [
        'pourpoint',
        'import',
        await write(
          f('ctl.geojson'),
          JSON.stringify({
            type: 'FeatureCollection',
            features: [
              {
                type: 'Feature',
                properties: { HUC12: 'a\u001b]0;pwn\u0007\u001b[2J' },
                geometry: {
                  type: 'Polygon',
                  coordinates: [
                    [
                      [-113, 37],
                      [-112.9, 37],
                      [-112.9, 37.1],
                      [-113, 37],
                    ],
                  ],
                },
              },
            ],
          }),
        ),
        '--set',
        'x',
        '--id-field',
        'HUC12',
      ],
      1,
      // No raw ESC anywhere; the id shown with its control bytes as escapes.
      new RegExp(`^(?!.*${String.fromCharCode(27)}).*a\\\\x1b\\]0;pwn\\\\x07\\\\x1b\\[2J`, 's'),
    ],
    [
      'api serve on a port another server holds',
      async () => {
        const held = createServer().unref();
        await new Promise<void>((ok) => held.listen(0, '127.0.0.1', ok));
        return ['api', 'serve', '--port', String((held.address() as AddressInfo).port)];
      },
      1,
      /^Error: 127\.0\.0\.1:\d+ is in use \(another server listens there\?\); choose another port with --port\n$/,
    ],
    [
      'a bare .shp',
      async () => ['pourpoint', 'import', await write(f('hucs.shp'), Buffer.alloc(100)), '--set', 'x'],
      1,
      /hucs\.shp: one part of a Shapefile; zip it with its \.dbf, \.shx and \.prj \(zip hucs\.zip hucs\.shp hucs\.shx hucs\.dbf hucs\.prj\) and import the zip/,
    ],
    [
      'date range reversed',
      async () => ['stats', 'snodas', ZION, '--dates', '2024-01-16/2024-01-15'],
      1,
      /the start is after the end/,
    ],
    [
      'unknown basin',
      async () => ['stats', 'snodas', 'NOPE:UT:USGS', '--dates', '2024-01-15'],
      1,
      /no pourpoint NOPE:UT:USGS in the index/,
    ],
    [
      'unknown dataset',
      async () => ['stats', 'nope', ZION, '--dates', '2024-01-15'],
      1,
      /no active dataset 'nope'/,
    ],
    ['unknown zone layer', async () => stats('--zone', 'foo.bar'), 1, /Unknown zone layer 'foo\.bar'/],
    ['unknown variable', async () => stats('--variable', 'nope'), 1, /unknown variable 'nope' for 'snodas'/],
    [
      'zone parameter zero',
      async () => stats('--zone', 'terrain.elevation:band_step_ft=0'),
      1,
      /band_step_ft must be a positive integer/,
    ],
    [
      'zone buckets past the cap',
      async () => stats('--zone', 'terrain.northness:buckets=100000000'),
      1,
      /the zone crossing has 100000000 cells, more than the limit of 10000/,
    ],
    ['unknown output format', async () => stats('--format', 'xml'), 2, /argument 'xml' is invalid/],
    [
      'water years reversed',
      async () => ['water-years', 'snodas', ZION, '--years', '2025..2015'],
      1,
      /'2025\.\.2015': the start is after the end/,
    ],
    [
      'dataset name with a slash',
      async () => ['dataset', 'create', 'Bad/Name', '--template', 'snodas'],
      1,
      /'Bad\/Name' is not a dataset name/,
    ],
    [
      'unknown template',
      async () => ['dataset', 'create', 'x', '--template', 'nope'],
      2,
      /argument 'nope' is invalid/,
    ],
    [
      'ingest into an unknown dataset',
      async () => ['dataset', 'ingest', 'nope', join(dir, 'SNODAS_20240116.tar')],
      1,
      /no dataset 'nope' is registered/,
    ],
    [
      'register a config that does not exist',
      async () => ['dataset', 'register', 'mine', f('nowhere.json')],
      1,
      /nowhere\.json: no such file/,
    ],
    [
      'register a config that is not JSON',
      async () => ['dataset', 'register', 'mine', await write(f('broken.json'), '{"resource":')],
      1,
      /broken\.json/,
    ],
    [
      'register a config with a bad grid',
      async () => {
        const cfg = JSON.parse(await readFile(join(env.SNOWDB_CONFIG!, 'data/snodas/dataset.json'), 'utf8'));
        cfg.grid.width = -5;
        return ['dataset', 'register', 'mine', await write(f('grid.json'), JSON.stringify(cfg))];
      },
      1,
      /grid\.json is not a snowdb dataset config at grid\.width/,
    ],
    ['malformed triplet', async () => ['pourpoint', 'show', 'bad'], 1, /'bad' is not a basin id/],
    ['unknown command', async () => ['nosuchcommand'], 2, /unknown command 'nosuchcommand'/],
  ];

  async function copyAs(from: string, to: string): Promise<string> {
    await copyFile(from, to);
    return to;
  }

  before(async () => {
    ({ dir, cleanup } = await tempDir());
    env = await buildZionDb(dir);
    await mkdir(m(), { recursive: true });
    execFileSync('tar', ['-xf', join(dir, 'SNODAS_20240116.tar'), '-C', m()]);
    members = execFileSync('tar', ['-tf', join(dir, 'SNODAS_20240116.tar')], { encoding: 'utf8' })
      .trim()
      .split('\n');
    await mkdir(f(), { recursive: true });
    for (const args of [
      ['dataset', 'activate', 'snodas'],
      ['dataset', 'create', 'swann', '--template', 'swann-800m'],
    ]) {
      const r = await snowdb(args, { env });
      assert.equal(r.code, 0, r.stderr);
    }
    await oracle('make-swann', f('good.nc'), 'north', '1');
    await oracle('make-swann', f('negative.nc'), 'north', '3', '-21720');
  });
  after(() => cleanup());

  it(`refuses each of ${CASES.length} malformed sources and arguments by name`, async () => {
    assert.ok(CASES.length >= 40);
    const root = env.SNOWDB_CONFIG!;
    const before = await snapshotTree(root);
    const wrong: string[] = [];
    for (const [what, make, code, message] of CASES) {
      const r = await snowdb(await make(), { env });
      if (r.code !== code || !message.test(r.stderr) || /internal error|\n\s+at /.test(r.stderr))
        wrong.push(`${what}: exit ${r.code}, ${r.stderr.trim()}`);
      assert.deepEqual(await snapshotTree(root), before, `${what}: the database changed`);
    }
    assert.deepEqual(wrong, []);
  });
});
