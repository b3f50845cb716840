/**
 * Fuzzing a real server: requests generated from its own OpenAPI document (every operation, each
 * parameter valid, at and past its bounds, or hostile) plus raw hostile request lines. Every
 * answer must be a success or a problem+json (never a 5xx other than the admission's 503), no
 * body may hold a file path or a stack, and the server must stay alive with bounded memory.
 * `npm test` sends SNOWDB_FUZZ_N requests (default 1,500); `npm run test:fuzz` sends 12,000.
 * Bodies too: drawn polygons posted valid, mutated and hostile (positions out of shape, rings
 * unclosed or crossing, too many vertices, too large, not JSON, `__proto__` keys, deep nesting,
 * other content types), each answered by a catalog problem type (never `about:blank`).
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { Agent, request } from 'node:http';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { after, before, describe, it } from 'node:test';
import { mapPool } from '../../src/util/pool.js';
import { serveApi } from '../helpers/cli.js';
import { FULL, HALF, historyDb } from '../helpers/history-db.js';
import { seeded } from '../helpers/raster.js';

const N = Number(process.env.SNOWDB_FUZZ_N ?? 1500);
const SEED = Number(process.env.SNOWDB_FUZZ_SEED ?? 1);
/** Resident memory the server may reach under fuzzing, MB (it idles near 150 MB). */
const RSS_BOUND_MB = 1024;

interface Param {
  name: string;
  in: 'path' | 'query';
  required?: boolean;
  schema: {
    type?: string;
    enum?: unknown[];
    minimum?: number;
    maximum?: number;
    examples?: string[];
    pattern?: string;
    items?: unknown;
  };
}

const HOSTILE = [
  '',
  ' ',
  '..',
  '../../etc/passwd',
  '%2e%2e%2f%2e%2e%2fetc%2fpasswd',
  '%00',
  '%ZZ',
  '%',
  '%C0%AE',
  '%0d%0aSet-Cookie:%20x=y',
  'ñ',
  '%F0%9F%92%A5',
  '%EF%BF%BF',
  "'%3B DROP TABLE x",
  '<script>',
  'A'.repeat(3000),
  '-1',
  '0',
  '-0',
  '1e400',
  '-1e400',
  'NaN',
  'Infinity',
  '0x10',
  '1.5',
  '9'.repeat(400),
  '[]',
  '{}',
  'null',
  'true',
  'a,b,c',
  '2024-02-30',
  '0000-01-01/9999-12-31',
  '..%2F..',
];

/** Values for one parameter: mostly plausible, sometimes out of bounds, sometimes hostile. */
function valueFor(p: Param, rnd: () => number): string[] {
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rnd() * xs.length)]!;
  const enc = (s: string) => (s.includes('%') ? s : encodeURIComponent(s));
  if (rnd() < 0.15) return [pick(HOSTILE)];
  const s = p.schema;
  if (p.name === 'dataset') return [enc(pick(['hist', 'hist', 'snodas', 'HIST', 'h-i-s-t']))];
  if (p.name === 'pourpoint')
    return [pick([FULL, HALF, FULL, 'NOPE:UT:TEST', 'a:b', encodeURIComponent(FULL)])];
  if (p.name === 'key') return [pick(['service-busy', 'query-too-large', 'nope'])];
  if (s.enum) return [String(pick(s.enum))];
  const year = () => 2000 + Math.floor(rnd() * 28);
  const day = () =>
    `${year()}-${String(1 + Math.floor(rnd() * 12)).padStart(2, '0')}-${String(1 + Math.floor(rnd() * 31)).padStart(2, '0')}`;
  switch (s.type) {
    case 'integer':
    case 'number': {
      const lo = s.minimum ?? -1e6;
      const hi = s.maximum ?? 1e6;
      return [String(pick([lo, hi, lo - 1, hi + 1, lo + Math.floor(rnd() * (hi - lo + 1)), 1e21, -5, 2.5]))];
    }
    case 'boolean':
      return [pick(['true', 'false', 'yes', '1'])];
    case 'array': {
      const n = Math.floor(rnd() * (rnd() < 0.1 ? 12 : 3));
      const token = () =>
        p.name === 'zone'
          ? pick([
              'terrain.elevation',
              `terrain.elevation:band_step_ft=${pick([1, 10, 100, 500, 1000, 2000, 0, -5, 1e9, 99999])}`,
              'terrain.aspect',
              'terrain.northness:buckets=100000000',
              'terrain.elevation:buckets=3',
              'terrain.elevation:band_step_ft',
            ])
          : pick(['swe', 'depth', 'nope', 'swe', '']);
      return Array.from({ length: n }, () => encodeURIComponent(token()));
    }
    default:
      if (p.name === 'bbox')
        return [pick(['-114,37,-112,38', '-180,-90,180,90', '1,2,3', 'a,b,c,d', '10,10,0,0'])];
      if (/year/.test(p.name)) return [pick([`${year()}..${year()}`, `${year()}`, '2010..2005', '1..99999'])];
      return [encodeURIComponent(pick([day(), `${day()}/${day()}`, `../${day()}`, `${day()}/..`, '../..']))];
  }
}

