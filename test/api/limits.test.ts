/**
 * Bounded work per request: parameter bounds decided before any allocation, the admission gate
 * (concurrency, queue, time limit), and HTTP hygiene (every error problem+json without file paths,
 * links from the public URL, one log line per request). Over the shared 20-year history database.
 */
import assert from 'node:assert/strict';
import { writeFile } from 'node:fs/promises';
import { request } from 'node:http';
import { connect } from 'node:net';
import { Writable } from 'node:stream';
import { after, before, describe, it } from 'node:test';
import { buildApp } from '../../src/api/app.js';
import { Admission } from '../../src/app/admission.js';
import { Database } from '../../src/db/database.js';
import { SnowdbError } from '../../src/errors.js';
import { AsyncLru } from '../../src/util/lru.js';
import { serveApi, snowdb, tempDir } from '../helpers/cli.js';
import { FULL, historyDb } from '../helpers/history-db.js';

type App = Awaited<ReturnType<typeof buildApp>>;
const STATS = `/datasets/hist/stats/${FULL}`;

/** A promise with its resolve in hand. */
function deferred(): { promise: Promise<string>; resolve: (v: string) => void } {
  let resolve!: (v: string) => void;
  const promise = new Promise<string>((r) => {
    resolve = r;
  });
  return { promise, resolve };
}

const keyOf = (e: unknown) => (SnowdbError.is(e) ? e.key : String(e));

describe('admission: a bounded number of expensive queries run, a bounded number wait', () => {
  it('runs one, queues one, refuses the next with a retry time; a slot frees when its work ends', async () => {
    const gate = new Admission({ concurrency: 1, queue: 1, timeoutMs: 60_000 });
    const a = deferred();
    const b = deferred();
    const first = gate.run(() => a.promise);
    const second = gate.run(() => b.promise);
    assert.deepEqual(gate.load, { running: 1, waiting: 1 });
    const third = await gate.run(async () => 'never').catch((e: unknown) => e);
    assert.equal(keyOf(third), 'service-busy');
    assert.ok(((third as SnowdbError).extra.retry_after as number) >= 1);
    a.resolve('a');
    assert.equal(await first, 'a');
    assert.deepEqual(gate.load, { running: 1, waiting: 0 }); // the second took the slot
    b.resolve('b');
    assert.equal(await second, 'b');
    assert.deepEqual(gate.load, { running: 0, waiting: 0 });
  });

  it('the time limit answers at once, waiting or running; the slot is held until the work stops', async () => {
    const gate = new Admission({ concurrency: 1, queue: 4, timeoutMs: 30 });
    const work = deferred();
    let seen: AbortSignal | undefined;
    const running = gate
      .run((signal) => {
        seen = signal;
        return work.promise;
      })
      .catch((e: unknown) => e);
    const waiting = gate.run(async () => 'never').catch((e: unknown) => e);
    assert.equal(keyOf(await waiting), 'query-timeout');
    assert.equal(keyOf(await running), 'query-timeout');
    assert.equal(seen?.aborted, true, 'the work is told to stop');
    assert.deepEqual(gate.load, { running: 1, waiting: 0 }, 'the abandoned work still holds its slot');
    work.resolve('late');
    await new Promise((r) => setImmediate(r));
    assert.deepEqual(gate.load, { running: 0, waiting: 0 });
  });

  it('a shared fill stops only when every query waiting on it has left', async () => {
    const cache = new AsyncLru<string>(1 << 20, (v) => v.length);
    const fills: AbortSignal[] = [];
    const finish: ((v: string) => void)[] = [];
    const make = (signal: AbortSignal) =>
      new Promise<string>((res, rej) => {
        fills.push(signal);
        finish.push(res);
        signal.addEventListener('abort', () => rej(signal.reason));
      });
    // Two queries share one fill; the first leaves, the second still gets the value.
    const [a, b] = [new AbortController(), new AbortController()];
    const first = cache.get('k', make, a.signal).catch((e: unknown) => `left: ${keyOf(e)}`);
    const second = cache.get('k', make, b.signal);
    assert.equal(fills.length, 1);
    a.abort(new SnowdbError('client-closed', 'gone'));
    assert.equal(await first, 'left: client-closed');
    assert.equal(fills[0]!.aborted, false, 'the other query still waits');
    finish[0]!('table');
    assert.equal(await second, 'table');
    assert.equal(await cache.get('k', make), 'table', 'kept: no second fill');
    assert.equal(fills.length, 1);
    // A sole query that leaves stops its fill, which is then forgotten: the next ask fills again.
    const c = new AbortController();
    const lone = cache.get('j', make, c.signal).catch((e: unknown) => `left: ${keyOf(e)}`);
    c.abort(new SnowdbError('query-timeout', 'late'));
    assert.equal(await lone, 'left: query-timeout');
    assert.equal(fills[1]!.aborted, true);
    assert.equal(keyOf(fills[1]!.reason), 'query-timeout');
    await new Promise((res) => setImmediate(res));
    assert.equal(cache.has('j'), false);
    const again = cache.get('j', make);
    assert.equal(fills.length, 3);
    finish[2]!('fresh');
    assert.equal(await again, 'fresh');
  });

  it('a client that leaves abandons its query', async () => {
    const gate = new Admission({ concurrency: 1, queue: 1, timeoutMs: 60_000 });
    const gone = new AbortController();
    let started!: () => void;
    const running = new Promise<void>((r) => {
      started = r;
    });
    const r = gate
      .run(
        (signal) =>
          new Promise<string>((_res, rej) => {
            signal.addEventListener('abort', () => rej(signal.reason));
            started();
          }),
        gone.signal,
      )
      .catch((e: Error) => `rejected: ${e.message}`);
    await running;
    gone.abort();
    assert.match(await r, /^rejected: the client closed the connection/);
    await new Promise((res) => setImmediate(res));
    assert.deepEqual(gate.load, { running: 0, waiting: 0 });
  });
});

