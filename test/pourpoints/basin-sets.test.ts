/**
 * Basin sets (pourpoints/basin-sets.ts): a GeoJSON FeatureCollection, a zipped Shapefile (written
 * by OGR in NAD83 / CONUS Albers) and a GeoPackage (NAD83 / UTM 12N) of the same HUC-like
 * polygons (one plain, one with a hole, one in two parts) import as `<set>:<id>` basins whose
 * polygons are OGR's reading of the same file reprojected by PROJ (every vertex to 1e-9°, areas
 * to 1e-9); bad files are refused by name with the database byte-identical; a plain polygon
 * Feature imports as the README says; sync prunes only its own set; and a set member with a
 * BAGIS basin's polygon answers its stats value for value.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { copyFile, mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { promisify } from 'node:util';
import { crc32, deflateRawSync, constants as zlibConstants } from 'node:zlib';
import { geodesicArea } from '../../src/raster/geodesic.js';
import type { AreaGeometry } from '../../src/raster/geometry.js';
import { snowdb, tempDir } from '../helpers/cli.js';
import { BASIN, copyCoverDb } from '../helpers/cover-db.js';
import { snapshotTree } from '../helpers/fs.js';
import { oracle } from '../helpers/gdal.js';
import { fixturePath } from '../helpers/raster.js';

const run = promisify(execFile);

/** A ring around (lon, lat): `n` vertices on an ellipse of radii rx, ry degrees (short edges), closed. */
function ellipse(lon: number, lat: number, rx: number, ry: number, n = 120, clockwise = false): number[][] {
  const pts = Array.from({ length: n }, (_, k) => {
    const t = ((clockwise ? -1 : 1) * 2 * Math.PI * k) / n;
    return [lon + rx * Math.cos(t), lat + ry * Math.sin(t)];
  });
  return [...pts, pts[0]!];
}

const FEATURES = [
  {
    HUC12: '140700010101',
    NAME: 'Upper Creek',
    geometry: { type: 'Polygon', coordinates: [ellipse(-113.1, 37.3, 0.05, 0.04)] },
  },
  {
    HUC12: '140700010102',
    NAME: 'Holey Basin',
    geometry: {
      type: 'Polygon',
      coordinates: [ellipse(-113.0, 37.3, 0.05, 0.04), ellipse(-113.0, 37.3, 0.015, 0.01, 60, true)],
    },
  },
  {
    HUC12: '140700010103',
    NAME: 'Two Parts',
    geometry: {
      type: 'MultiPolygon',
      coordinates: [[ellipse(-112.9, 37.3, 0.02, 0.02)], [ellipse(-112.84, 37.3, 0.02, 0.02)]],
    },
  },
];
const collection = (features = FEATURES) => ({
  type: 'FeatureCollection',
  features: features.map(({ geometry, ...properties }) => ({ type: 'Feature', properties, geometry })),
});

interface OgrFeature {
  attributes: Record<string, unknown>;
  geometry: AreaGeometry;
  wkb_sha256: string;
  area: number;
}
interface IndexFile {
  features: {
    id: string;
    properties: { name: string; area_meters: number; geometry_hash: string; outlet?: boolean };
  }[];
}

/** Every vertex of a geometry (ring order and orientation aside). */
const vertices = (g: AreaGeometry) =>
  (g.type === 'Polygon' ? [g.coordinates] : g.coordinates).flatMap((p) => p.flatMap((r) => r.slice(0, -1)));

/** The farthest any vertex of `a` lies from the nearest of `b`, degrees (both ways). */
function farthest(a: AreaGeometry, b: AreaGeometry): number {
  const one = (xs: readonly (readonly number[])[], ys: readonly (readonly number[])[]) =>
    Math.max(...xs.map((p) => Math.min(...ys.map((q) => Math.hypot(p[0]! - q[0]!, p[1]! - q[1]!)))));
  return Math.max(one(vertices(a), vertices(b)), one(vertices(b), vertices(a)));
}

/**
 * A zip of `hucs.shp` holding `mib` MiB of zeros (1 MiB deflated once with a sync flush, repeated:
 * a valid deflate stream of ~1 kB a MiB, with its true size and CRC-32) and a 1-byte `hucs.dbf`.
 */
