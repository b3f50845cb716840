/**
 * A drawn polygon (stats/drawn.ts): the BAGIS basin's own polygon, drawn, answers exactly as the
 * basin (zones, every value, normals and the reference years), by the CLI (`stats --area`) and
 * over HTTP (POST /datasets/{d}/stats/area, JSON or CSV, an ETag); a triangle no basin holds gets
 * OGR's cell-polygon intersections × GDAL's values (to 1e-9); bad and oversized polygons are
 * refused by name.
 */
import assert from 'node:assert/strict';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { buildApp } from '../../src/api/app.js';
import { Database } from '../../src/db/database.js';
import { parseDateRange } from '../../src/stats/dates.js';
import { drawnArea, planDrawn } from '../../src/stats/drawn.js';
import { snowdb, tempDir } from '../helpers/cli.js';
import { BASIN, coverDb } from '../helpers/cover-db.js';
import { oracle } from '../helpers/gdal.js';
import { assertCellsMatch, gridSpec } from '../helpers/raster.js';

interface Body {
  zones: { zone: unknown[]; area_m2: number }[];
  variables: string[];
  results: Record<string, (number | null)[][]>;
  reference?: unknown;
  pourpoint?: string;
}
const close = (a: number, b: number) => Math.abs(a - b) <= 1e-9 * Math.max(1, Math.abs(b));