describe('HTTP limits and hygiene (in-process requests over the history database)', () => {
  let root: string;
  let app: App;
  let lines: Record<string, unknown>[];
  const PUBLIC = 'https://snow.example.org/api';

  before(async () => {
    root = (await historyDb()).SNOWDB_CONFIG!;
    lines = [];
    const stream = new Writable({
      write(chunk: Buffer, _enc, done) {
        for (const l of chunk.toString().split('\n'))
          if (l) lines.push(JSON.parse(l) as Record<string, unknown>);
        done();
      },
    });
    app = await buildApp(await Database.open(root), {
      publicUrl: PUBLIC,
      logger: { level: 'info', stream },
      limits: { maxUrlBytes: 2048, maxZoneCells: 500, maxValues: 100_000 },
    });
  });
  after(() => app.close());

  const get = (url: string, headers: Record<string, string> = {}) =>
    app.inject({ method: 'GET', url, headers });

  // [what, url, status, problem type, detail pattern]
  const cases: [string, string, number, string, RegExp][] = [
    [
      'a 1-foot band step is refused from its parameter',
      `${STATS}/date-range?datetime=2020-01-01&zone=terrain.elevation:band_step_ft=1`,
      422,
      '/problems/invalid-query-parameter',
      /cells, more than the limit of 500/,
    ],
    [
      'more than 8 zone tokens',
      `${STATS}/date-range?datetime=2020-01-01${'&zone=terrain.aspect'.repeat(9)}`,
      422,
      '/problems/invalid-query-parameter',
      /9 zone tokens, more than the limit of 8/,
    ],
    [
      'a request target over the byte limit',
      `${STATS}/date-range?datetime=2020-01-01${'&zone=terrain.elevation:band_step_ft=1'.repeat(60)}`,
      414,
      '/problems/uri-too-long',
      /more than the limit of 2048/,
    ],
    [
      'a path segment over 200 characters',
      `/pourpoints/${'A'.repeat(300)}`,
      414,
      '/problems/uri-too-long',
      /longer than 200/,
    ],
    [
      'bad percent-encoding in the path',
      '/datasets/%ZZ',
      400,
      '/problems/malformed-query-parameter',
      /percent-encoding/,
    ],
    [
      'an infinite offset',
      '/pourpoints?offset=1e400',
      400,
      '/problems/malformed-query-parameter',
      /offset must be a finite/,
    ],
    [
      'an infinite melt-out threshold',
      `${STATS}/water-years?melt_out_below=1e999`,
      400,
      '/problems/malformed-query-parameter',
      /melt_out_below must be a finite/,
    ],
    [
      'dates × cells × columns over the budget',
      `${STATS}/date-range?datetime=2004-01-01/2023-12-31&zone=terrain.elevation`,
      422,
      '/problems/query-too-large',
      /more than the limit of 100,000/,
    ],
    [
      'every basin at once over 32 dates (the cap is 31)',
      '/datasets/hist/stats?date=2020-01-01/2020-02-01',
      422,
      '/problems/invalid-query-parameter',
      /the dates select 32 dates; every basin at once takes at most 31/,
    ],
    ['an unknown route', '/nowhere', 404, '/problems/resource-not-found', /no resource at GET \/nowhere/],
  ];
  for (const [what, url, status, type, detail] of cases) {
    it(`${what}: ${status} problem+json`, async () => {
      const r = await get(url);
      assert.equal(r.statusCode, status, r.body);
      assert.match(String(r.headers['content-type']), /^application\/problem\+json/);
      const p = r.json() as { type: string; status: number; detail: string };
      assert.equal(p.type, type);
      assert.equal(p.status, status);
      assert.match(p.detail, detail);
    });
  }

  it('every basin at once takes 31 dates, one per basin and date', async () => {
    const r = await get('/datasets/hist/stats?date=2020-01-01/2020-01-31');
    assert.equal(r.statusCode, 200, r.body);
    const body = r.json() as { basins: { pourpoint: string; results: Record<string, unknown> }[] };
    assert.deepEqual(
      body.basins.map((b) => Object.keys(b.results).length),
      [31, 31],
    );
  });

  it('If-None-Match is weighed only after the query is valid', async () => {
    const bad = await get(`${STATS}/date-range?datetime=2020-02-30`, { 'if-none-match': '*' });
    assert.equal(bad.statusCode, 400);
    const url = `${STATS}/date-range?datetime=2020-01-01`;
    const ok = await get(url);
    assert.equal(ok.statusCode, 200);
    assert.equal((await get(url, { 'if-none-match': String(ok.headers.etag) })).statusCode, 304);
    assert.equal((await get(url, { 'if-none-match': '*' })).statusCode, 304);
  });

  it('links name the configured public URL, whatever the Host header says', async () => {
    const r = await get('/datasets', { host: 'evil.example' });
    const body = r.json() as { links: { href: string }[] };
    assert.ok(body.links.length > 0);
    for (const l of body.links) assert.ok(l.href.startsWith(`${PUBLIC}/`), l.href);
    assert.ok(!r.body.includes('evil.example'));
  });

  it('logs one line per request with its status and time', async () => {
    lines.length = 0;
    await get('/datasets');
    await get('/nowhere');
    const requests = lines.filter((l) => l.msg === 'request');
    assert.deepEqual(
      requests.map((l) => [l.method, l.url, l.status]),
      [
        ['GET', '/datasets', 200],
        ['GET', '/nowhere', 404],
      ],
    );
    assert.ok(requests.every((l) => typeof l.ms === 'number'));
  });

  it('a query over the time limit is abandoned with 503 query-timeout', async () => {
    const strict = await buildApp(await Database.open(root), { limits: { timeoutMs: 1 } });
    try {
      const r = await strict.inject(`${STATS}/normals?zone=terrain.elevation:band_step_ft=500`);
      assert.equal(r.statusCode, 503, r.body);
      assert.equal((r.json() as { type: string }).type, '/problems/query-timeout');
    } finally {
      await strict.close();
    }
  });

  it('a client that leaves mid-normals frees its slot; the log says 499 client-closed', async () => {
    const logged: Record<string, unknown>[] = [];
    const stream = new Writable({
      write(chunk: Buffer, _enc, done) {
        for (const l of chunk.toString().split('\n'))
          if (l) logged.push(JSON.parse(l) as Record<string, unknown>);
        done();
      },
    });
    const live = await buildApp(await Database.open(root), { logger: { level: 'info', stream } });
    const until = async (what: string, ok: () => boolean) => {
      for (let i = 0; i < 500 && !ok(); i++) await new Promise((res) => setTimeout(res, 20));
      assert.ok(ok(), what);
    };
    try {
      const url = `${await live.listen({ host: '127.0.0.1', port: 0 })}${STATS}/normals?zone=terrain.elevation:band_step_ft=900`;
      const gate = live.snowdb.admission;
      const req = request(url);
      req.on('error', () => {}); // the reset we cause
      req.end();
      await until('the query runs', () => gate.load.running === 1);
      req.destroy();
      await until('its slot frees', () => gate.load.running === 0);
      const requests = () => logged.filter((l) => l.msg === 'request');
      await until('the request is logged', () => requests().length > 0);
      await until('the reason is logged', () => logged.some((l) => l.problem === '/problems/client-closed'));
      assert.deepEqual(
        requests().map((l) => [l.url, l.status, typeof l.ms]),
        [[url.slice(url.indexOf('/datasets')), 499, 'number']],
      );
      assert.ok(!logged.some((l) => l.problem === '/problems/query-timeout'));
    } finally {
      await live.close();
    }
  });

  it('a full queue answers 503 service-busy with Retry-After', async () => {
    const busy = await buildApp(await Database.open(root), { limits: { concurrency: 1, queue: 0 } });
    try {
      const rs = await Promise.all(
        [2005, 2006, 2007, 2008].map((y) =>
          busy.inject(
            `${STATS}/date-range?datetime=${y}-01-01/${y + 1}-12-31&zone=terrain.elevation&zone=terrain.elevation:band_step_ft=2000`,
          ),
        ),
      );
      const refused = rs.filter((r) => r.statusCode === 503);
      assert.ok(
        rs.some((r) => r.statusCode === 200),
        'one ran',
      );
      assert.ok(refused.length > 0, rs.map((r) => r.statusCode).join(' '));
      for (const r of refused) {
        assert.equal((r.json() as { type: string }).type, '/problems/service-busy');
        assert.ok(Number(r.headers['retry-after']) >= 1);
      }
    } finally {
      await busy.close();
    }
  });

  it('with every scan slot taken and no queue: /point answers (its own lane); a drawn polygon is refused before its geometry is prepared', async () => {
    const full = await buildApp(await Database.open(root), { limits: { concurrency: 1, queue: 0 } });
    const held = deferred();
    // The one scan slot, held as a long query holds it.
    const scan = full.snowdb.admission.run(() => held.promise);
    try {
      const basin = (await full.inject(`/pourpoints/${FULL}`)).json() as {
        geometry: unknown;
        properties: { point?: number[] };
      };
      const [lon, lat] = (basin.properties.point ??
        (await full.inject('/pourpoints')).json().features[0].geometry.coordinates) as number[];
      const point = await full.inject(
        `/datasets/hist/point?lon=${lon}&lat=${lat}&datetime=2010-01-01/2010-01-31`,
      );
      assert.equal(point.statusCode, 200, point.body);
      // Off the grid: planned first it would be a 409; through the gate first, it is refused busy.
      const drawn = await full.inject({
        method: 'POST',
        url: '/datasets/hist/stats/area?datetime=2010-01-01',
        payload: JSON.stringify({
          type: 'Polygon',
          coordinates: [
            [
              [-100, 40],
              [-99.9, 40],
              [-99.9, 40.1],
              [-100, 40],
            ],
          ],
        }),
        headers: { 'content-type': 'application/json' },
      });
      assert.equal(drawn.statusCode, 503, drawn.body);
      assert.equal((drawn.json() as { type: string }).type, '/problems/service-busy');
    } finally {
      held.resolve('done');
      await scan;
      await full.close();
    }
  });

  it('a broken root config is a 500 naming the file inside the database, never its absolute path', async () => {
    const { dir, cleanup } = await tempDir();
    try {
      const db = `${dir}/db`;
      assert.equal((await snowdb(['init', db])).code, 0);
      const broken = await buildApp(await Database.open(db));
      await writeFile(`${db}/snowdb.json`, '{"resource": ');
      const r = await broken.inject('/datasets');
      await broken.close();
      assert.equal(r.statusCode, 500);
      assert.match((r.json() as { detail: string }).detail, /<database>\/snowdb\.json is not valid JSON/);
      assert.ok(!r.body.includes(dir), r.body);
    } finally {
      await cleanup();
    }
  });
});