function zeroShapefileZip(mib: number): Buffer {
  const zeros = Buffer.alloc(1 << 20);
  const block = deflateRawSync(zeros, { level: 9, finishFlush: zlibConstants.Z_SYNC_FLUSH });
  let crc = 0;
  for (let i = 0; i < mib; i++) crc = crc32(zeros, crc);
  const members = [
    {
      name: 'hucs.shp',
      method: 8,
      data: Buffer.concat([...Array(mib).fill(block), Buffer.from([3, 0])]),
      size: mib << 20,
      crc,
    },
    { name: 'hucs.dbf', method: 0, data: Buffer.from(' '), size: 1, crc: crc32(Buffer.from(' ')) },
  ];
  const locals: Buffer[] = [];
  const centrals: Buffer[] = [];
  let offset = 0;
  for (const m of members) {
    const name = Buffer.from(m.name);
    const head = (sig: number, len: number) => {
      const h = Buffer.alloc(len);
      h.writeUInt32LE(sig, 0);
      return h;
    };
    const l = head(0x04034b50, 30);
    l.writeUInt16LE(20, 4);
    l.writeUInt16LE(m.method, 8);
    l.writeUInt32LE(m.crc >>> 0, 14);
    l.writeUInt32LE(m.data.length, 18);
    l.writeUInt32LE(m.size, 22);
    l.writeUInt16LE(name.length, 26);
    const c = head(0x02014b50, 46);
    c.writeUInt16LE(20, 4);
    c.writeUInt16LE(20, 6);
    c.writeUInt16LE(m.method, 10);
    c.writeUInt32LE(m.crc >>> 0, 16);
    c.writeUInt32LE(m.data.length, 20);
    c.writeUInt32LE(m.size, 24);
    c.writeUInt16LE(name.length, 28);
    c.writeUInt32LE(offset, 42);
    locals.push(l, name, m.data);
    centrals.push(c, name);
    offset += 30 + name.length + m.data.length;
  }
  const cd = Buffer.concat(centrals);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(members.length, 8);
  end.writeUInt16LE(members.length, 10);
  end.writeUInt32LE(cd.length, 12);
  end.writeUInt32LE(offset, 16);
  return Buffer.concat([...locals, cd, end]);
}