/** Every GET operation of the document, as a URL template and its parameters. */
function operations(doc: {
  paths: Record<string, Record<string, { parameters?: Param[]; responses?: object }>>;
}) {
  return Object.entries(doc.paths).flatMap(([path, ops]) =>
    ops.get
      ? [{ path, params: ops.get.parameters ?? [], documented: Object.keys(ops.get.responses ?? {}) }]
      : [],
  );
}

/** Raw request lines no client library would send. */
const RAW = [
  'GET /datasets/%ZZ HTTP/1.1',
  'GET /%00 HTTP/1.1',
  'GET /app/../../package.json HTTP/1.1',
  'GET /app/%2e%2e/%2e%2e/package.json HTTP/1.1',
  'GET //etc/passwd HTTP/1.1',
  'GET http://evil.example/datasets HTTP/1.1',
  'GET * HTTP/1.1',
  'BREW /coffee HTTP/1.1',
  'GET /datasets HTTP/9.9',
  `GET /${'x'.repeat(20_000)} HTTP/1.1`,
  'GET /datasets\u0000 HTTP/1.1',
  'GET /datasets HTTP/1.1\r\nContent-Length: -1',
  'GET /datasets HTTP/1.1\r\nTransfer-Encoding: chunked\r\nContent-Length: 5',
  'GET /datasets HTTP/1.1\r\nHost: a\r\nHost: b',
];

