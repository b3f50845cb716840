import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { gunzipSync } from 'node:zlib';
import { buildApp } from '../../src/api/app.js';
import { Database } from '../../src/db/database.js';
import { serveApi, snowdb, tempDir } from '../helpers/cli.js';
import { oracle } from '../helpers/gdal.js';
import { fixturePath } from '../helpers/raster.js';
import { buildZionDb, importOffGrid, ZION, zionTar } from '../helpers/zion-db.js';

type Json = Record<string, unknown> & { links?: { rel: string; href: string; templated?: boolean }[] };

describe('HTTP API: a real server on 127.0.0.1 over a real database', () => {
  let dir: string;
  let cleanup: () => Promise<void>;
  let env: Record<string, string>;
  let base: string;
  let stop: () => Promise<void>;
  const cli = (...args: string[]) => snowdb(args, { env });
  const get = (path: string, headers: Record<string, string> = {}) => fetch(`${base}${path}`, { headers });
  const json = async (path: string, headers: Record<string, string> = {}) => {
    const r = await get(path, headers);
    assert.equal(r.status, 200, `${path}: ${r.status} ${await r.clone().text()}`);
    return (await r.json()) as Json;
  };
  const STATS = `/datasets/snodas/stats/${ZION}`;

  before(async () => {
    ({ dir, cleanup } = await tempDir());
    env = await buildZionDb(dir);
    ({ base, stop } = await serveApi(env));
  });
  after(async () => {
    await stop();
    await cleanup();
  });

  it('api serve --check validates the database and says OK; a corrupt index is a clear failure', async () => {
    const ok = await cli('api', 'serve', '--check');
    assert.equal(ok.code, 0, ok.stderr);
    assert.match(ok.stdout, /^OK: .*: 0 active dataset\(s\) \(none\), 1 pourpoint\(s\); the app builds$/m);
    const other = await tempDir();
    try {
      const bad = join(other.dir, 'db');
      assert.equal((await snowdb(['init', bad])).code, 0);
      await writeFile(join(bad, 'pourpoints/index.geojson'), '{"type": "FeatureCollection"');
      const r = await snowdb(['api', 'serve', '--check'], { env: { SNOWDB_CONFIG: bad } });
      assert.equal(r.code, 1);
      assert.match(r.stderr, /index\.geojson/);
    } finally {
      await other.cleanup();
    }
  });

  it('landing page links; an activation shows without a restart', async () => {
    const landing = await json('/');
    assert.equal(landing.title, 'snowdb API');
    const rels = landing.links!.map((l) => `${l.rel} ${new URL(l.href).pathname}`);
    for (const want of [
      'self /',
      'data /datasets',
      'data /pourpoints',
      'service-desc /openapi.json',
      'service-doc /docs',
      'service-doc /redoc',
    ])
      assert.ok(rels.includes(want), `${want} in ${rels.join(', ')}`);
    assert.deepEqual((await json('/datasets')).datasets, []);
    const inactive = await get('/datasets/snodas');
    assert.equal(inactive.status, 404);
    assert.match(((await inactive.json()) as Json).detail as string, /is not active/);
    assert.equal((await cli('dataset', 'activate', 'snodas')).code, 0);
    const list = await json('/datasets');
    assert.deepEqual(
      (list.datasets as Json[]).map((d) => d.name),
      ['snodas'],
    );
  });

  it('dataset info: zones, variables with stat names, dates, templated stats links', async () => {
    const d = await json('/datasets/snodas');
    assert.equal(d.name, 'snodas');
    assert.deepEqual(d.grid, {
      crs: 'EPSG:4326',
      rows: 3351,
      cols: 6935,
      tile_size: 256,
      is_geographic: true,
      bounds: (d.grid as { bounds: number[] }).bounds,
    });
    const zones = d.zones as { key: string; kind: string; param?: string; default?: number }[];
    assert.deepEqual(
      zones.map((z) => `${z.key}:${z.kind}:${z.param ?? ''}`),
      [
        'landcover.forest_cover:threshold:threshold_pct',
        'terrain.aspect:categorical:',
        'terrain.aspect_entropy:threshold:entropy_threshold',
        'terrain.eastness:bucketed:buckets',
        'terrain.elevation:banded:band_step_ft',
        'terrain.northness:bucketed:buckets',
      ],
    );
    // One entry per variable (the reference tool's members from its first statistic), every statistic inside.
    const vars = d.variables as { key: string; stat_name: string; reducer: string; statistics: unknown[] }[];
    assert.equal(new Set(vars.map((v) => v.key)).size, vars.length, 'one entry per variable');
    const swe = vars.find((v) => v.key === 'swe')!;
    assert.deepEqual([swe.stat_name, swe.reducer], ['mean_swe_mm', 'mean']);
    assert.deepEqual(swe.statistics, [
      { stat_name: 'mean_swe_mm', unit: 'mm', reducer: 'mean' },
      { stat_name: 'total_swe_m3', unit: 'm3', reducer: 'total' },
    ]);
    assert.deepEqual(d.dates, {
      count: 2,
      first: '2024-01-15',
      last: '2024-01-16',
      water_years: [{ water_year: 2024, dates: 2, complete: false }],
    });
    const range = d.links!.find((l) => l.rel === 'stats-date-range')!;
    assert.equal(range.templated, true);
    assert.equal(decodeURI(new URL(range.href).pathname), '/datasets/snodas/stats/{pourpoint}/date-range{');
    assert.ok(
      d.links!.some((l) => l.rel === 'stats-doy' && l.href.includes('{?month,day,start_year,end_year')),
    );
  });

  it('pourpoints: a paged FeatureCollection and a basin Feature with bound stats links', async () => {
    const fc = await json('/pourpoints');
    assert.equal(fc.numberMatched, 1);
    const [f] = fc.features as { id: string; properties: Json; geometry: { type: string } }[];
    assert.equal(f!.id, ZION);
    assert.equal(f!.geometry.type, 'Point');
    assert.deepEqual(f!.properties.coverage, { snodas: 'full' });
    assert.deepEqual((await json('/pourpoints?bbox=0,0,10,10')).features, []);
    const one = await json(`/pourpoints/${ZION}`);
    assert.match((one.geometry as { type: string }).type, /Polygon/);
    const bound = one.links!.find((l) => l.rel === 'stats-date-range')!;
    assert.ok(bound.href.includes(`/datasets/snodas/stats/${ZION}/date-range{?datetime`), bound.href);
  });

  it('pourpoints: the basin table as CSV, and bbox on the outflow point or on the basin', async () => {
    const one = await json(`/pourpoints/${ZION}`);
    const p = one.properties as {
      name: string;
      area_meters: number;
      pourpoint: [number, number];
      outlet: boolean;
      area_vs_declared_percent: number | null;
    };
    const listed = (await json('/pourpoints')).features as { properties: { outlet_outside_m?: number } }[];
    const box = one.bbox as unknown as [number, number, number, number];
    const table = `triplet,name,area_meters,lon,lat,west,south,east,north,outlet,outlet_outside_m,area_vs_declared_percent,coverage\r\n${[
      ZION,
      p.name,
      p.area_meters,
      ...p.pourpoint,
      ...box,
      p.outlet,
      listed[0]!.properties.outlet_outside_m ?? '',
      p.area_vs_declared_percent ?? '',
      'snodas:full',
    ].join(',')}\r\n`;
    for (const [path, headers] of [
      ['/pourpoints?f=csv', {}],
      ['/pourpoints', { Accept: 'text/csv' }],
    ] as const) {
      const r = await get(path, headers);
      assert.equal(r.status, 200);
      assert.match(r.headers.get('content-type')!, /^text\/csv/);
      assert.equal(await r.text(), table);
    }
    // GeoJSON stays this route's JSON, asked for by its own type too.
    assert.equal((await json('/pourpoints', { Accept: 'application/geo+json' })).numberMatched, 1);
    // A strip along the basin's north edge: it meets the basin's box, not its outflow point.
    const [w, s, e, n] = box;
    const strip = [w, n - 0.1 * (n - s), e, n].join(',');
    assert.ok(p.pourpoint[1] < n - 0.1 * (n - s), 'the outflow point lies south of the strip');
    const ids = async (q: string) =>
      ((await json(`/pourpoints?${q}`)).features as { id: string }[]).map((f) => f.id);
    assert.deepEqual(await ids(`bbox=${strip}`), []);
    assert.deepEqual(await ids(`bbox=${strip}&bbox_on=basin`), [ZION]);
    assert.deepEqual(await ids(`bbox=${strip}&bbox_on=basin&geometry=basin`), [ZION]);
    const basinCsv = await (await get(`/pourpoints?f=csv&bbox=${strip}&bbox_on=basin`)).text();
    assert.equal(basinCsv, table);
    // Across the antimeridian: 170° east to 100° west holds it, 170° east to 120° west does not.
    assert.deepEqual(await ids('bbox=170,-90,-100,90&bbox_on=basin'), [ZION]);
    assert.deepEqual(await ids('bbox=170,-90,-100,90'), [ZION]);
    assert.deepEqual(await ids('bbox=170,-90,-120,90&bbox_on=basin'), []);
    // Paging links carry bbox_on; a GeoJSON page holds at most 1,000.
    const linked = await json(`/pourpoints?bbox=${strip}&bbox_on=basin`);
    assert.ok(
      linked
        .links!.filter((l) => l.href.includes('/pourpoints?'))
        .every((l) => l.href.includes('bbox_on=basin')),
    );
    const big = await get('/pourpoints?limit=1001');
    assert.equal(big.status, 400);
    assert.match(((await big.json()) as { detail: string }).detail, /limit/);
    const bad = await get('/pourpoints?bbox_on=outlet');
    assert.equal(bad.status, 400);
  });

  it('pourpoints: simplified basins keep original vertices, none dropped farther than the tolerance (GEOS oracle)', async () => {
    const full = await json('/pourpoints?geometry=basin');
    const tol = 0.002;
    const simple = await json(`/pourpoints?geometry=basin&simplify=${tol}`);
    assert.ok(
      simple.links!.every((l) => !l.href.includes('/pourpoints?') || l.href.includes(`simplify=${tol}`)),
    );
    const dir = await mkdtemp(join(tmpdir(), 'snowdb-simplify-'));
    try {
      const [a, b] = [full, simple].map((fc) => (fc.features as { geometry: unknown }[])[0]!.geometry);
      await writeFile(join(dir, 'a.json'), JSON.stringify(a));
      await writeFile(join(dir, 'b.json'), JSON.stringify(b));
      const c = await oracle<Record<string, number | boolean>>(
        'simplify-check',
        join(dir, 'a.json'),
        join(dir, 'b.json'),
        String(tol),
      );
      assert.equal(c.kept_are_original, true);
      assert.ok((c.farthest_dropped as number) <= tol * (1 + 1e-9), String(c.farthest_dropped));
      assert.ok((c.vertices as number) < (c.original_vertices as number) / 4, JSON.stringify(c));
      // GEOS's Simplify runs the same algorithm (then repairs topology): the same vertex count or close.
      assert.ok(
        Math.abs((c.vertices as number) - (c.geos_vertices as number)) <= 0.05 * (c.geos_vertices as number),
        JSON.stringify(c),
      );
      assert.ok(Math.abs((c.area as number) / (c.original_area as number) - 1) < 0.02, JSON.stringify(c));
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
    const bad = await get('/pourpoints?simplify=0.01');
    assert.equal(bad.status, 400);
    assert.match(((await bad.json()) as { detail: string }).detail, /simplify goes with geometry=basin/);
  });

  it('stats JSON: the CLI body plus pourpoint, dataset, query and links', async () => {
    const args = ['--dates', '2024-01-15/2024-01-16', '--zone', 'terrain.elevation', '--variable', 'swe'];
    const cliBody = JSON.parse((await cli('stats', 'snodas', ZION, ...args)).stdout) as Json;
    const r = await json(
      `${STATS}/date-range?datetime=2024-01-15/2024-01-16&zone=terrain.elevation&variable=swe`,
    );
    const { pourpoint, dataset, query, links, ...body } = r;
    assert.deepEqual(body, cliBody);
    assert.equal(pourpoint, ZION);
    assert.equal(dataset, 'snodas');
    assert.deepEqual(query, { type: 'DateRange', start_date: '2024-01-15', end_date: '2024-01-16' });
    assert.deepEqual(
      links!.map((l) => l.rel),
      ['self', 'root', 'up', 'alternate'],
    );
    assert.equal(new URL(links![3]!.href).searchParams.get('f'), 'csv');
    const doy = await json(`${STATS}/doy?month=1&day=16&start_year=2020&end_year=2024&variable=swe`);
    assert.deepEqual(Object.keys(doy.results as object), ['2024-01-16']);
    assert.deepEqual(doy.query, { type: 'DayOfYear', month: 1, day: 16, start_year: 2020, end_year: 2024 });
  });

  it('dates that hold no ingested date: an empty body, and a note naming the nearest held dates (CLI stderr, HTTP notes)', async () => {
    const r = await cli('stats', 'snodas', ZION, '--dates', '2024-01-10/2024-01-14', '--variable', 'swe');
    assert.equal(r.code, 0, r.stderr);
    assert.deepEqual((JSON.parse(r.stdout) as Json).results, {});
    const note =
      "no date of 'snodas' is ingested in 2024-01-10/2024-01-14; the nearest held: 2024-01-15 (after) (see 'snowdb dataset dates snodas')";
    assert.match(r.stderr, new RegExp(`^note: ${note.replace(/[()/.]/g, '\\$&')}$`, 'm'));
    const between = await json(`${STATS}/date-range?datetime=2024-01-17&variable=swe`);
    assert.deepEqual(between.results, {});
    assert.deepEqual(between.notes, [
      "no date of 'snodas' is ingested in 2024-01-17; the nearest held: 2024-01-16 (before) (see 'snowdb dataset dates snodas')",
    ]);
    const doy = await json(`${STATS}/doy?month=4&day=1&start_year=2020&end_year=2023&variable=swe`);
    assert.deepEqual(doy.notes, [
      "no date of 'snodas' is ingested in 04-01 of 2020..2023; the nearest held: 2024-01-15 (after) (see 'snowdb dataset dates snodas')",
    ]);
    const all = await json('/datasets/snodas/stats?date=2023-12-01&variable=swe');
    assert.equal((all.notes as string[]).length, 1);
    // An answer with data carries no note.
    assert.equal((await json(`${STATS}/date-range?datetime=2024-01-15&variable=swe`)).notes, undefined);
    const one = await cli('stats', 'snodas', ZION, '--dates', '2024-01-15', '--variable', 'swe');
    assert.doesNotMatch(one.stderr, /note: no date/);
  });

  it('CSV by f=csv or Accept, as a named download, gzip on request; the same numbers as the CLI', async () => {
    const cliCsv = (
      await cli('stats', 'snodas', ZION, '--zone', 'terrain.aspect', '--variable', 'swe', '--format', 'csv')
    ).stdout;
    const q = 'datetime=../..&zone=terrain.aspect&variable=swe';
    for (const [path, headers] of [
      [`${STATS}/date-range?${q}&f=csv`, {}],
      [`${STATS}/date-range?${q}`, { Accept: 'text/csv' }],
      [`${STATS}/date-range?${q}&f=csv`, { Accept: 'application/json' }],
    ] as const) {
      const r = await get(path, headers);
      assert.equal(r.status, 200);
      assert.match(r.headers.get('content-type')!, /^text\/csv/);
      assert.equal(
        r.headers.get('content-disposition'),
        'attachment; filename="09406000-UT-USGS_open-open_zonal_1.csv"',
      );
      assert.equal((await r.text()).trimEnd(), cliCsv.trimEnd());
    }
    const doy = await get(`${STATS}/doy?month=1&day=16&start_year=2018&end_year=2024&f=csv`);
    assert.equal(
      doy.headers.get('content-disposition'),
      'attachment; filename="09406000-UT-USGS_1-16_2018-2024.csv"',
    );
    const span = await get(
      `${STATS}/date-range?datetime=2024-01-15/2024-01-16&zone=terrain.aspect&zone=terrain.elevation&f=csv`,
    );
    assert.equal(
      span.headers.get('content-disposition'),
      'attachment; filename="09406000-UT-USGS_2024-01-15-2024-01-16_zonal_2.csv"',
    );
    // gzip: fetch would inflate silently, so read the raw bytes over node:http.
    const { request } = await import('node:http');
    const raw = await new Promise<{ encoding: string | undefined; body: Buffer }>((resolve, reject) => {
      request(`${base}${STATS}/date-range?${q}&f=csv`, { headers: { 'Accept-Encoding': 'gzip' } }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () =>
          resolve({ encoding: res.headers['content-encoding'], body: Buffer.concat(chunks) }),
        );
      })
        .on('error', reject)
        .end();
    });
    assert.equal(raw.encoding, 'gzip');
    assert.equal(gunzipSync(raw.body).toString('utf8').trimEnd(), cliCsv.trimEnd());
  });

  it('ETag and If-None-Match: 304 while nothing changed; a new date changes the tag and shows at once', async () => {
    const path = `${STATS}/date-range?datetime=2024-01-01/..&variable=swe`;
    const first = await get(path);
    const etag = first.headers.get('etag')!;
    assert.match(etag, /^"[A-Za-z0-9_-]+\.json"$/);
    assert.equal((await get(path, { 'If-None-Match': etag })).status, 304);
    const csvTag = (await get(`${path}&f=csv`)).headers.get('etag');
    assert.notEqual(csvTag, etag);
    assert.equal((await get(path, { 'If-None-Match': '"other"' })).status, 200);
    const ing = await cli('dataset', 'ingest', 'snodas', await zionTar(dir, '20240117', () => 7));
    assert.equal(ing.code, 0, ing.stderr);
    const after = await get(path, { 'If-None-Match': etag });
    assert.equal(after.status, 200);
    assert.notEqual(after.headers.get('etag'), etag);
    const body = (await after.json()) as { results: Record<string, number[][]> };
    assert.deepEqual(Object.keys(body.results), ['2024-01-15', '2024-01-16', '2024-01-17']);
    assert.ok(Math.abs(body.results['2024-01-17']![0]![0]! - 7) < 1e-12);
  });
});

