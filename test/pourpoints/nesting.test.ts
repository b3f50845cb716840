/**
 * Nesting (pourpoints/nesting.ts) and the intervening area (stats/intervening.ts), on a copy of
 * the snow-cover database: basins drawn inside its basin (one sharing its west edge, one with a
 * basin inside it, a neighbour half outside) nest as drawn, up and down, in `pourpoint show` and
 * `/pourpoints/{id}`; the basin less its children answers areas and totals that are the basin's
 * less its children's, date by date.
 */
import assert from 'node:assert/strict';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { buildApp } from '../../src/api/app.js';
import { Database } from '../../src/db/database.js';
import { snowdb, tempDir } from '../helpers/cli.js';
import { BASIN, copyCoverDb } from '../helpers/cover-db.js';

interface Body {
  zones: { area_m2: number }[];
  variables: string[];
  results: Record<string, (number | null)[][]>;
}

describe('nesting: basins inside basins, and the area between them', () => {
  let dir: string;
  let cleanup: () => Promise<void>;
  let env: Record<string, string>;
  before(async () => {
    ({ dir, cleanup } = await tempDir());
    await copyCoverDb(dir);
    env = { SNOWDB_CONFIG: join(dir, 'db') };
    const record = JSON.parse(
      await readFile(join(dir, 'db/pourpoints', `${BASIN.replaceAll(':', '_')}.geojson`), 'utf8'),
    );
    const ring = record.geometries.find((g: { type: string }) => g.type !== 'Point')
      .coordinates[0][0] as number[][];
    const [w, s, e, n] = [
      Math.min(...ring.map((p) => p[0]!)),
      Math.min(...ring.map((p) => p[1]!)),
      Math.max(...ring.map((p) => p[0]!)),
      Math.max(...ring.map((p) => p[1]!)),
    ];
    const dx = e - w;
    const dy = n - s;
    const box = (x0: number, y0: number, x1: number, y1: number) => ({
      type: 'Polygon',
      coordinates: [
        [
          [x0, y0],
          [x1, y0],
          [x1, y1],
          [x0, y1],
          [x0, y0],
        ],
      ],
    });
    const features = [
      ['a', box(w, s + 0.1 * dy, w + 0.45 * dx, n - 0.1 * dy)], // shares the basin's west edge
      ['b', box(w + 0.55 * dx, s + 0.1 * dy, e - 0.1 * dx, n - 0.1 * dy)],
      ['c', box(w + 0.1 * dx, s + 0.3 * dy, w + 0.3 * dx, s + 0.6 * dy)], // inside a
      ['n', box(e - 0.2 * dx, s + 0.2 * dy, e + 0.3 * dx, n - 0.2 * dy)], // 40 % inside: a neighbour
    ].map(([id, geometry]) => ({ type: 'Feature', properties: { id }, geometry }));
    const file = join(dir, 'inner.geojson');
    await writeFile(file, JSON.stringify({ type: 'FeatureCollection', features }));
    const r = await snowdb(['pourpoint', 'import', file, '--set', 'huc', '--id-field', 'id'], { env });
    assert.equal(r.code, 0, r.stderr);
  });
  after(() => cleanup());
  const show = async (id: string) => {
    const r = await snowdb(['pourpoint', 'show', id, '--format', 'json'], { env });
    assert.equal(r.code, 0, r.stderr);
    return JSON.parse(r.stdout) as { parents: string[]; children: string[] };
  };

  it('parents and children from the polygons, up and down, in show and /pourpoints/{id}', async () => {
    const basin = await show(BASIN);
    assert.deepEqual([basin.parents, basin.children], [[], ['huc:a', 'huc:b']]);
    const c = await show('huc:c');
    assert.deepEqual([c.parents, c.children], [['huc:a', BASIN], []]);
    const a = await show('huc:a');
    assert.deepEqual([a.parents, a.children], [[BASIN], ['huc:c']]);
    const neighbour = await show('huc:n');
    assert.deepEqual([neighbour.parents, neighbour.children], [[], []]);
    const app = await buildApp(await Database.open(env.SNOWDB_CONFIG!));
    try {
      const r = await app.inject({ method: 'GET', url: '/pourpoints/huc:a' });
      assert.equal(r.statusCode, 200);
      const p = r.json().properties;
      assert.deepEqual([p.parents, p.children, p.outlet], [[BASIN], ['huc:c'], false]);
    } finally {
      await app.close();
    }
    const table = await snowdb(['pourpoint', 'show', 'huc:c'], { env });
    assert.match(table.stdout, /^inside\s+huc:a, LINE:UT:TEST$/m);
  });

  it('--minus-children: areas and snow-covered areas are the basin’s less its children’s, date by date', async () => {
    const stats = async (...args: string[]) => {
      const r = await snowdb(['stats', 'cover', ...args], { env });
      assert.equal(r.code, 0, r.stderr);
      return JSON.parse(r.stdout) as Body;
    };
    const [between, whole, a, b] = [
      await stats(BASIN, '--minus-children'),
      await stats(BASIN),
      await stats('huc:a'),
      await stats('huc:b'),
    ];
    const near = (x: number, y: number) => Math.abs(x - y) <= 1e-9 * whole.zones[0]!.area_m2;
    const area = whole.zones[0]!.area_m2 - a.zones[0]!.area_m2 - b.zones[0]!.area_m2;
    assert.ok(near(between.zones[0]!.area_m2, area), `${between.zones[0]!.area_m2} vs ${area}`);
    assert.ok(area > 0.2 * whole.zones[0]!.area_m2);
    const t = whole.variables.indexOf('total_snow_fraction_m2');
    assert.ok(t >= 0, whole.variables.join());
    let dates = 0;
    for (const d of Object.keys(whole.results)) {
      const v = (x: Body) => x.results[d]![0]![t] as number;
      assert.ok(near(v(between), v(whole) - v(a) - v(b)), `${d}: ${v(between)} vs ${v(whole) - v(a) - v(b)}`);
      dates++;
    }
    assert.ok(dates >= 6);
    const app = await buildApp(await Database.open(env.SNOWDB_CONFIG!));
    try {
      const r = await app.inject({
        method: 'GET',
        url: `/datasets/cover/stats/${BASIN}/date-range?datetime=../..&minus_children=true`,
      });
      assert.equal(r.statusCode, 200, r.body);
      assert.deepEqual((r.json() as Body).results, between.results);
      const none = await app.inject({
        method: 'GET',
        url: '/datasets/cover/stats/huc:c/date-range?datetime=../..&minus_children=true',
      });
      assert.equal(none.statusCode, 422);
      assert.match(none.json().detail, /no basin lies inside huc:c: it has no intervening area/);
    } finally {
      await app.close();
    }
  });
});