describe(`fuzz: ${N} generated requests (seed ${SEED}) against a real server`, () => {
  let base: string;
  let stop: () => Promise<void>;
  let pid: number;
  let root: string;
  before(async () => {
    const env = await historyDb();
    root = env.SNOWDB_CONFIG!;
    ({ base, stop, pid } = await serveApi(env, ['--log-level', 'error', '--timeout', '20']));
  });
  after(() => stop());

  /** The server's resident memory, MB (Linux). */
  const rssMb = () => Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))![1]) / 1024;

  it('answers every request with a success or a problem+json, without paths or stacks; stays alive and bounded', async () => {
    const doc = (await (await fetch(`${base}/openapi.json`)).json()) as Parameters<typeof operations>[0];
    const ops = operations(doc);
    assert.ok(ops.length >= 10, 'the document lists the operations');
    const rnd = seeded(SEED);
    const agent = new Agent({ keepAlive: true, maxSockets: 16 });
    const u = new URL(base);
    let peak = rssMb();
    const statuses = new Map<number, number>();
    const bad: string[] = [];
    const targets = Array.from({ length: N }, () => {
      const op = ops[Math.floor(rnd() * ops.length)]!;
      let path = op.path;
      const query: string[] = [];
      for (const p of op.params) {
        if (p.in === 'path') path = path.replace(`{${p.name}}`, valueFor(p, rnd)[0]!);
        else if (p.required || rnd() < 0.5) for (const v of valueFor(p, rnd)) query.push(`${p.name}=${v}`);
      }
      if (rnd() < 0.05) query.push(`unknown_${Math.floor(rnd() * 9)}=1`);
      const accept = ['application/json', 'text/csv', 'application/xml', '*/*', '', 'garbage/;;'][
        Math.floor(rnd() * 6)
      ]!;
      const inm = rnd() < 0.1 ? ['*', '"x"', 'W/"y"', '""'][Math.floor(rnd() * 4)]! : '';
      // Bytes outside what an HTTP client may send raw are percent-encoded; the rest go as they are.
      const target = `${path}${query.length ? `?${query.join('&')}` : ''}`.replace(/[^\u0021-\u00ff]/g, (c) =>
        encodeURIComponent(c),
      );
      return { target, accept, inm, documented: op.documented };
    });
    const t0 = Date.now();
    await mapPool(targets, 16, async ({ target, accept, inm, documented }, i) => {
      const r = await new Promise<{ status: number; type: string; body: string; retry?: string }>(
        (resolve, reject) => {
          const headers: Record<string, string> = { 'accept-encoding': 'identity' };
          if (accept) headers.accept = accept;
          if (inm) headers['if-none-match'] = inm;
          const req = request({ host: u.hostname, port: u.port, path: target, agent, headers }, (res) => {
            let body = '';
            res.setEncoding('latin1');
            res.on('data', (d: string) => {
              body += d;
            });
            res.on('end', () =>
              resolve({
                status: res.statusCode!,
                type: String(res.headers['content-type'] ?? ''),
                body,
                retry: res.headers['retry-after'],
              }),
            );
          });
          req.on('error', reject);
          req.end();
        },
      );
      statuses.set(r.status, (statuses.get(r.status) ?? 0) + 1);
      if (i % 100 === 0) peak = Math.max(peak, rssMb());
      const fail = (why: string) =>
        bad.length < 20 && bad.push(`${r.status} ${target.slice(0, 200)}: ${why}`);
      if (r.status >= 500 && r.status !== 503) fail(`a ${r.status}: ${r.body.slice(0, 300)}`);
      if (r.status >= 400) {
        if (!r.type.startsWith('application/problem+json')) return fail(`not problem+json: ${r.type}`);
        const p = JSON.parse(r.body) as { type?: string; title?: string; status?: number };
        if (p.status !== r.status || !p.type || !p.title) fail(`incomplete problem ${r.body.slice(0, 200)}`);
        if (!String(p.type).startsWith('/problems/')) fail(`a type outside the catalog: ${p.type}`);
        if (r.status === 503 && !/service-busy|query-timeout/.test(String(p.type))) fail(`503 ${p.type}`);
        if (r.status === 503 && p.type === '/problems/service-busy' && !r.retry)
          fail('503 without Retry-After');
        if (![...documented, '400', '404', '406', '414', '503'].includes(String(r.status)))
          fail(`status not in the operation's documented responses (${documented.join(', ')})`);
      }
      if (r.body.includes(root) || r.body.includes(tmpdir()) || /\n\s+at \S+ \(/.test(r.body))
        fail('a path or stack in the body');
    });
    agent.destroy();
    const seconds = (Date.now() - t0) / 1000;
    peak = Math.max(peak, rssMb());
    const summary = [...statuses].sort((a, b) => a[0] - b[0]).map(([s, n]) => `${s}×${n}`);
    console.log(
      `fuzz: ${N} requests in ${seconds.toFixed(1)} s; ${summary.join(' ')}; peak RSS ${peak.toFixed(0)} MB`,
    );
    assert.deepEqual(bad, []);
    assert.ok((statuses.get(200) ?? 0) > N / 20, `some requests succeed: ${summary.join(' ')}`);
    assert.ok(peak < RSS_BOUND_MB, `peak RSS ${peak.toFixed(0)} MB`);
    assert.equal((await fetch(`${base}/version`)).status, 200, 'the server is alive');
  });

  it('drawn polygons posted valid, mutated and hostile get a success or a catalog problem, and the server lives on', async () => {
    const rnd = seeded(SEED + 1);
    const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rnd() * xs.length)]!;
    // A square inside FULL's bounds, with n vertices a side (a valid ring of 4n + 1 positions).
    const square = (x0: number, y0: number, d: number, n = 1): number[][] => {
      const r: number[][] = [];
      for (let i = 0; i < n; i++) r.push([x0 + (d * i) / n, y0]);
      for (let i = 0; i < n; i++) r.push([x0 + d, y0 + (d * i) / n]);
      for (let i = 0; i < n; i++) r.push([x0 + d - (d * i) / n, y0 + d]);
      for (let i = 0; i < n; i++) r.push([x0, y0 + d - (d * i) / n]);
      r.push([x0, y0]);
      return r;
    };
    const valid = () => {
      const d = 0.005 + rnd() * 0.05;
      return {
        type: 'Polygon',
        coordinates: [square(-113.14 + rnd() * 0.08, 37.26 + rnd() * 0.08, d, 1 + Math.floor(rnd() * 20))],
      };
    };
    const HOSTILE_POSITIONS: unknown[] = [
      null,
      'x',
      [],
      [1],
      [1, 'a'],
      [1e308, 1e308],
      [-200, 95],
      {},
      [[1, 2]],
      true,
    ];
    /** A body: [content type, text]. Mostly JSON a drawn area could be, some far from it. */
    const body = (): [string, string] => {
      const json = 'application/json';
      const k = rnd();
      if (k < 0.25) {
        const g = valid();
        const wrap = pick(['bare', 'feature', 'collection']);
        const doc =
          wrap === 'bare'
            ? g
            : wrap === 'feature'
              ? { type: 'Feature', properties: {}, geometry: g }
              : { type: 'FeatureCollection', features: [{ type: 'Feature', properties: null, geometry: g }] };
        return [pick([json, 'application/geo+json', 'application/json; charset=utf-8']), JSON.stringify(doc)];
      }
      if (k < 0.55) {
        // One position, ring or member out of shape.
        const g = valid();
        const ring = g.coordinates[0]! as unknown[];
        const m = pick(['position', 'unclosed', 'cross', 'type', 'coordinates', 'multi', 'hole']);
        if (m === 'position') ring[Math.floor(rnd() * ring.length)] = pick(HOSTILE_POSITIONS);
        if (m === 'unclosed') ring.pop();
        if (m === 'cross') [ring[1], ring[2]] = [ring[2], ring[1]];
        if (m === 'type')
          (g as { type: unknown }).type = pick(['Point', 'polygon', null, 7, 'GeometryCollection']);
        if (m === 'coordinates')
          (g as { coordinates: unknown }).coordinates = pick([null, [], 'x', [[]], [[[]]], {}]);
        if (m === 'multi')
          return [
            json,
            JSON.stringify({
              type: 'MultiPolygon',
              coordinates: [g.coordinates, pick([[], null, g.coordinates])],
            }),
          ];
        if (m === 'hole') g.coordinates.push(square(-112.5, 36.0, 0.01));
        return [json, JSON.stringify(g)];
      }
      if (k < 0.6)
        return [
          json,
          JSON.stringify({ type: 'Polygon', coordinates: [square(-113.14, 37.26, 0.05, 13_000)] }),
        ]; // 52,001 vertices
      if (k < 0.63)
        return [
          json,
          `{"type":"Polygon","coordinates":[[${'[-113.1,37.3],'.repeat(700_000)}[-113.1,37.3]]]}`,
        ]; // 9.8 MB
      if (k < 0.66) return [json, JSON.stringify({ type: 'Polygon', coordinates: [square(10, 10, 0.5)] })]; // off the grid
      if (k < 0.69)
        return [json, JSON.stringify({ type: 'Polygon', coordinates: [square(-125, 25, 20, 4)] })]; // too large an area
      return pick<[string, string]>([
        [json, ''],
        [json, 'null'],
        [json, '[]'],
        [json, '"Polygon"'],
        [json, '{"type":'],
        [json, 'garbage'],
        [json, '{"__proto__":{"type":"Polygon"},"type":"Polygon","coordinates":[]}'],
        [json, '{"type":"Polygon","constructor":{"prototype":{"x":1}},"coordinates":[]}'],
        [json, `${'['.repeat(50_000)}${']'.repeat(50_000)}`],
        [json, `{"type":"Polygon","coordinates":${'['.repeat(5000)}1${']'.repeat(5000)}}`],
        [json, '{"type":"Polygon","type":"Point","coordinates":[]}'],
        [json, JSON.stringify({ type: 'FeatureCollection', features: [{}, {}] })],
        ['text/plain', JSON.stringify(valid())],
        ['application/x-www-form-urlencoded', 'type=Polygon'],
        ['', JSON.stringify(valid())],
        ['multipart/form-data; boundary=x', '--x\r\n\r\n--x--'],
      ]);
    };
    const u = new URL(base);
    const agent = new Agent({ keepAlive: true, maxSockets: 8 });
    const bad: string[] = [];
    const statuses = new Map<number, number>();
    let peak = rssMb();
    const n = Math.max(60, Math.round(N / 8));
    const jobs = Array.from({ length: n }, () => {
      const query = pick([
        'datetime=../..',
        'datetime=2011-03-01/2011-04-30',
        'datetime=nope',
        'datetime=../..&zone=terrain.elevation',
        '',
      ]);
      return { path: `/datasets/${pick(['hist', 'hist', 'nope'])}/stats/area?${query}`, body: body() };
    });
    await mapPool(jobs, 8, async ({ path, body: [type, text] }, i) => {
      const r = await new Promise<{ status: number; type: string; body: string }>((resolve) => {
        const headers: Record<string, string> = { 'accept-encoding': 'identity' };
        if (type) headers['content-type'] = type;
        const req = request(
          { host: u.hostname, port: u.port, path, method: 'POST', agent, headers },
          (res) => {
            let b = '';
            res.setEncoding('latin1');
            res.on('data', (d: string) => {
              b += d;
            });
            res.on('end', () =>
              resolve({ status: res.statusCode!, type: String(res.headers['content-type'] ?? ''), body: b }),
            );
          },
        );
        // A server that refuses a large body early may close before it is all sent.
        req.on('error', (e) => resolve({ status: 0, type: '', body: String(e) }));
        req.end(text);
      });
      statuses.set(r.status, (statuses.get(r.status) ?? 0) + 1);
      if (i % 20 === 0) peak = Math.max(peak, rssMb());
      const fail = (why: string) =>
        bad.length < 20 && bad.push(`${r.status} ${path} ${type} ${text.slice(0, 120)}: ${why}`);
      if (r.status === 0) return text.length > 8 * 2 ** 20 ? undefined : fail(r.body);
      if (r.status >= 500 && r.status !== 503) fail(`a ${r.status}: ${r.body.slice(0, 300)}`);
      if (r.status >= 400) {
        if (!r.type.startsWith('application/problem+json')) return fail(`not problem+json: ${r.type}`);
        const p = JSON.parse(r.body) as { type?: string; status?: number; title?: string };
        if (p.status !== r.status || !p.title) fail(`incomplete problem ${r.body.slice(0, 200)}`);
        if (!String(p.type).startsWith('/problems/')) fail(`a type outside the catalog: ${p.type}`);
      }
      if (r.body.includes(root) || r.body.includes(tmpdir()) || /\n\s+at \S+ \(/.test(r.body))
        fail('a path or stack in the body');
    });
    agent.destroy();
    peak = Math.max(peak, rssMb());
    const summary = [...statuses].sort((a, b) => a[0] - b[0]).map(([s, c]) => `${s}×${c}`);
    console.log(
      `fuzz bodies: ${n} drawn-polygon POSTs; ${summary.join(' ')}; peak RSS ${peak.toFixed(0)} MB`,
    );
    assert.deepEqual(bad, []);
    // Each kind of answer came up: answers, refusals of the body's shape and of its size.
    for (const s of [200, 400, 422]) assert.ok((statuses.get(s) ?? 0) > 0, `some ${s}: ${summary.join(' ')}`);
    assert.ok(peak < RSS_BOUND_MB, `peak RSS ${peak.toFixed(0)} MB`);
    assert.equal((await fetch(`${base}/version`)).status, 200, 'the server is alive');
  });

  it('raw hostile request lines get problem+json (or a closed connection), and the server lives on', async () => {
    const u = new URL(base);
    for (const line of RAW) {
      const out = await new Promise<string>((resolve) => {
        const s = connect(Number(u.port), u.hostname, () => s.end(`${line}\r\nHost: x\r\n\r\n`));
        let got = '';
        s.on('data', (d) => {
          got += d.toString('latin1');
        });
        s.on('close', () => resolve(got));
        s.on('error', () => resolve(got));
      });
      if (out === '') continue; // the parser closed the connection: nothing served
      const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(out)?.[1]);
      assert.ok(status > 0, `${line.slice(0, 60)}: ${out.slice(0, 200)}`);
      assert.ok(status < 500, `${line.slice(0, 60)}: ${out.slice(0, 300)}`);
      if (status >= 400) assert.match(out, /Content-Type: application\/problem\+json/i, line.slice(0, 60));
      assert.ok(!out.includes('"name": "snowdb"') && !out.includes('root:'), `${line}: a file leaked`);
    }
    assert.equal((await fetch(`${base}/version`)).status, 200, 'the server is alive');
  });
});
