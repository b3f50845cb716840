import assert from 'node:assert/strict';
import { readFile, rename, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { buildApp } from '../../src/api/app.js';
import { Database } from '../../src/db/database.js';
import { cliOk, snowdb, tempDir } from '../helpers/cli.js';
import { shiftedRecord } from '../helpers/fs.js';
import { fixturePath } from '../helpers/raster.js';
import { buildZionDb, importOffGrid, OFFGRID, ZION } from '../helpers/zion-db.js';

/** A second covered basin: the Virgin River record moved 0.35° east and 0.2° north. */
const MOVED = 'MOVED:UT:TEST';

interface Basin {
  pourpoint: string;
  zones: { zone: unknown[]; area_m2: number }[];
  results: Record<string, (number | null)[][]>;
}
interface All {
  zone_layers: string[];
  variables: string[];
  basins: Basin[];
}

describe('every basin at once: `snowdb stats-all` and GET /datasets/{d}/stats', () => {
  let dir: string;
  let cleanup: () => Promise<void>;
  let env: Record<string, string>;
  const ok = cliOk(() => env);
  const cli = async (...args: string[]) => (await ok(...args)).stdout;

  before(async () => {
    ({ dir, cleanup } = await tempDir());
    env = await buildZionDb(dir);
    const record = join(dir, 'MOVED_UT_TEST.geojson');
    await writeFile(
      record,
      await shiftedRecord(fixturePath('zion/pourpoints/09406000_UT_USGS.geojson'), MOVED, 0.35, 0.2),
    );
    await cli('pourpoint', 'import', record);
    await importOffGrid(dir, env); // outside the grid: not in the answer
    await cli('dataset', 'activate', 'snodas');
  });
  after(() => cleanup());

  it('equals the per-basin calls value for value, covered basins only, sorted by triplet; CSV adds a pourpoint column', async () => {
    const args = ['--zone', 'terrain.elevation', '--variable', 'swe', '--valid-fraction'];
    const all = JSON.parse(
      await cli('stats-all', 'snodas', '--date', '2024-01-15/2024-01-16', ...args),
    ) as All;
    assert.deepEqual(
      all.basins.map((b) => b.pourpoint),
      [ZION, MOVED].sort(),
    );
    assert.ok(!all.basins.some((b) => b.pourpoint === OFFGRID));
    let cells = 0;
    for (const b of all.basins) {
      const one = JSON.parse(
        await cli('stats', 'snodas', b.pourpoint, '--dates', '2024-01-15/2024-01-16', ...args),
      ) as All & Basin;
      assert.deepEqual(all.zone_layers, one.zone_layers);
      assert.deepEqual(all.variables, one.variables);
      assert.deepEqual(b.zones, one.zones, b.pourpoint);
      assert.deepEqual(b.results, one.results, b.pourpoint);
      assert.deepEqual(Object.keys(b.results), ['2024-01-15', '2024-01-16']);
      cells += b.zones.length;
    }
    // The two basins differ (one is moved), so the comparison above is not vacuous.
    assert.notDeepEqual(all.basins[0]!.results, all.basins[1]!.results);

    const csv = (await cli('stats-all', 'snodas', '--date', '2024-01-16', ...args, '--format', 'csv')).split(
      '\r\n',
    );
    assert.equal(
      csv[0],
      'pourpoint,date,terrain.elevation_min_ft,terrain.elevation_max_ft,area_m2,mean_swe_mm,total_swe_m3,valid_fraction_swe',
    );
    assert.equal(csv.length - 1, cells); // one date: one row per basin cell
    const first = all.basins[0]!;
    const [mean, total, valid] = first.results['2024-01-16']![0]!;
    const z = first.zones[0]!.zone[0] as { min: number; max: number };
    assert.equal(
      csv[1],
      [first.pourpoint, '2024-01-16', z.min, z.max, first.zones[0]!.area_m2, mean, total, valid].join(','),
    );
  });

  it('bad input: a malformed date names the parameter, an inactive or unknown dataset is named', async () => {
    const bad = await snowdb(['stats-all', 'snodas', '--date', '2024-13-01'], { env });
    assert.equal(bad.code, 1);
    assert.match(bad.stderr, /date/);
    const unknown = await snowdb(['stats-all', 'nosuch', '--date', '2024-01-16'], { env });
    assert.equal(unknown.code, 1);
    assert.match(unknown.stderr, /nosuch/);
  });

  it('over HTTP (in process): the same body as the CLI plus dataset, query and links; CSV as a named download; 400 names the parameter', async () => {
    const app = await buildApp(await Database.open(env.SNOWDB_CONFIG!));
    // In process (app.inject): the request path of `snowdb api serve` without a process of its own.
    const get = async (url: string, headers: Record<string, string> = {}) => {
      const r = await app.inject({ method: 'GET', url, headers });
      return { status: r.statusCode, headers: r.headers, text: r.body, json: () => r.json() as unknown };
    };
    try {
      const cliBody = JSON.parse(
        await cli('stats-all', 'snodas', '--date', '2024-01-16', '--variable', 'swe'),
      ) as All;
      const r = await get('/datasets/snodas/stats?date=2024-01-16&variable=swe');
      assert.equal(r.status, 200, r.text);
      const { dataset, query, links, ...body } = r.json() as All & {
        dataset: string;
        query: unknown;
        links: { rel: string }[];
      };
      assert.deepEqual(body, cliBody);
      // last_held: only the newest date held in the range (the dataset holds 2024-01-15 and -16).
      const held = r.json() as { basins: { results: object }[] };
      const newest = (
        await get('/datasets/snodas/stats?date=2024-01-01/2024-02-28&variable=swe&last_held=true')
      ).json() as typeof held;
      assert.deepEqual(newest.basins, held.basins);
      assert.ok(
        held.basins.length > 0 && held.basins.every((b) => Object.keys(b.results).join() === '2024-01-16'),
      );
      const none = (
        await get('/datasets/snodas/stats?date=2024-01-01/2024-01-10&variable=swe&last_held=true')
      ).json() as typeof held;
      assert.ok(
        none.basins.every((b) => Object.keys(b.results).length === 0),
        JSON.stringify(none).slice(0, 300),
      );
      assert.equal(dataset, 'snodas');
      assert.deepEqual(query, { type: 'DateRange', start_date: '2024-01-16', end_date: '2024-01-16' });
      assert.deepEqual(
        links.map((l) => l.rel),
        ['self', 'root', 'alternate'],
      );
      const csv = await get('/datasets/snodas/stats?date=2024-01-16&variable=swe&f=csv');
      assert.equal(
        csv.headers['content-disposition'],
        'attachment; filename="snodas_2024-01-16-2024-01-16_all.csv"',
      );
      const cliCsv = await cli(
        'stats-all',
        'snodas',
        '--date',
        '2024-01-16',
        '--variable',
        'swe',
        '--format',
        'csv',
      );
      assert.equal(csv.text.trimEnd(), cliCsv.trimEnd());
      // ETag: 304 while nothing changed; a basin removed changes it. An unknown parameter is named.
      const path = '/datasets/snodas/stats?date=2024-01-16&variable=swe';
      const etag = String(r.headers.etag);
      assert.match(etag, /^"[A-Za-z0-9_-]{27}\.json"$/);
      assert.equal((await get(path, { 'if-none-match': etag })).status, 304);
      assert.notEqual(csv.headers.etag, etag);
      const typo = await get(`${path}&with_normals=true`);
      assert.equal(typo.status, 400);
      assert.deepEqual(
        (typo.json() as { parameter: string; detail: string }).detail,
        'with_normals is not a parameter of this resource',
      );
      // The plans a server keeps for a repeated query rest on the dataset's state files: its config
      // rewritten (the same bytes, a new file) gives a new ETag, and the same answer.
      const db = await Database.open(env.SNOWDB_CONFIG!);
      const file = join(env.SNOWDB_CONFIG!, db.config.datasets.snodas!.path);
      await writeFile(`${file}.new`, await readFile(file));
      await rename(`${file}.new`, file);
      const rewritten = await get(path, { 'if-none-match': etag });
      assert.equal(rewritten.status, 200);
      assert.notEqual(rewritten.headers.etag, etag);
      assert.deepEqual(rewritten.json(), r.json());
      assert.equal((await get(path, { 'if-none-match': String(rewritten.headers.etag) })).status, 304);
      await cli('pourpoint', 'remove', MOVED);
      const after = await get(path, { 'if-none-match': String(rewritten.headers.etag) });
      assert.equal(after.status, 200);
      assert.notEqual(after.headers.etag, etag);
      assert.deepEqual(
        (after.json() as All).basins.map((b) => b.pourpoint),
        [ZION],
      );
      const missing = await get('/datasets/snodas/stats');
      assert.equal(missing.status, 400);
      assert.match(String(missing.headers['content-type']), /^application\/problem\+json/);
      assert.equal((missing.json() as { parameter: string }).parameter, 'date');
    } finally {
      await app.close();
    }
  });
});