describe('basin sets: GeoJSON, zipped Shapefile and GeoPackage, any CRS snowdb knows', () => {
  let dir: string;
  let cleanup: () => Promise<void>;
  let root: string;
  const env = () => ({ SNOWDB_CONFIG: root });
  const files: Record<string, string> = {};
  before(async () => {
    ({ dir, cleanup } = await tempDir());
    root = join(dir, 'db');
    assert.equal((await snowdb(['init', root])).code, 0);
    files.geojson = join(dir, 'hucs.geojson');
    await writeFile(files.geojson, JSON.stringify(collection()));
    await run('ogr2ogr', [
      '-f',
      'ESRI Shapefile',
      '-t_srs',
      'EPSG:5070',
      join(dir, 'shp'),
      files.geojson,
      '-nln',
      'hucs',
    ]);
    files.zip = join(dir, 'hucs.zip');
    await run('/usr/bin/python3', [
      '-c',
      `import zipfile,glob,os\nos.chdir(${JSON.stringify(join(dir, 'shp'))})\nz=zipfile.ZipFile(${JSON.stringify(files.zip)},'w',zipfile.ZIP_DEFLATED)\n[z.write(f) for f in sorted(glob.glob('hucs.*'))]\nz.close()`,
    ]);
    files.gpkg = join(dir, 'hucs.gpkg');
    await run('ogr2ogr', ['-f', 'GPKG', '-t_srs', 'EPSG:26912', files.gpkg, files.geojson, '-nln', 'hucs']);
  });
  after(() => cleanup());
  const readIndex = async () =>
    JSON.parse(await readFile(join(root, 'pourpoints/index.geojson'), 'utf8')) as IndexFile;

  for (const [kind, set] of [
    ['geojson', 'geo'],
    ['zip', 'shp'],
    ['gpkg', 'gpkg'],
  ] as const)
    it(`${kind}: every feature imports as ${set}:<HUC12>, its polygon OGR's reading of the file in lon/lat`, async () => {
      const r = await snowdb(
        ['pourpoint', 'import', files[kind]!, '--set', set, '--id-field', 'HUC12', '--name-field', 'NAME'],
        { env: env() },
      );
      assert.equal(r.code, 0, r.stderr);
      assert.equal(
        r.stdout.trim(),
        'imported 3 (3 new, 0 updated), 0 unchanged, skipped 0 point-only, pruned 0, invalid 0',
      );
      const ogr = await oracle<OgrFeature[]>('vector', files[kind]!);
      assert.equal(ogr.length, 3);
      const index = await readIndex();
      for (const o of ogr) {
        const id = `${set}:${o.attributes.HUC12}`;
        const entry = index.features.find((f) => f.id === id)!;
        assert.ok(entry, id);
        assert.equal(entry.properties.name, o.attributes.NAME);
        assert.equal(entry.properties.outlet, false, 'no outlet: the point is one inside the basin');
        const stored = JSON.parse(
          await readFile(join(root, `pourpoints/${set}_${o.attributes.HUC12}.geojson`), 'utf8'),
        );
        assert.equal(stored.geometry.type, o.geometry.type);
        assert.equal(vertices(stored.geometry).length, vertices(o.geometry).length, `${id}: vertices`);
        const worst = farthest(stored.geometry, o.geometry);
        assert.ok(worst < 1e-9, `${id}: a vertex ${worst}° from OGR's`);
        const area = geodesicArea(o.geometry);
        assert.ok(
          Math.abs(entry.properties.area_meters / area - 1) < 1e-9,
          `${id}: ${entry.properties.area_meters} vs ${area}`,
        );
        // The edges are short: OGR's equal-area planar measure agrees to 1e-6 too.
        assert.ok(
          Math.abs(entry.properties.area_meters / o.area - 1) < 1e-6,
          `${id}: ${entry.properties.area_meters} vs OGR ${o.area}`,
        );
        // Lon/lat in, lon/lat stored: the very bytes OGR reads (the WKB digest is the index's hash).
        if (kind === 'geojson') assert.equal(entry.properties.geometry_hash, o.wkb_sha256, id);
      }
      const hole = index.features.find((f) => f.id === `${set}:140700010102`)!;
      const outer = geodesicArea({
        type: 'Polygon',
        coordinates: [FEATURES[1]!.geometry.coordinates[0] as number[][]],
      });
      assert.ok(hole.properties.area_meters < outer * 0.95, 'the hole is not counted');
      const again = await snowdb(
        ['pourpoint', 'import', files[kind]!, '--set', set, '--id-field', 'HUC12', '--name-field', 'NAME'],
        { env: env() },
      );
      assert.match(again.stdout, /^imported 0 \(0 new, 0 updated\), 3 unchanged/);
    });

  it('bad files and options are refused by name, the database left byte-identical', async () => {
    const bad = async (name: string, body: unknown) => {
      const p = join(dir, name);
      await writeFile(p, typeof body === 'string' || Buffer.isBuffer(body) ? body : JSON.stringify(body));
      return p;
    };
    const [one, two] = collection().features;
    const point = {
      type: 'Feature',
      properties: { HUC12: '9' },
      geometry: { type: 'Point', coordinates: [-113, 37] },
    };
    const bowtie = {
      ...one,
      properties: { HUC12: '8' },
      geometry: {
        type: 'Polygon',
        coordinates: [
          [
            [-113, 37],
            [-112.9, 37.1],
            [-112.9, 37],
            [-113, 37.1],
            [-113, 37],
          ],
        ],
      },
    };
    await run('ogr2ogr', [
      '-f',
      'ESRI Shapefile',
      '-t_srs',
      'EPSG:3857',
      join(dir, 'merc'),
      files.geojson!,
      '-nln',
      'hucs',
    ]);
    const mercZip = join(dir, 'merc.zip');
    await run('/usr/bin/python3', [
      '-c',
      `import zipfile,glob,os\nos.chdir(${JSON.stringify(join(dir, 'merc'))})\nz=zipfile.ZipFile(${JSON.stringify(mercZip)},'w')\n[z.write(f) for f in sorted(glob.glob('hucs.*'))]\nz.close()`,
    ]);
    // A GeoPackage whose second feature layer is an endless recursive view over the first, and
    // one with a damaged page (the sqlite_master page's cell pointers overwritten).
    const viewGpkg = join(dir, 'view.gpkg');
    await run('/usr/bin/python3', [
      '-c',
      `import shutil,sqlite3\nshutil.copy(${JSON.stringify(files.gpkg)},${JSON.stringify(viewGpkg)})\nc=sqlite3.connect(${JSON.stringify(viewGpkg)})\nc.execute("CREATE VIEW endless AS WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n+1 FROM r) SELECT r.n AS fid, h.geom AS geom, h.HUC12 AS HUC12 FROM r, (SELECT * FROM hucs LIMIT 1) h")\nc.execute("INSERT INTO gpkg_contents(table_name,data_type,identifier,srs_id) VALUES('endless','features','endless',26912)")\nc.execute("INSERT INTO gpkg_geometry_columns VALUES('endless','geom','MULTIPOLYGON',26912,0,0)")\nc.commit()`,
    ]);
    const onlyView = join(dir, 'onlyview.gpkg');
    await run('/usr/bin/python3', [
      '-c',
      `import shutil,sqlite3\nshutil.copy(${JSON.stringify(viewGpkg)},${JSON.stringify(onlyView)})\nc=sqlite3.connect(${JSON.stringify(onlyView)})\nc.execute("DELETE FROM gpkg_contents WHERE table_name='hucs'")\nc.commit()`,
    ]);
    const damaged = Buffer.from(await readFile(files.gpkg!));
    damaged.fill(0xa5, 100, 4096); // page 1 after the header: the schema table's b-tree page
    const bombZip = await bad('bomb.zip', zeroShapefileZip(300));
    const hugeZip = await bad('huge.zip', zeroShapefileZip(600));
    // The same construction, small, is a valid zip: Python's zipfile inflates and CRC-checks it.
    const small = await bad('small.zip', zeroShapefileZip(4));
    const { stdout: tested } = await run('/usr/bin/python3', [
      '-c',
      `import zipfile\nz=zipfile.ZipFile(${JSON.stringify(small)})\nprint(z.testzip(), [i.file_size for i in z.infolist()])`,
    ]);
    assert.equal(tested.trim(), `None [${4 << 20}, 1]`);
    const cases: [string[], number, RegExp][] = [
      [
        [bombZip, '--set', 'shp', '--id-field', 'HUC12'],
        1,
        /bomb\.zip: hucs\.shp inflates \d+× \(300 MiB from \d+ bytes\): not a Shapefile snowdb reads \(a zip bomb\?\)/,
      ],
      [
        [hugeZip, '--set', 'shp', '--id-field', 'HUC12'],
        1,
        /huge\.zip: hucs unpacks to 600 MiB; snowdb reads zipped Shapefiles of at most 512 MiB unpacked \(split the set, or import it as a GeoPackage\)/,
      ],
      [
        [viewGpkg, '--set', 'g', '--layer', 'endless', '--id-field', 'HUC12'],
        1,
        /view\.gpkg: layer 'endless' is a view, not a feature table: snowdb reads feature tables only/,
      ],
      [
        [onlyView, '--set', 'g', '--id-field', 'HUC12'],
        1,
        /onlyview\.gpkg: layer 'endless' is a view, not a feature table: snowdb reads feature tables only/,
      ],
      [
        [await bad('damaged.gpkg', damaged), '--set', 'g', '--id-field', 'HUC12'],
        1,
        /damaged\.gpkg: a damaged GeoPackage: SQLite cannot read it \(database disk image is malformed\)/,
      ],
      [
        [files.geojson!, '--set', 'geo'],
        1,
        /hucs\.geojson feature 1 has no id: name the attribute that identifies each basin with --id-field \(fields: HUC12, NAME\)/,
      ],
      [
        [files.geojson!, '--set', 'geo', '--id-field', 'HUC'],
        2,
        /--id-field 'HUC': .*hucs\.geojson has no such field \(it has HUC12, NAME\)/,
      ],
      [
        [files.geojson!, '--set', 'HUC12', '--id-field', 'HUC12'],
        2,
        /--set 'HUC12': a set name is lower-case letters/,
      ],
      [
        [
          await bad('dup.geojson', {
            type: 'FeatureCollection',
            // Two ids twice each (one three times): every one named with its features, counted.
            features: [
              one,
              { ...two, properties: one!.properties },
              two,
              two,
              { ...two, properties: one!.properties },
            ],
          }),
          '--set',
          'geo',
          '--id-field',
          'HUC12',
        ],
        1,
        /dup\.geojson: 2 id\(s\) given to more than one feature, 5 features in all: geo:140700010101 \(features 1, 2, 5\); geo:140700010102 \(features 3, 4\); each basin of a set needs its own id/,
      ],
      [
        [
          await bad('empty.geojson', {
            type: 'FeatureCollection',
            features: [one, { ...two, geometry: null }],
          }),
          '--set',
          'geo',
          '--id-field',
          'HUC12',
        ],
        1,
        /empty\.geojson feature 2 \(geo:140700010102\): empty geometry/,
      ],
      [
        [
          await bad('point.geojson', { type: 'FeatureCollection', features: [one, point] }),
          '--set',
          'geo',
          '--id-field',
          'HUC12',
        ],
        1,
        /point\.geojson feature 2 \(geo:9\): a Point, not a Polygon or MultiPolygon/,
      ],
      [
        [
          await bad('bowtie.geojson', { type: 'FeatureCollection', features: [one, bowtie] }),
          '--set',
          'geo',
          '--id-field',
          'HUC12',
        ],
        1,
        /bowtie\.geojson feature 2 \(geo:8\): geometry Polygon\[0\] edge \d+ crosses its edge \d+/,
      ],
      [
        [
          await bad('dots.geojson', {
            type: 'FeatureCollection',
            features: [{ ...one, properties: { HUC12: '14.07' } }],
          }),
          '--set',
          'geo',
          '--id-field',
          'HUC12',
        ],
        1,
        /id '14\.07' holds characters other than letters, digits and '-'/,
      ],
      [
        [
          await bad('merc.geojson', {
            ...collection(),
            crs: { type: 'name', properties: { name: 'urn:ogc:def:crs:EPSG::3857' } },
          }),
          '--set',
          'geo',
          '--id-field',
          'HUC12',
        ],
        1,
        /its CRS \(EPSG:3857\) is not one snowdb knows \(EPSG 4326, 4269, 5070, UTM zones on WGS 84 or NAD83\); reproject it first/,
      ],
      [
        [mercZip, '--set', 'shp', '--id-field', 'HUC12'],
        1,
        /merc\.zip: its CRS \(PROJCS\["WGS_1984_Web_Mercator_Auxiliary_Sphere".*is not one snowdb knows/,
      ],
      [
        [await bad('broken.zip', (await readFile(files.zip!)).subarray(0, 300)), '--set', 'shp'],
        1,
        /broken\.zip: not a readable zip archive \(no end-of-central-directory record\)/,
      ],
      [
        [await bad('nolayer.gpkg', await readFile(files.gpkg!)), '--set', 'g', '--layer', 'rivers'],
        1,
        /has no feature layer 'rivers' \(it holds hucs\)/,
      ],
      [
        [await bad('list.geojson', '[1, 2]'), '--set', 'geo'],
        1,
        /list\.geojson: type is undefined; a basin set is a FeatureCollection or a Feature/,
      ],
    ];
    const before = await snapshotTree(root);
    for (const [args, code, why] of cases) {
      const r = await snowdb(['pourpoint', 'import', ...args], { env: env() });
      assert.equal(r.code, code, `${args.join(' ')}: ${r.stderr}`);
      assert.match(r.stderr, why, args.join(' '));
      assert.deepEqual(await snapshotTree(root), before, `${args.join(' ')} changed the database`);
    }
  });

  it('README: a plain polygon Feature imports as user:<file name>; a BAGIS-style FeatureCollection without --set is told how', async () => {
    const mine = join(dir, 'my-basin.geojson');
    await writeFile(
      mine,
      JSON.stringify({ type: 'Feature', properties: { name: 'My basin' }, geometry: FEATURES[0]!.geometry }),
    );
    const r = await snowdb(['pourpoint', 'import', mine], { env: env() });
    assert.equal(r.code, 0, r.stderr);
    const show = await snowdb(['pourpoint', 'show', 'user:my-basin'], { env: env() });
    assert.equal(show.code, 0, show.stderr);
    assert.match(show.stdout, /^name\s+My basin$/m);
    assert.match(show.stdout, /^point\s+-113\.\d+, 37\.\d+ \(no outlet: a point inside the basin\)$/m);
    const bad = await snowdb(['pourpoint', 'show', 'user:my.basin'], { env: env() });
    assert.equal(bad.code, 1);
    assert.match(bad.stderr, /'user:my\.basin' is not a basin id/);
  });

  it('sync FILE --set mirrors the set: a member the file lacks is pruned (archived), other sets untouched', async () => {
    const fewer = join(dir, 'fewer.geojson');
    await writeFile(fewer, JSON.stringify(collection(FEATURES.slice(0, 2))));
    const args = ['pourpoint', 'sync', fewer, '--set', 'geo', '--id-field', 'HUC12', '--name-field', 'NAME'];
    const refused = await snowdb(args, { env: env() });
    assert.equal(refused.code, 1);
    assert.match(refused.stderr, /1 stored pourpoint\(s\) would be removed \(geo:140700010103\)/);
    const r = await snowdb([...args, '--prune-to', join(dir, 'pruned')], { env: env() });
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /2 unchanged, skipped 0 point-only, pruned 1 to /);
    const ids = (await readIndex()).features.map((f) => f.id);
    assert.ok(!ids.includes('geo:140700010103'));
    for (const id of ['shp:140700010103', 'gpkg:140700010103', 'user:my-basin'])
      assert.ok(ids.includes(id), id);
    assert.ok((await readFile(join(dir, 'pruned/geo_140700010103.geojson'), 'utf8')).includes('Two Parts'));
  });

  it('sync of a BAGIS folder prunes only BAGIS basins: the sets imported beside them stay, with no --prune-to', async () => {
    const folder = join(dir, 'bagis');
    await mkdir(folder);
    await copyFile(
      fixturePath('pourpoints/10311100_NV_USGS.geojson'),
      join(folder, '10311100_NV_USGS.geojson'),
    );
    const sets = (await readIndex()).features.map((f) => f.id).filter((id) => !String(id).endsWith(':USGS'));
    assert.ok(sets.length >= 4, sets.join(', '));
    const first = await snowdb(['pourpoint', 'sync', folder], { env: env() });
    assert.equal(first.code, 0, first.stderr);
    assert.deepEqual(
      (await readIndex()).features.map((f) => f.id).sort(),
      [...sets, '10311100:NV:USGS'].sort(),
    );
    // Again: unchanged, and still nothing of the sets would be pruned.
    const again = await snowdb(['pourpoint', 'sync', folder], { env: env() });
    assert.equal(again.code, 0, again.stderr);
    assert.match(again.stdout, /1 unchanged, skipped 0 point-only, pruned 0/);
    // A BAGIS basin the folder lacks is still pruned (and, without --prune-to, refused by name).
    await rm(join(folder, '10311100_NV_USGS.geojson'));
    const gone = await snowdb(['pourpoint', 'sync', folder], { env: env() });
    assert.equal(gone.code, 1);
    assert.match(gone.stderr, /1 stored pourpoint\(s\) would be removed \(10311100:NV:USGS\)/);
  });
});

describe('a set member answers as the BAGIS basin of the same polygon', () => {
  let dir: string;
  let cleanup: () => Promise<void>;
  before(async () => {
    ({ dir, cleanup } = await tempDir());
    await copyCoverDb(dir);
  });
  after(() => cleanup());

  it('imported with the dataset registered: its AOI raster is built and its stats equal the basin’s, value for value', async () => {
    const env = { SNOWDB_CONFIG: join(dir, 'db') };
    const record = JSON.parse(
      await readFile(join(dir, 'db/pourpoints', `${BASIN.replaceAll(':', '_')}.geojson`), 'utf8'),
    );
    const polygon = record.geometries.find((g: { type: string }) => g.type !== 'Point');
    const file = join(dir, 'same.geojson');
    await writeFile(file, JSON.stringify(collection([{ HUC12: 'same-1', NAME: 'Same', geometry: polygon }])));
    const r = await snowdb(['pourpoint', 'import', file, '--set', 'huc', '--id-field', 'HUC12'], { env });
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stderr + r.stdout, /built \d+ AOI raster/);
    const stats = async (id: string) => {
      const s = await snowdb(['stats', 'cover', id, '--zone', 'terrain.elevation'], { env });
      assert.equal(s.code, 0, s.stderr);
      return JSON.parse(s.stdout) as { zones: unknown[]; results: Record<string, unknown> };
    };
    const [ours, theirs] = [await stats('huc:same-1'), await stats(BASIN)];
    assert.ok(Object.keys(ours.results).length >= 6);
    assert.deepEqual(ours, theirs);
  });

  it('a set whose members overlap or leave a gap imports with a report naming them, counted and measured', async () => {
    const env = { SNOWDB_CONFIG: join(dir, 'db') };
    const box = (w: number, e: number) => ({
      type: 'Polygon',
      coordinates: [
        [
          [w, 37.25],
          [e, 37.25],
          [e, 37.35],
          [w, 37.35],
          [w, 37.25],
        ],
      ],
    });
    // a and b overlap in a 0.01° strip; b and c leave a 0.0015° sliver (under a 30″ cell) between them.
    const file = join(dir, 'tiles.geojson');
    await writeFile(
      file,
      JSON.stringify(
        collection([
          { HUC12: 'a', NAME: 'A', geometry: box(-112.95, -112.9) },
          { HUC12: 'b', NAME: 'B', geometry: box(-112.91, -112.86) },
          { HUC12: 'c', NAME: 'C', geometry: box(-112.8585, -112.81) },
        ]),
      ),
    );
    const r = await snowdb(
      ['pourpoint', 'import', file, '--set', 'tile', '--id-field', 'HUC12', '--format', 'json'],
      {
        env,
      },
    );
    assert.equal(r.code, 0, r.stderr);
    assert.match(
      r.stderr,
      /warning: cover: 2 of 3 basins overlap in \d+ cell\(s\) \([\d.]+ km² at least\): tile:a, tile:b/,
    );
    assert.match(
      r.stderr,
      /warning: cover: \d+ cell\(s\) between 2 of 3 basins are left uncovered .*: tile:b, tile:c/,
    );
    const { tiling } = JSON.parse(r.stdout) as {
      tiling: { dataset: string; basins: number; overlaps: Finding; gaps: Finding }[];
    };
    type Finding = { cells: number; areaM2: number; members: number; named: string[] };
    const t = tiling.find((x) => x.dataset === 'cover')!;
    assert.equal(t.basins, 3);
    assert.deepEqual(t.overlaps.named, ['tile:a', 'tile:b']);
    assert.deepEqual(t.gaps.named, ['tile:b', 'tile:c']);
    // On a sphere of 6,371 km: the strip of lon width Δλ between 37.25° and 37.35° N has area
    // R² Δλ (sin φ₂ − sin φ₁). The report counts what lies in cells the members cover otherwise
    // wholly (a lower bound): all but the strip's top and bottom cells.
    const strip = (deg: number) =>
      6371e3 ** 2 *
      ((deg * Math.PI) / 180) *
      (Math.sin((37.35 * Math.PI) / 180) - Math.sin((37.25 * Math.PI) / 180));
    const overlapShare = t.overlaps.areaM2 / strip(0.01);
    assert.ok(
      overlapShare > 0.8 && overlapShare < 1.003,
      `overlap ${t.overlaps.areaM2} m² of ${strip(0.01)}`,
    );
    const gapShare = t.gaps.areaM2 / strip(0.0015);
    assert.ok(gapShare > 0.6 && gapShare < 1.003, `gap ${t.gaps.areaM2} m² of ${strip(0.0015)}`);
    // The strip spans 2 of the grid's 30″ columns over the boxes' 12 rows: 24 cells.
    assert.equal(t.overlaps.cells, 24);
    // doctor tells the same of the stored set, as information.
    const doc = await snowdb(['doctor'], { env });
    assert.match(doc.stdout + doc.stderr, /info .*set tile .*cover: 2 of 3 basins overlap in 24 cell\(s\)/);
    assert.match(
      doc.stdout + doc.stderr,
      new RegExp(
        `info .*set tile .*cover: ${t.gaps.cells} cell\\(s\\) between 2 of 3 basins are left uncovered`,
      ),
    );
    assert.doesNotMatch(doc.stdout + doc.stderr, /set huc /);
  });
});
