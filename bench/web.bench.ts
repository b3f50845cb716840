/**
 * The web page with a national set of basins: 600 basins (the 10 bundled BAGIS shapes, each
 * copied to 60 places across the West), served by `snowdb api serve`. Times and sizes:
 *   - the basins' map payload: `/pourpoints?geometry=basin` simplified (what the page asks for)
 *     against the full outlines (the rival: what a page without simplification must load),
 *     fetched gzip-encoded and parsed, interleaved;
 *   - the page in headless Chromium, fresh context each time: navigation to ready (map, basemap,
 *     list drawn), and the bytes it transferred.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { get, type IncomingMessage } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { basinCopies } from '../test/helpers/basin-copies.js';
import { launchChromium } from '../test/helpers/browser.js';
import { REPO, snowdb } from './cli.js';
import { interleave, median, spread } from './stats.js';

const COPIES = 60;
const SIMPLIFY = '0.01'; // as the page first asks (COARSE_DEG in src/web/static/map.js)
const STATES = ['WA', 'OR', 'ID', 'MT', 'WY', 'NV', 'UT', 'CO', 'AZ', 'NM', 'CA'];

/** A database of 600 basins: each bundled shape shifted to 60 spots on a 2° lattice. */
async function nationalDb(dir: string): Promise<string> {
  const root = join(dir, 'db');
  const records = join(dir, 'records');
  await mkdir(records);
  await basinCopies(
    records,
    COPIES,
    (n, k) => [-122 + 2 * (k % 12), 33 + 2 * Math.floor(k / 12) + (n % 10) * 0.15],
    (n, k) => `B${String(n * COPIES + k).padStart(5, '0')}:${STATES[(n + k) % STATES.length]!}:BENCH`,
  );
  snowdb(root, ['init', root]);
  snowdb(root, ['pourpoint', 'sync', records]);
  return root;
}

async function serve(root: string): Promise<{ base: string; server: ChildProcess }> {
  const cli = join(REPO, 'dist/src/cli/main.js');
  const server = spawn(process.execPath, [cli, 'api', 'serve', '--port', '0', '--log-level', 'warn'], {
    env: { ...process.env, SNOWDB_CONFIG: root },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let text = '';
  for await (const chunk of server.stderr!) {
    text += chunk;
    const m = /snowdb API on (http:\/\/\S+?)\/?\s/.exec(text);
    if (m) return { base: m[1]!, server };
  }
  throw new Error(`api serve: ${text}`);
}

/** GET gzip-encoded (node:http: the bytes as sent), decode and parse: ms, wire and JSON bytes. */
async function load(url: string): Promise<{ ms: number; wire: number; raw: number; features: number }> {
  const t = performance.now();
  const res = await new Promise<IncomingMessage>((ok, fail) =>
    get(url, { headers: { 'Accept-Encoding': 'gzip' } }, ok).on('error', fail),
  );
  const chunks: Buffer[] = [];
  for await (const c of res) chunks.push(c as Buffer);
  const body = Buffer.concat(chunks);
  const raw = res.headers['content-encoding'] === 'gzip' ? gunzipSync(body) : body;
  const fc = JSON.parse(raw.toString('utf8')) as { features: unknown[] };
  return { ms: performance.now() - t, wire: body.length, raw: raw.length, features: fc.features.length };
}

export async function webBench(reps = 7): Promise<Record<string, string>[]> {
  const dir = await mkdtemp(join(tmpdir(), 'snowdb-web-bench-'));
  const { base, server } = await serve(await nationalDb(dir));
  try {
    const simple = `${base}/pourpoints?geometry=basin&simplify=${SIMPLIFY}&limit=1000`;
    const full = `${base}/pourpoints?geometry=basin&limit=1000`;
    const [a, b] = [await load(simple), await load(full)];
    if (a.features !== 600 || b.features !== 600) throw new Error(`features ${a.features}, ${b.features}`);
    const payload = await interleave(
      reps,
      async () => (await load(simple)).ms,
      async () => (await load(full)).ms,
    );
    const browser = await launchChromium();
    const ready: number[] = [];
    const loaded: number[] = []; // navigation start → basins, datasets and basemap fetched
    const drawn: number[] = []; // → map and list drawn
    // The bytes the page transfers, counted in a run of its own (the counting slows the page down).
    const bytes: number[] = [];
    for (const timed of [false, ...Array.from({ length: reps }, () => true)]) {
      const context = await browser.newContext({ viewport: { width: 1400, height: 900 } });
      const page = await context.newPage();
      const sizes: Promise<number>[] = [];
      if (!timed)
        page.on('requestfinished', (r) =>
          sizes.push(r.sizes().then((s) => s.responseBodySize + s.responseHeadersSize)),
        );
      const t = performance.now();
      await page.goto(`${base}/app/`);
      await page.waitForSelector('body[data-ready=true]', { state: 'attached' });
      const ms = performance.now() - t;
      const marks = (await page.evaluate(
        "['snowdb:loaded', 'snowdb:drawn'].map((m) => performance.getEntriesByName(m)[0]?.startTime ?? NaN)",
      )) as number[];
      if (timed) {
        ready.push(ms);
        loaded.push(marks[0]!);
        drawn.push(marks[1]! - marks[0]!);
      } else bytes.push((await Promise.all(sizes)).reduce((x, y) => x + y, 0));
      await context.close();
    }
    await browser.close();
    const kb = (x: number) => `${(x / 1024).toFixed(0)} kB`;
    return [
      {
        scenario: `600 basins' outlines for the map: simplified ${SIMPLIFY}° (${kb(a.wire)} gzip, ${kb(a.raw)} JSON) vs full (${kb(b.wire)} gzip, ${kb(b.raw)} JSON), fetch + parse`,
        ...payload,
        target: 'well under 1 s, a few hundred kB',
      },
      {
        scenario: `the page with 600 basins, fresh browser context: navigation to ready (map, basemap, list); ${kb(median(bytes))} transferred; of which fetching ${spread(loaded, 0)}, drawing ${spread(drawn, 0)}`,
        snowdb: spread(ready),
        baseline: '',
        ratio: '',
        target: '< 1 s',
      },
    ];
  } finally {
    server.kill('SIGINT');
    await once(server, 'close');
    await rm(dir, { recursive: true, force: true });
  }
}