describe('the HTTP parser errors of a real server are problem+json too', () => {
  let base: string;
  let stop: () => Promise<void>;
  let log: () => string;
  before(async () => {
    ({ base, stop, log } = await serveApi(await historyDb(), ['--public-url', 'https://snow.example.org']));
  });
  after(() => stop());

  /** Send raw bytes, return the raw response. */
  const raw = (bytes: string) =>
    new Promise<string>((resolve, reject) => {
      const u = new URL(base);
      const s = connect(Number(u.port), u.hostname, () => s.end(bytes));
      let out = '';
      s.on('data', (d) => {
        out += d.toString();
      });
      s.on('end', () => resolve(out));
      s.on('error', reject);
    });

  it('headers over 16 KiB: 431; a malformed request line: 400; both problem+json', async () => {
    const big = await raw(`GET /datasets HTTP/1.1\r\nHost: x\r\nX-A: ${'a'.repeat(20_000)}\r\n\r\n`);
    assert.match(big, /^HTTP\/1\.1 431 /);
    assert.match(big, /Content-Type: application\/problem\+json/);
    assert.match(big, /"status":431/);
    const junk = await raw('NOT HTTP AT ALL\r\n\r\n');
    assert.match(junk, /^HTTP\/1\.1 400 /);
    assert.match(junk, /"status":400/);
  });

  it('--public-url names the links; the log has one JSON line per request', async () => {
    const r = await fetch(`${base}/datasets`);
    const body = (await r.json()) as { links: { href: string }[] };
    assert.equal(body.links[0]!.href, 'https://snow.example.org/datasets');
    const logged = () =>
      log()
        .split('\n')
        .filter((l) => l.includes('"msg":"request"'))
        .map((l) => JSON.parse(l) as { url: string; status: number })
        .some((l) => l.url === '/datasets' && l.status === 200);
    // The line is written after the response: wait for it (up to 5 s).
    for (let i = 0; i < 250 && !logged(); i++) await new Promise((res) => setTimeout(res, 20));
    assert.ok(logged(), log());
  });

  it('a bad limit flag is a usage error naming the flag', async () => {
    const r = await snowdb(['api', 'serve', '--check', '--concurrency', '0'], { env: await historyDb() });
    assert.equal(r.code, 2, r.stderr);
    assert.match(r.stderr, /--concurrency: /);
  });
});
