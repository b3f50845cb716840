import assert from 'node:assert/strict';
import { copyFile, mkdir, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { snowdb, tempDir } from '../helpers/cli.js';
import { snapshotTree } from '../helpers/fs.js';
import { oracle } from '../helpers/gdal.js';
import { fixturePath } from '../helpers/raster.js';

const FIX = fixturePath('pourpoints');
const BASINS = [
  '06091700_MT_USGS',
  '06301850_WY_USGS',
  '09021000_CO_USGS',
  '10311100_NV_USGS',
  '150021_CA_USGS',
  'WHEATFLD_AZ_USGS',
];
const POINT_ONLY = ['008NG005_BC_USGS', '10020300_UT_USGS'];

interface IndexFile {
  type: string;
  features: {
    id: string;
    geometry: { type: string; coordinates: number[] };
    properties: Record<string, unknown>;
  }[];
}
interface OracleRecord {
  wkb_sha256: string;
  area: number;
  point_distance: number;
}

describe('pourpoints: import, sync, prune, index, list, show', () => {
  let dir: string;
  let cleanup: () => Promise<void>;
  let root: string;
  let src: string;
  const env = () => ({ SNOWDB_CONFIG: root });
  const readIndex = async () =>
    JSON.parse(await readFile(join(root, 'pourpoints/index.geojson'), 'utf8')) as IndexFile;

  before(async () => {
    ({ dir, cleanup } = await tempDir());
    root = join(dir, 'db');
    src = join(dir, 'src');
    await mkdir(src);
    for (const n of [...BASINS, ...POINT_ONLY])
      await copyFile(join(FIX, `${n}.geojson`), join(src, `${n}.geojson`));
    assert.equal((await snowdb(['init', root])).code, 0);
  });
  after(() => cleanup());

  it('sync from a folder on a fresh database imports basins, skips point-only records, prunes nothing', async () => {
    const r = await snowdb(['pourpoint', 'sync', src], { env: env() });
    assert.equal(r.code, 0, r.stderr);
    assert.equal(
      r.stdout.trim(),
      'imported 6 (6 new, 0 updated), 0 unchanged, skipped 2 point-only, pruned 0, invalid 0',
    );
    assert.match(r.stderr, /skipped point-only record 008NG005:BC:USGS \(no basin polygon\)/);
    assert.match(
      r.stderr,
      /warning: 09021000:CO:USGS: outflow point lies 772\.4 km outside its basin polygon/,
    );
    // Records are stored byte for byte under their triplet's file name.
    const stored = (await readdir(join(root, 'pourpoints'))).sort();
    assert.deepEqual(stored, [...BASINS.map((b) => `${b}.geojson`), 'index.geojson'].sort());
    for (const b of BASINS) {
      assert.deepEqual(
        await readFile(join(root, 'pourpoints', `${b}.geojson`)),
        await readFile(join(src, `${b}.geojson`)),
      );
    }
  });

  it('the index holds one sorted feature per basin; area, hash and point match OGR', async () => {
    const idx = await readIndex();
    assert.equal(idx.type, 'FeatureCollection');
    const ids = idx.features.map((f) => f.id);
    assert.deepEqual(ids, [
      '06091700:MT:USGS',
      '06301850:WY:USGS',
      '09021000:CO:USGS',
      '10311100:NV:USGS',
      '150021:CA:USGS',
      'WHEATFLD:AZ:USGS',
    ]);
    for (const f of idx.features) {
      const file = join(src, `${f.id.replaceAll(':', '_')}.geojson`);
      const rec = JSON.parse(await readFile(file, 'utf8'));
      const o = await oracle<OracleRecord>('record', file);
      assert.equal(f.properties.geometry_hash, o.wkb_sha256, f.id);
      // Geodesic area vs planar area in an equal-area projection: same to 1e-8 relative.
      assert.ok(
        Math.abs((f.properties.area_meters as number) / o.area - 1) < 1e-8,
        `${f.id}: ${f.properties.area_meters} vs ${o.area}`,
      );
      const point = rec.geometries.find((g: { type: string }) => g.type === 'Point');
      assert.deepEqual(f.geometry, { type: 'Point', coordinates: point.coordinates });
      assert.equal(f.properties.name, rec.properties.nwccname ?? rec.properties.name);
      assert.deepEqual(f.properties.coverage, {});
    }
    // WHEATFLD has only `name`; 150021 is a two-part MultiPolygon.
    assert.equal(idx.features[5]!.properties.name, 'Wheatfields Ck nr Wheatfields');
  });

  it('basin QA: doctor lists each polygon more than 5 % off its declared area and the outlet 772 km away, as info', async () => {
    const r = await snowdb(['doctor', '--check', 'pourpoints', '--format', 'json'], { env: env() });
    assert.equal(r.code, 0, r.stderr); // info only: the data are as published
    const findings = (
      JSON.parse(r.stdout) as { findings: { target: string; issue: string; severity: string }[] }
    ).findings;
    const idx = await readIndex();
    const want: string[] = [];
    for (const f of idx.features) {
      const p = f.properties as { area_meters: number; declared_area_m2?: number; outlet_outside_m?: number };
      if (p.declared_area_m2 !== undefined) {
        // BAGIS's basinarea is in mi²: the index holds it in m².
        const rec = JSON.parse(await readFile(join(src, `${f.id.replaceAll(':', '_')}.geojson`), 'utf8'));
        assert.ok(Math.abs(p.declared_area_m2 - rec.properties.basinarea * 2589988.110336) < 1e-6, f.id);
        const pct = (100 * (p.area_meters - p.declared_area_m2)) / p.declared_area_m2;
        if (Math.abs(pct) > 5) want.push(`${f.id} area ${pct > 0 ? '+' : ''}${pct.toFixed(1)} %`);
      }
      if ((p.outlet_outside_m ?? 0) > 1000)
        want.push(`${f.id} outlet ${(p.outlet_outside_m! / 1000).toFixed(1)} km`);
    }
    const got = findings.map((x) => {
      assert.equal(x.severity, 'info');
      const area = / is ([-+][\d.]+) % against its declared/.exec(x.issue);
      const far = /outlet lies ([\d.]+) km outside/.exec(x.issue);
      return area ? `${x.target} area ${area[1]} %` : `${x.target} outlet ${far?.[1]} km`;
    });
    assert.deepEqual(got.sort(), want.sort());
    assert.ok(
      got.some((g) => /^09021000:CO:USGS outlet 77\d\.\d km$/.test(g)),
      got.join('; '),
    );
  });

  it('show reads the record: ids, shape, and the outflow point 772 km from its basin (as OGR measures)', async () => {
    const r = await snowdb(['pourpoint', 'show', '09021000:CO:USGS', '--format', 'json'], { env: env() });
    assert.equal(r.code, 0, r.stderr);
    const d = JSON.parse(r.stdout);
    const o = await oracle<OracleRecord>('record', join(src, '09021000_CO_USGS.geojson'));
    assert.ok(
      Math.abs(d.point_outside_m - o.point_distance) < 1,
      `${d.point_outside_m} vs ${o.point_distance}`,
    );
    assert.equal(d.awdb_id, '09021000');
    assert.equal(d.usgs_id, '9021000');
    assert.equal(d.parts, 1);
    const table = await snowdb(['pourpoint', 'show', '150021:CA:USGS'], { env: env() });
    assert.equal(table.code, 0, table.stderr);
    assert.match(table.stdout, /^point\s+-?[\d.]+, [\d.]+ \(inside the basin\)$/m);
    assert.match(table.stdout, /^basin\s+2 part\(s\)/m);
    const far = await snowdb(['pourpoint', 'show', '09021000:CO:USGS'], { env: env() });
    assert.match(far.stdout, /772\.407 km OUTSIDE the basin polygon/);
  });

  it('list prints every indexed pourpoint (table and json)', async () => {
    const t = await snowdb(['pourpoint', 'list'], { env: env() });
    assert.equal(t.code, 0, t.stderr);
    assert.match(t.stdout, /^10311100:NV:USGS\s+Kings Canyon Ck nr Carson City\s+10\.46\s*$/m);
    const j = JSON.parse((await snowdb(['pourpoint', 'list', '--format', 'json'], { env: env() })).stdout);
    assert.equal(j.length, 6);
    assert.deepEqual(Object.keys(j[0]).sort(), ['area_meters', 'coverage', 'name', 'point', 'triplet']);
  });

  it('a second sync finds everything unchanged and rewrites nothing', async () => {
    const before = await snapshotTree(root);
    const r = await snowdb(['pourpoint', 'sync', src], { env: env() });
    assert.equal(r.code, 0, r.stderr);
    assert.match(
      r.stdout,
      /^imported 0 \(0 new, 0 updated\), 6 unchanged, skipped 2 point-only, pruned 0, invalid 0$/m,
    );
    assert.deepEqual(await snapshotTree(root), before);
  });

  it('import: a record with keys in another order is stored byte for byte; point-only is skipped', async () => {
    // Same basin as 06302000, keys reordered (type, properties, geometries, id) and the basin first.
    const rec = JSON.parse(await readFile(join(FIX, '06302000_WY_USGS.geojson'), 'utf8'));
    const reordered = `${JSON.stringify({ type: rec.type, properties: rec.properties, geometries: [...rec.geometries].reverse(), id: rec.id }, null, 1)}\n`;
    const file = join(dir, 'any-name.geojson');
    await writeFile(file, reordered);
    const r = await snowdb(['pourpoint', 'import', file], { env: env() });
    assert.equal(r.code, 0, r.stderr);
    assert.equal(
      r.stdout.trim(),
      'imported 1 (1 new, 0 updated), 0 unchanged, skipped 0 point-only, pruned 0, invalid 0',
    );
    assert.equal(await readFile(join(root, 'pourpoints/06302000_WY_USGS.geojson'), 'utf8'), reordered);
    const entry = (await readIndex()).features.find((f) => f.id === '06302000:WY:USGS')!;
    const o = await oracle<OracleRecord>('record', join(FIX, '06302000_WY_USGS.geojson'));
    assert.equal(entry.properties.geometry_hash, o.wkb_sha256);

    const p = await snowdb(['pourpoint', 'import', join(FIX, '10020300_UT_USGS.geojson')], { env: env() });
    assert.equal(p.code, 0, p.stderr);
    assert.match(p.stdout, /skipped 1 point-only/);
    assert.match(p.stderr, /skipped point-only record 10020300:UT:USGS/);
  });

  it('invalid records fail naming the file and the reason, and change nothing', async () => {
    const good = JSON.parse(await readFile(join(FIX, '10311100_NV_USGS.geojson'), 'utf8'));
    /** A one-ring Polygon through `pts`, closed. */
    const polygon = (...pts: number[][]) => ({ type: 'Polygon', coordinates: [[...pts, pts[0]]] });
    const cases: [string, string, RegExp][] = [
      ['broken.geojson', '{"type": "GeometryCollection", "id": ', /broken\.geojson: not valid UTF-8 JSON/],
      [
        'escape.geojson',
        JSON.stringify({ ...good, id: '../../etc:MT:USGS' }),
        /escape\.geojson: id '\.\.\/\.\.\/etc:MT:USGS' is not a station triplet/,
      ],
      [
        'three.geojson',
        JSON.stringify({ ...good, geometries: [...good.geometries, good.geometries[0]] }),
        /three\.geojson: a GeometryCollection record must hold exactly two geometries/,
      ],
      [
        'noname.geojson',
        JSON.stringify({ ...good, properties: { source: 'ref' } }),
        /noname\.geojson: properties have neither "nwccname" nor "name"/,
      ],
      [
        'open.geojson',
        JSON.stringify({
          ...good,
          geometries: [
            good.geometries[0],
            {
              type: 'Polygon',
              coordinates: [
                [
                  [0, 0],
                  [1, 0],
                  [1, 1],
                  [0, 1],
                ],
              ],
            },
          ],
        }),
        /open\.geojson: geometries\[1\] Polygon\[0\] is not closed/,
      ],
      [
        'bowtie.geojson',
        JSON.stringify({
          ...good,
          geometries: [good.geometries[0], polygon([-112, 37], [-111, 38], [-111, 37], [-112, 38])],
        }),
        /bowtie\.geojson: geometries\[1\] Polygon\[0\] edge 0 crosses its edge 2 at \[-111\.500000, 37\.500000\]: a self-intersecting polygon has no single area; repair it/,
      ],
      [
        'flat.geojson',
        JSON.stringify({
          ...good,
          geometries: [good.geometries[0], polygon([-112, 37], [-111, 37], [-110, 37])],
        }),
        /flat\.geojson: geometries\[1\] Polygon has no area \(its rings are lines or points\)/,
      ],
      [
        'dateline.geojson',
        JSON.stringify({
          ...good,
          geometries: [good.geometries[0], polygon([179.9, 51], [-179.9, 51], [-179.9, 52], [179.9, 52])],
        }),
        /dateline\.geojson: geometries\[1\] Polygon\[0\] crosses the antimeridian between positions 0 and 1 \(longitude 179\.9 to -179\.9\): no dataset grid reaches it/,
      ],
      [
        'lat.geojson',
        JSON.stringify({
          ...good,
          geometries: [{ type: 'Point', coordinates: [-119, 95] }, good.geometries[1]],
        }),
        /lat\.geojson: geometries\[0\] Point \[-119, 95\] is not a WGS84 lon\/lat position/,
      ],
    ];
    const before = await snapshotTree(root);
    for (const [name, text, msg] of cases) {
      const file = join(dir, name);
      await writeFile(file, text);
      const r = await snowdb(['pourpoint', 'import', file], { env: env() });
      assert.equal(r.code, 1, name);
      assert.match(r.stderr, msg);
      assert.match(r.stderr, /^Error: /m);
    }
    assert.deepEqual(await snapshotTree(root), before);
    // Malformed triplets on the command line are refused before anything is read.
    for (const bad of ['../../x:MT:USGS', '06302000_WY_USGS', '06302000:WYO:USGS']) {
      const r = await snowdb(['pourpoint', 'show', bad], { env: env() });
      assert.equal(r.code, 1, bad);
      assert.match(r.stderr, /is not a basin id: expected a station triplet/);
    }
    const missing = await snowdb(['pourpoint', 'show', '99999999:MT:USGS'], { env: env() });
    assert.equal(missing.code, 1);
    assert.match(missing.stderr, /no pourpoint 99999999:MT:USGS in the index/);
    const dirAsFile = await snowdb(['pourpoint', 'import', src], { env: env() });
    assert.equal(dirAsFile.code, 2);
    assert.match(dirAsFile.stderr, /is a directory; to mirror a folder use 'snowdb pourpoint sync'/);
  });

  it('a sync with an invalid file imports the rest, reports it, and exits 1', async () => {
    const src2 = join(dir, 'src-invalid');
    await mkdir(src2);
    await copyFile(join(FIX, '06302000_WY_USGS.geojson'), join(src2, '06302000_WY_USGS.geojson'));
    await writeFile(join(src2, '06091700_MT_USGS.geojson'), '{"type": "Feature"');
    const r = await snowdb(['pourpoint', 'sync', src2, '--dry-run'], { env: env() });
    assert.equal(r.code, 1);
    // The damaged 06091700 file protects the stored 06091700 from the prune; 5 others would go.
    assert.match(
      r.stdout,
      /would import 1 \(0 new, 1 updated\), 0 unchanged, skipped 0 point-only, would prune 5, invalid 1 \(dry run/,
    );
    assert.match(r.stderr, /invalid: .*06091700_MT_USGS\.geojson: not valid UTF-8 JSON/);
  });

  it('prune: refused without --prune-to (nothing written); dry run writes nothing; --prune-to archives', async () => {
    // The source loses 10311100 and 150021.
    for (const b of ['10311100_NV_USGS', '150021_CA_USGS']) await rm(join(src, `${b}.geojson`));
    await copyFile(join(root, 'pourpoints/06302000_WY_USGS.geojson'), join(src, '06302000_WY_USGS.geojson'));
    const before = await snapshotTree(root);
    const refused = await snowdb(['pourpoint', 'sync', src], { env: env() });
    assert.equal(refused.code, 1);
    assert.match(
      refused.stderr,
      /^Error: 2 stored pourpoint\(s\) would be removed \(10311100:NV:USGS, 150021:CA:USGS\); pass --prune-to <dir>/m,
    );
    assert.deepEqual(await snapshotTree(root), before);

    const dry = await snowdb(['pourpoint', 'sync', src, '--dry-run'], { env: env() });
    assert.equal(dry.code, 0, dry.stderr);
    assert.match(dry.stdout, /would prune 2, invalid 0 \(dry run: nothing written\)/);
    assert.deepEqual(await snapshotTree(root), before);

    const archive = join(dir, 'archive');
    const r = await snowdb(['pourpoint', 'sync', src, '--prune-to', archive], { env: env() });
    assert.equal(r.code, 0, r.stderr);
    assert.match(
      r.stdout,
      new RegExp(`, 5 unchanged, skipped 2 point-only, pruned 2 to ${archive}, invalid 0$`, 'm'),
    );
    assert.deepEqual((await readdir(archive)).sort(), ['10311100_NV_USGS.geojson', '150021_CA_USGS.geojson']);
    assert.deepEqual(
      await readFile(join(archive, '10311100_NV_USGS.geojson')),
      await readFile(join(FIX, '10311100_NV_USGS.geojson')),
    );
    const ids = (await readIndex()).features.map((f) => f.id);
    assert.ok(!ids.includes('10311100:NV:USGS') && !ids.includes('150021:CA:USGS'), ids.join());
    assert.equal(ids.length, 5);
    assert.deepEqual(
      (await readdir(join(root, 'pourpoints'))).filter(
        (n) => n.startsWith('10311100') || n.startsWith('150021'),
      ),
      [],
    );
  });

  it('reindex rebuilds the same index from the records', async () => {
    const file = join(root, 'pourpoints/index.geojson');
    const incremental = await readFile(file, 'utf8');
    await rm(file);
    const r = await snowdb(['pourpoint', 'reindex'], { env: env() });
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stdout.trim(), `reindexed 5 pourpoint(s) into ${file}`);
    assert.equal(await readFile(file, 'utf8'), incremental);
    const status = await snowdb(['status'], { env: env() });
    assert.match(status.stdout, /pourpoints: 5 basin-bearing/);
    // Lost again, then an import of one stored record: the other four stay indexed.
    await rm(file);
    const one = (await readdir(join(root, 'pourpoints'))).find((n) => n.endsWith('.geojson'))!;
    const imp = await snowdb(['pourpoint', 'import', join(src, one)], { env: env() });
    assert.equal(imp.code, 0, imp.stderr);
    assert.match(imp.stdout, /1 unchanged/);
    assert.equal(await readFile(file, 'utf8'), incremental);
  });

  it('a record whose ring touches itself (invalid for OGR) imports; its area and hash agree with OGR', async () => {
    const file = join(FIX, '06043500_MT_USGS.geojson');
    const r = await snowdb(['pourpoint', 'import', file], { env: env() });
    assert.equal(r.code, 0, r.stderr);
    const entry = (await readIndex()).features.find((f) => f.id === '06043500:MT:USGS')!;
    const o = await oracle<OracleRecord>('record', file);
    assert.equal(entry.properties.geometry_hash, o.wkb_sha256);
    assert.ok(Math.abs((entry.properties.area_meters as number) / o.area - 1) < 1e-8);
  });
});