describe('HTTP API: every error is problem+json from the catalog (in-process requests)', () => {
  let dir: string;
  let cleanup: () => Promise<void>;
  let app: Awaited<ReturnType<typeof buildApp>>;
  const STATS = `/datasets/snodas/stats/${ZION}`;

  before(async () => {
    ({ dir, cleanup } = await tempDir());
    const env = await buildZionDb(dir);
    assert.equal((await snowdb(['dataset', 'activate', 'snodas'], { env })).code, 0);
    await importOffGrid(dir, env);
    app = await buildApp(await Database.open(env.SNOWDB_CONFIG!));
  });
  after(async () => {
    await app.close();
    await cleanup();
  });

  const cases: [string, Record<string, string>, number, string, RegExp][] = [
    [`${STATS}/date-range`, {}, 400, 'malformed-query-parameter', /datetime/],
    [
      `${STATS}/date-range?datetime=2024-02-30/..`,
      {},
      400,
      'malformed-query-parameter',
      /not a calendar date/,
    ],
    [
      `${STATS}/date-range?datetime=2024-03-01/2024-02-01`,
      {},
      400,
      'malformed-query-parameter',
      /start is after the end/,
    ],
    [
      `${STATS}/date-range?datetime=../..&f=xml`,
      {},
      400,
      'malformed-query-parameter',
      /^f must be equal to one of/,
    ],
    [
      `${STATS}/doy?month=2&day=30&start_year=2020&end_year=2024`,
      {},
      400,
      'malformed-query-parameter',
      /day 30 does not exist in month 2/,
    ],
    [
      `${STATS}/doy?month=4&day=1&start_year=2024&end_year=2020`,
      {},
      400,
      'malformed-query-parameter',
      /start_year 2024 is after end_year 2020/,
    ],
    [`${STATS}/doy?month=4&day=1`, {}, 400, 'malformed-query-parameter', /start_year/],
    [
      '/datasets/nosuch/stats/09406000:UT:USGS/date-range?datetime=../..',
      {},
      404,
      'dataset-not-found',
      /no active dataset 'nosuch'/,
    ],
    [
      '/datasets/snodas/stats/99999999:UT:USGS/date-range?datetime=../..',
      {},
      404,
      'pourpoint-not-found',
      /99999999:UT:USGS/,
    ],
    [
      '/datasets/snodas/stats/OFFGRID:UT:TEST/date-range?datetime=../..',
      {},
      409,
      'pourpoint-not-covered',
      /outside the grid/,
    ],
    [
      `${STATS}/date-range?datetime=../..&zone=terrain.slope`,
      {},
      422,
      'invalid-query-parameter',
      /Unknown zone layer 'terrain\.slope'/,
    ],
    [
      `${STATS}/date-range?datetime=../..&zone=terrain.aspect:x=1`,
      {},
      422,
      'invalid-query-parameter',
      /aspect/,
    ],
    [
      `${STATS}/date-range?datetime=../..&variable=snow`,
      {},
      422,
      'invalid-query-parameter',
      /unknown variable 'snow'/,
    ],
    [`${STATS}/date-range?datetime=../..`, { Accept: 'image/png' }, 406, 'not-acceptable', /image\/png/],
    [
      '/datasets/snodas/stats/not-a-triplet/date-range?datetime=../..',
      {},
      422,
      'invalid-path-parameter',
      /pourpoint must match/,
    ],
    [
      '/datasets/..%2F..%2Fetc/stats/09406000:UT:USGS/date-range?datetime=../..',
      {},
      422,
      'invalid-path-parameter',
      /dataset must match/,
    ],
    ['/pourpoints/..%2F..%2Fsnowdb.json', {}, 422, 'invalid-path-parameter', /pourpoint/],
    ['/pourpoints?bbox=1,2,3', {}, 400, 'malformed-query-parameter', /bbox '1,2,3'/],
    ['/pourpoints?limit=0', {}, 400, 'malformed-query-parameter', /limit must be >= 1/],
    ['/nowhere', {}, 404, 'resource-not-found', /no resource at GET \/nowhere/],
    ['/problems/nosuch', {}, 404, 'problem-type-not-found', /nosuch/],
  ];
  for (const [url, headers, status, key, detail] of cases) {
    it(`${status} ${key}: GET ${url}`, async () => {
      const r = await app.inject({ method: 'GET', url, headers });
      assert.equal(r.statusCode, status, r.body);
      assert.match(r.headers['content-type'] as string, /^application\/problem\+json/);
      const p = r.json() as { type: string; title: string; status: number; detail: string };
      assert.equal(p.type, `/problems/${key}`);
      assert.equal(p.status, status);
      assert.match(p.detail, detail);
      const type = await app.inject({ method: 'GET', url: p.type });
      assert.equal((type.json() as { status: number }).status, status);
    });
  }

  it('a malformed parameter names it; an invalid zone names the allowed layers', async () => {
    const r = (await app.inject({ method: 'GET', url: `${STATS}/date-range` })).json() as Json;
    assert.equal(r.parameter, 'datetime');
    const z = (
      await app.inject({ method: 'GET', url: `${STATS}/date-range?datetime=../..&variable=snow` })
    ).json() as Json;
    assert.equal(z.parameter, 'variable');
    assert.ok((z.allowed as string[]).includes('swe'));
  });

  it('the OpenAPI document matches its snapshot (test/api/openapi.snapshot.json)', async () => {
    const doc = (await app.inject({ method: 'GET', url: '/openapi.json' })).json() as {
      info: { version: string };
    };
    doc.info.version = '0';
    const file = fixturePath('../api/openapi.snapshot.json');
    if (process.env.UPDATE_SNAPSHOTS === '1') await writeFile(file, `${JSON.stringify(doc, null, 2)}\n`);
    assert.deepEqual(doc, JSON.parse(await readFile(file, 'utf8')));
  });
});
