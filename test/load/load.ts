/**
 * `npm run test:load`: 64 connections for 60 s (SNOWDB_LOAD_SECONDS) against `snowdb api serve`
 * on the 20-year benchmark database (bench/fixture/database.ts, generated once and cached): 8
 * connections (SNOWDB_LOAD_CHEAP) ask cheap things in a tight loop (landing page, datasets,
 * pourpoint pages and basins), 2 ask `/point` (one cell over a month), the other 54 ask expensive
 * things: stats (a water year of one basin, two zone axes), drawn polygons (basins' outlines
 * posted as drawn areas) and HTTP exports. Passes when nothing fails (no
 * non-2xx answer, no socket error), the cheap requests' and the points' p99 stay under 100 ms while the expensive
 * ones queue behind the admission gate, and the server's memory stays under 1.5 GB. Prints the
 * figures BENCHMARKS.md records. Needs wrk (Debian package).
 *
 * `SNOWDB_LOAD_DAILY_YEARS=n` runs on the daily bench database of n water years instead
 * (bench/fixture/daily.ts). `SNOWDB_LOAD_LARGEST=1` makes the expensive connections ask the
 * largest legal answers (just under the 5,000,000-number cap: 1-ft-fine elevation bands × aspect
 * with empty zones over ~3 months, and every basin's bands for one date) with a 10 s time limit
 * (SNOWDB_LOAD_TIMEOUT_S): their 503 `query-timeout`/`service-busy` answers are expected, and
 * the check is then also that the limit fires on time: a probe asking the largest query over and
 * over beside the load gets its answer's status and headers within the limit + 1 s (wrk's times
 * also count reading tens of MB of body on the same two cores).
 *
 * `SNOWDB_LOAD_FLOOR=1` sends the cheap connections to a do-nothing Node server instead, beside
 * the same expensive load on snowdb: the p99 no server could beat on this machine.
 */
import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { dailyDatabase } from '../../bench/fixture/daily.js';
import { benchDatabase } from '../../bench/fixture/database.js';

const SECONDS = Number(process.env.SNOWDB_LOAD_SECONDS ?? 60);
const CHEAP_P99_MS = 100;
const CHEAP_CONNECTIONS = Number(process.env.SNOWDB_LOAD_CHEAP ?? 8);
/** Connections asking `/point` (one cell over a month) beside the cheap ones. */
const POINT_CONNECTIONS = 2;
const RSS_BOUND_MB = 1536;
const DAILY_YEARS = process.env.SNOWDB_LOAD_DAILY_YEARS;
const LARGEST = process.env.SNOWDB_LOAD_LARGEST === '1';
const TIMEOUT_S = Number(process.env.SNOWDB_LOAD_TIMEOUT_S ?? 10);
const REPO = new URL('../../../', import.meta.url).pathname;
const run = promisify(execFile);

interface WrkResult {
  requests: number;
  rps: number;
  p50: number;
  p99: number;
  /** The slowest request, ms. */
  max: number;
  /** Answers that were not 2xx (wrk counts them). */
  non2xx: number;
  errors: string[];
}

/** Milliseconds from wrk's `12.3ms` / `850us` / `1.2s`. */
const ms = (v: string, unit: string) => Number(v) * (unit === 'us' ? 0.001 : unit === 's' ? 1000 : 1);

/** A request of a wrk mix: a GET path, or a POST with a JSON body (a drawn polygon). */
type Req = string | { readonly path: string; readonly body: string };