describe('a drawn polygon answers as an imported basin of the same shape', () => {
  let root: string;
  let env: Record<string, string>;
  let dir: string;
  let cleanup: () => Promise<void>;
  let polygon: { type: string; coordinates: number[][][] | number[][][][] };
  let file: string;
  before(async () => {
    root = `${(await coverDb()).dir}/db`;
    env = { SNOWDB_CONFIG: root };
    ({ dir, cleanup } = await tempDir());
    const record = JSON.parse(
      await readFile(join(root, 'pourpoints', `${BASIN.replaceAll(':', '_')}.geojson`), 'utf8'),
    );
    polygon = record.geometries.find((g: { type: string }) => g.type !== 'Point');
    file = join(dir, 'drawn.geojson');
    await writeFile(file, JSON.stringify({ type: 'Feature', properties: {}, geometry: polygon }));
  });
  after(() => cleanup());
  const cli = async (...args: string[]) => {
    const r = await snowdb(['stats', ...args], { env });
    assert.equal(r.code, 0, r.stderr);
    return JSON.parse(r.stdout) as Body;
  };

  it('stats --area FILE: the basin’s zones and values, with normals too', async () => {
    for (const extra of [[], ['--with-normals', '--units', 'us']]) {
      const drawn = await cli('cover', '--area', file, '--zone', 'terrain.elevation', ...extra);
      const basin = await cli('cover', BASIN, '--zone', 'terrain.elevation', ...extra);
      assert.ok(Object.keys(basin.results).length >= 6);
      assert.deepEqual(drawn, basin, extra.join(' '));
    }
  });

  it('POST /datasets/{d}/stats/area: the same in JSON and CSV, an ETag of the polygon; refusals by name', async () => {
    const app = await buildApp(await Database.open(root));
    try {
      const post = (url: string, body: unknown, headers: Record<string, string> = {}) =>
        app.inject({
          method: 'POST',
          url,
          payload: JSON.stringify(body),
          headers: { 'content-type': 'application/json', ...headers },
        });
      const url = '/datasets/cover/stats/area?datetime=../..&zone=terrain.elevation';
      const jobs = async () =>
        ((await app.inject({ method: 'GET', url: '/status' })).json() as { workers: { jobs: number } })
          .workers.jobs;
      const before = await jobs();
      const r = await post(url, polygon, { 'content-type': 'application/geo+json' });
      assert.equal(r.statusCode, 200, r.body);
      // The polygon was checked, measured and covered on a worker thread: one job, not the loop.
      assert.equal((await jobs()) - before, 1);
      const body = r.json() as Body & Record<string, unknown>;
      const basin = (
        await app.inject({
          method: 'GET',
          url: `/datasets/cover/stats/${BASIN}/date-range?datetime=../..&zone=terrain.elevation`,
        })
      ).json() as Body;
      assert.deepEqual(body.results, basin.results);
      assert.deepEqual(body.zones, basin.zones);
      assert.match(body.pourpoint!, /^drawn:[0-9a-f]{16}$/);
      const etag = r.headers.etag as string;
      const again = await post(
        url,
        { type: 'Feature', properties: {}, geometry: polygon },
        { 'if-none-match': etag },
      );
      assert.equal(again.statusCode, 304, 'the same polygon in a Feature: the same answer');
      const csv = await post(`${url}&f=csv`, polygon);
      assert.equal(csv.statusCode, 200);
      const direct = await app.inject({
        method: 'GET',
        url: `/datasets/cover/stats/${BASIN}/date-range?datetime=../..&zone=terrain.elevation&f=csv`,
      });
      assert.equal(csv.body, direct.body);
      const cases: [unknown, number, RegExp][] = [
        [
          { type: 'Point', coordinates: [-113, 37.3] },
          422,
          /the request body: expected a Polygon or MultiPolygon \(bare or in a Feature\), not "Point"/,
        ],
        [
          {
            type: 'Polygon',
            coordinates: [
              [
                [-113.2, 37.3],
                [-113.1, 37.4],
                [-113.1, 37.3],
                [-113.2, 37.4],
                [-113.2, 37.3],
              ],
            ],
          },
          422,
          /edge \d crosses its edge \d/,
        ],
        [
          {
            type: 'Polygon',
            coordinates: [
              [
                [-100, 40],
                [-99.9, 40],
                [-99.9, 40.1],
                [-100, 40],
              ],
            ],
          },
          409,
          /the drawn polygon lies outside the grid of 'cover'/,
        ],
        [
          {
            type: 'Polygon',
            coordinates: [
              Array.from({ length: 60_001 }, (_, k) => {
                const t = (2 * Math.PI * (k % 60_000)) / 60_000; // closed: the last position is the first
                return [-113.1 + 0.05 * Math.cos(t), 37.4 + 0.05 * Math.sin(t)];
              }),
            ],
          },
          422,
          /the drawn polygon has 60001 vertices, more than the limit of 50,000 \(simplify it\)/,
        ],
        [
          { type: 'FeatureCollection', features: [] },
          422,
          /a FeatureCollection must hold exactly one Feature here/,
        ],
      ];
      for (const [geometry, status, why] of cases) {
        const bad = await post(url, geometry);
        assert.equal(bad.statusCode, status, bad.body);
        assert.equal(bad.headers['content-type'], 'application/problem+json; charset=utf-8');
        assert.match(bad.json().detail, why);
      }
      const broken = await app.inject({
        method: 'POST',
        url,
        payload: '{"type":',
        headers: { 'content-type': 'application/json' },
      });
      assert.equal(broken.statusCode, 400, broken.body);
      // The framework's own refusals are catalog problems too, each with its type.
      const framework: [string, Record<string, string>, number, string, RegExp][] = [
        ['{"type":', { 'content-type': 'application/json' }, 400, 'malformed-body', /the body is not JSON/],
        [
          '{"type":"Polygon","__proto__":{"x":1},"coordinates":[]}',
          { 'content-type': 'application/json' },
          400,
          'malformed-body',
          /the body is not JSON, or it holds a __proto__ or constructor key \(refused\)/,
        ],
        [
          'type=Polygon',
          { 'content-type': 'text/plain' },
          400,
          'malformed-body',
          /the request body must be object: send GeoJSON as application\/json/,
        ],
        [
          '<Polygon/>',
          { 'content-type': 'application/xml' },
          415,
          'unsupported-media-type',
          /application\/json/,
        ],
        [
          `{"type":"Polygon","coordinates":[],"pad":"${'x'.repeat(8 * 1024 * 1024)}"}`,
          { 'content-type': 'application/json' },
          413,
          'body-too-large',
          /larger than this resource takes/,
        ],
      ];
      for (const [payload, headers, status, key, why] of framework) {
        const r = await app.inject({ method: 'POST', url, payload, headers });
        assert.equal(r.statusCode, status, `${key}: ${r.body}`);
        assert.equal(r.headers['content-type'], 'application/problem+json; charset=utf-8');
        const p = r.json() as { type: string; title: string; status: number; detail: string };
        assert.equal(p.type, `/problems/${key}`, r.body);
        assert.equal(p.status, status);
        assert.match(p.detail, why);
      }
    } finally {
      await app.close();
    }
  });

  it('a triangle no basin holds: OGR’s cell intersections × GDAL’s values, to 1e-9', async () => {
    const triangle = {
      type: 'Polygon',
      coordinates: [
        [
          [-113.21, 37.33],
          [-113.02, 37.36],
          [-113.12, 37.47],
          [-113.21, 37.33],
        ],
      ],
    };
    const path = join(dir, 'triangle.geojson');
    await writeFile(path, JSON.stringify(triangle));
    const o = await oracle<{ basin: { area_m2: number; mean: number; sum: number } }>(
      'basin-stats',
      join(root, 'data/season/cogs/20231120/swe.tif'),
      path,
      '1',
    );
    const b = await cli('season', '--area', path, '--dates', '2023-11-20', '--variable', 'swe');
    const [mean, total] = b.results['2023-11-20']![0]! as number[];
    assert.ok(close(b.zones[0]!.area_m2, o.basin.area_m2), `${b.zones[0]!.area_m2} vs ${o.basin.area_m2}`);
    assert.ok(close(mean!, o.basin.mean), `${mean} vs ${o.basin.mean}`);
    assert.ok(close(total!, o.basin.sum * 0.001), `${total} vs ${o.basin.sum * 0.001}`);
    // Cell by cell: the weights standing in for its AOI are OGR's intersections of each cell.
    const plan = await planDrawn(await Database.open(root), {
      dataset: 'season',
      dates: parseDateRange('2023-11-20'),
      area: drawnArea(triangle, 'the triangle'),
      label: 'the triangle',
    });
    const jobs = join(dir, 'jobs.json');
    await writeFile(
      jobs,
      JSON.stringify([
        { geojson: path, grid: { ...gridSpec(plan.dataset.grid), window: plan.drawn!.window } },
      ]),
    );
    const [cells] = await oracle<[number, number, number][][]>('cell-sets', jobs);
    assert.ok(assertCellsMatch('triangle on season', plan.drawn!.weights, cells!) > 100);
    const none = await snowdb(['stats', 'season', BASIN, '--area', path], { env });
    assert.equal(none.code, 2);
    assert.match(none.stderr, /give a pourpoint or --area <file>, one of them/);
  });
});