async function wrk(
  origin: string,
  reqs: readonly Req[],
  connections: number,
  name: string,
): Promise<WrkResult> {
  const script = join(tmpdir(), `snowdb-load-${process.pid}-${name}.lua`);
  // Lua strings: the JSON escapes of ASCII text are Lua's too (no \u escapes: bodies are ASCII).
  // Each request made when it is sent (wrk.format then adds the Host header).
  const lua = (r: Req) =>
    typeof r === 'string'
      ? `{nil, ${JSON.stringify(r)}}`
      : `{"POST", ${JSON.stringify(r.path)}, ${JSON.stringify(r.body)}}`;
  writeFileSync(
    script,
    `local reqs = {${reqs.map((r) => lua(r)).join(',\n')}}\nlocal i = ${connections}\n` +
      'request = function()\n  i = i % #reqs + 1\n  local r = reqs[i]\n' +
      '  if r[1] == nil then return wrk.format(nil, r[2]) end\n' +
      '  return wrk.format(r[1], r[2], {["Content-Type"] = "application/json"}, r[3])\nend\n',
  );
  const { stdout } = await run(
    'wrk',
    ['-t2', `-c${connections}`, `-d${SECONDS}s`, '--timeout', '120s', '--latency', '-s', script, origin],
    { encoding: 'utf8' },
  );
  const p = (q: string) => {
    const m = new RegExp(`${q}%\\s+([\\d.]+)(us|ms|s)`).exec(stdout);
    return m ? ms(m[1]!, m[2]!) : Number.NaN;
  };
  const errors = [...(LARGEST ? [] : [/Non-2xx or 3xx responses: \d+/]), /Socket errors: [^\n]+/]
    .map((re) => re.exec(stdout)?.[0])
    .filter((x): x is string => x !== undefined);
  const max = /Latency\s+[\d.]+\w+\s+[\d.]+\w+\s+([\d.]+)(us|ms|s)/.exec(stdout);
  return {
    requests: Number(/(\d+) requests in/.exec(stdout)?.[1]),
    rps: Number(/Requests\/sec:\s+([\d.]+)/.exec(stdout)?.[1]),
    p50: p('50'),
    p99: p('99'),
    max: max ? ms(max[1]!, max[2]!) : Number.NaN,
    non2xx: Number(/Non-2xx or 3xx responses: (\d+)/.exec(stdout)?.[1] ?? 0),
    errors,
  };
}

async function listening(proc: ChildProcess): Promise<string> {
  let text = '';
  proc.stderr!.setEncoding('utf8');
  return new Promise((resolve, reject) => {
    proc.stderr!.on('data', (chunk: string) => {
      text += chunk;
      const m = /snowdb API on (http:\/\/[\d.:]+)/.exec(text);
      if (m) resolve(m[1]!);
    });
    proc.once('exit', (code) => reject(new Error(`server exited ${code}: ${text}`)));
  });
}

let trivial: ChildProcess | undefined;
/** A Node HTTP server that answers every request with a small JSON body; its origin. */
async function floorServer(): Promise<string> {
  const code =
    "require('node:http').createServer((q,r)=>{r.setHeader('content-type','application/json');r.end('{\"ok\":true}')})" +
    ".listen(0,'127.0.0.1',function(){console.error('snowdb API on http://127.0.0.1:'+this.address().port)})";
  trivial = spawn(process.execPath, ['-e', code], { stdio: ['ignore', 'ignore', 'pipe'] });
  return listening(trivial);
}

const b = DAILY_YEARS === undefined ? await benchDatabase() : await dailyDatabase(Number(DAILY_YEARS));
const server = spawn(
  process.execPath,
  [
    // Extra node flags for the server, e.g. `--cpu-prof --cpu-prof-dir=/tmp/p` to profile it under load.
    ...(process.env.SNOWDB_LOAD_SERVER_NODE_ARGS ?? '').split(' ').filter(Boolean),
    join(REPO, 'dist/src/cli/main.js'),
    'api',
    'serve',
    '--port',
    '0',
    '--log-level',
    'warn',
    ...(LARGEST ? ['--timeout', String(TIMEOUT_S)] : []),
  ],
  { env: { ...process.env, SNOWDB_CONFIG: b.root }, stdio: ['ignore', 'ignore', 'pipe'] },
);
let peak = 0;
try {
  const origin = await listening(server);
  const rss = () =>
    Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${server.pid}/status`, 'utf8'))?.[1]) / 1024;
  const index = (await (await fetch(`${origin}/pourpoints?limit=1000`)).json()) as {
    features: { id: string; geometry?: unknown }[];
  };
  const basins = index.features.map((f) => encodeURIComponent(f.id).replaceAll('%3A', ':'));
  const cheap = [
    '/',
    '/datasets',
    '/datasets/snodas',
    '/pourpoints?limit=50',
    ...basins.slice(0, 40).map((t) => `/pourpoints/${t}`),
  ];
  const years = [2006, 2011, 2015, 2019, 2023].filter((y) => b.dates.includes(`${y}-03-01`));
  const last = Number(b.dates.at(-1)!.slice(0, 4));
  const expensive = LARGEST
    ? [
        // ~2.7 M numbers: 9,440 cells (8-ft bands × aspect, empty zones included) × 3 columns × 96 dates.
        ...['06287000:MT:USGS', '09406000:UT:USGS'].map(
          (t) =>
            `/datasets/snodas/stats/${t}/date-range?datetime=${last}-01-01/${last}-04-05&variable=swe&variable=depth&zone=terrain.elevation:band_step_ft=8&zone=terrain.aspect&include_empty_zones=true`,
        ),
        // Every basin, 100-ft bands, one date.
        `/datasets/snodas/stats?date=${last}-03-01&variable=swe&zone=terrain.elevation:band_step_ft=100`,
      ]
    : basins.slice(0, 20).map((t, i) => {
        const y = years[i % years.length] ?? last;
        return `/datasets/snodas/stats/${t}/date-range?datetime=${y - 1}-10-01/${y}-09-30&variable=swe&zone=terrain.elevation&zone=terrain.aspect`;
      });
  // Drawn polygons (a basin's own outline, posted as a drawn area) and HTTP exports beside them.
  const outlines = await Promise.all(
    basins
      .slice(0, 4)
      .map(
        async (t) =>
          ((await (await fetch(`${origin}/pourpoints/${t}`)).json()) as { geometry: unknown }).geometry,
      ),
  );
  const polygonOf = (g: unknown): unknown => {
    const c = g as { type: string; geometries?: { type: string }[] };
    return c.type === 'GeometryCollection' ? c.geometries!.find((x) => /Polygon$/.test(x.type)) : c;
  };
  const drawn: Req[] = outlines.map((g, i) => ({
    path: `/datasets/snodas/stats/area?datetime=${years[i % years.length] ?? last}-03-01/${years[i % years.length] ?? last}-03-31&variable=swe&zone=terrain.elevation`,
    body: JSON.stringify(polygonOf(g)),
  }));
  const exports = basins
    .slice(0, 2)
    .map(
      (t) =>
        `/datasets/snodas/export?datetime=${last}-01-01/${last}-03-31&basin=${t}&format=csv&variable=swe`,
    );
  const heavy: Req[] = [...expensive, ...drawn, ...exports];
  // One cell over a month, at basins' points: the cheap lane.
  const points = index.features.slice(0, 20).flatMap((f) => {
    const g = (f as { geometry?: { type: string; coordinates: number[] } }).geometry;
    return g?.type === 'Point'
      ? [
          `/datasets/snodas/point?lon=${g.coordinates[0]}&lat=${g.coordinates[1]}&datetime=${last}-02-01/${last}-02-28&variable=swe`,
        ]
      : [];
  });
  if (points.length === 0) throw new Error('no basin point to ask /point at');
  for (const r of [
    ...cheap.slice(0, 5),
    ...(LARGEST ? expensive : [expensive[0]!]),
    ...drawn.slice(0, 1),
    ...exports.slice(0, 1),
    ...points.slice(0, 1),
  ]) {
    const p = typeof r === 'string' ? r : r.path;
    const res = await fetch(
      `${origin}${p}`,
      typeof r === 'string'
        ? {}
        : { method: 'POST', body: r.body, headers: { 'content-type': 'application/json' } },
    );
    if (res.status !== 200) throw new Error(`${p}: ${res.status} ${(await res.text()).slice(0, 300)}`);
    await res.arrayBuffer();
  }
  const sampler = setInterval(() => {
    peak = Math.max(peak, rss());
  }, 250);
  // SNOWDB_LOAD_FLOOR=1: the cheap connections go to a do-nothing Node server on the same machine
  // while snowdb carries the expensive load: the p99 no server could beat here.
  const floor = process.env.SNOWDB_LOAD_FLOOR === '1' ? await floorServer() : undefined;
  if (floor) console.log(`cheap connections go to a do-nothing server (${floor}), not snowdb`);
  console.log(
    `load: ${SECONDS} s, ${CHEAP_CONNECTIONS} connections cheap + ${POINT_CONNECTIONS} /point + ${64 - CHEAP_CONNECTIONS - POINT_CONNECTIONS} ${LARGEST ? `largest legal (time limit ${TIMEOUT_S} s)` : 'expensive'} with drawn polygons and exports, on ${b.root}`,
  );
  // The probe: time to status and headers of the largest query, one at a time, through the run.
  const probe: { ms: number; status: number }[] = [];
  let probing = LARGEST;
  const prober = (async () => {
    while (probing) {
      const t0 = performance.now();
      const r = await fetch(`${origin}${expensive[0]!}`);
      probe.push({ ms: performance.now() - t0, status: r.status });
      await r.body?.cancel();
    }
  })();
  const [c, e, pt] = await Promise.all([
    wrk(floor ?? origin, cheap, CHEAP_CONNECTIONS, 'cheap'),
    wrk(origin, heavy, 64 - CHEAP_CONNECTIONS - POINT_CONNECTIONS, 'heavy'),
    wrk(floor ?? origin, points, POINT_CONNECTIONS, 'point'),
  ]);
  probing = false;
  await prober;
  const late = Math.max(0, ...probe.map((p) => p.ms));
  clearInterval(sampler);
  const alive = (await fetch(`${origin}/version`)).status === 200;
  // What the server's caches hold after the run (MB), beside its peak RSS.
  const status = (await (await fetch(`${origin}/status`)).json()) as {
    caches?: { name: string; bytes: number }[];
  };
  const held = (status.caches ?? []).filter((x) => x.bytes > 0);
  console.log(`caches: ${held.map((x) => `${x.name} ${(x.bytes / 2 ** 20).toFixed(1)}`).join(', ')} MB`);
  const line = (name: string, r: WrkResult) =>
    `${name.padEnd(9)} ${String(r.requests).padStart(7)} requests  ${r.rps.toFixed(1).padStart(8)}/s  p50 ${r.p50.toFixed(1)} ms  p99 ${r.p99.toFixed(1)} ms  max ${r.max.toFixed(0)} ms  non-2xx ${r.non2xx}  ${r.errors.join('; ') || 'no errors'}`;
  console.log(line('cheap', c));
  console.log(line('expensive', e));
  console.log(line('point', pt));
  if (LARGEST)
    console.log(
      `probe     ${probe.length} largest queries: time to status and headers max ${late.toFixed(0)} ms (limit ${TIMEOUT_S} s); statuses ${[...new Set(probe.map((p) => p.status))].join(', ')}`,
    );
  console.log(
    `server peak RSS ${peak.toFixed(0)} MB; alive after: ${alive}; machine: ${cpus()[0]?.model} × ${cpus().length}, load ${loadavg()
      .map((x) => x.toFixed(2))
      .join(' ')}`,
  );
  const failures = [
    ...c.errors.map((x) => `cheap: ${x}`),
    ...e.errors.map((x) => `expensive: ${x}`),
    ...(c.p99 < CHEAP_P99_MS ? [] : [`cheap p99 ${c.p99.toFixed(1)} ms ≥ ${CHEAP_P99_MS} ms`]),
    ...(peak < RSS_BOUND_MB ? [] : [`server RSS ${peak.toFixed(0)} MB ≥ ${RSS_BOUND_MB} MB`]),
    ...(alive ? [] : ['the server did not answer after the run']),
    ...(c.non2xx === 0 ? [] : [`cheap: ${c.non2xx} non-2xx answers`]),
    ...pt.errors.map((x) => `point: ${x}`),
    ...(floor || pt.p99 < CHEAP_P99_MS ? [] : [`/point p99 ${pt.p99.toFixed(1)} ms ≥ ${CHEAP_P99_MS} ms`]),
    ...(LARGEST && !(late <= (TIMEOUT_S + 1) * 1000)
      ? [
          `probe: an answer began ${late.toFixed(0)} ms after its request, past the ${TIMEOUT_S} s limit + 1 s`,
        ]
      : []),
  ];
  if (failures.length > 0) {
    console.error(`FAIL: ${failures.join('; ')}`);
    process.exitCode = 1;
  } else console.log('PASS');
} finally {
  server.kill('SIGTERM');
  trivial?.kill('SIGTERM');
}
