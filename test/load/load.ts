/**
 * `npm run test:load`: 64 connections for 60 s (SNOWDB_LOAD_SECONDS) against `snowdb api serve`
 * on the 20-year benchmark database (bench/fixture/database.ts, generated once and cached): 8
 * connections (SNOWDB_LOAD_CHEAP) ask cheap things in a tight loop (landing page, datasets,
 * pourpoint pages and basins), the other 56 ask expensive stats (a water year of one basin, two
 * zone axes). Passes when nothing fails (no
 * non-2xx answer, no socket error), the cheap requests' p99 stays under 100 ms while the expensive
 * ones queue behind the admission gate, and the server's memory stays under 1.5 GB. Prints the
 * figures BENCHMARKS.md records. Needs wrk (Debian package).
 */
import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { benchDatabase } from '../../bench/fixture/database.js';

const SECONDS = Number(process.env.SNOWDB_LOAD_SECONDS ?? 60);
const CHEAP_P99_MS = 100;
const CHEAP_CONNECTIONS = Number(process.env.SNOWDB_LOAD_CHEAP ?? 8);
const RSS_BOUND_MB = 1536;
const REPO = new URL('../../../', import.meta.url).pathname;
const run = promisify(execFile);

interface WrkResult {
  requests: number;
  rps: number;
  p50: number;
  p99: number;
  errors: string[];
}

/** Milliseconds from wrk's `12.3ms` / `850us` / `1.2s`. */
const ms = (v: string, unit: string) => Number(v) * (unit === 'us' ? 0.001 : unit === 's' ? 1000 : 1);

async function wrk(origin: string, paths: readonly string[], connections: number): Promise<WrkResult> {
  const script = join(tmpdir(), `snowdb-load-${process.pid}-${connections}.lua`);
  writeFileSync(
    script,
    `local paths = {${paths.map((p) => JSON.stringify(p)).join(',')}}\nlocal i = ${connections}\n` +
      'request = function()\n  i = i % #paths + 1\n  return wrk.format(nil, paths[i])\nend\n',
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
  const errors = [/Non-2xx or 3xx responses: \d+/, /Socket errors: [^\n]+/]
    .map((re) => re.exec(stdout)?.[0])
    .filter((x): x is string => x !== undefined);
  return {
    requests: Number(/(\d+) requests in/.exec(stdout)?.[1]),
    rps: Number(/Requests\/sec:\s+([\d.]+)/.exec(stdout)?.[1]),
    p50: p('50'),
    p99: p('99'),
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

const b = await benchDatabase();
const server = spawn(
  process.execPath,
  [join(REPO, 'dist/src/cli/main.js'), 'api', 'serve', '--port', '0', '--log-level', 'warn'],
  { env: { ...process.env, SNOWDB_CONFIG: b.root }, stdio: ['ignore', 'ignore', 'pipe'] },
);
let peak = 0;
try {
  const origin = await listening(server);
  const rss = () =>
    Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${server.pid}/status`, 'utf8'))?.[1]) / 1024;
  const index = (await (await fetch(`${origin}/pourpoints?limit=1000`)).json()) as {
    features: { id: string }[];
  };
  const basins = index.features.map((f) => encodeURIComponent(f.id).replaceAll('%3A', ':'));
  const cheap = [
    '/',
    '/datasets',
    '/datasets/snodas',
    '/pourpoints?limit=50',
    ...basins.slice(0, 40).map((t) => `/pourpoints/${t}`),
  ];
  const years = [2006, 2011, 2015, 2019, 2023];
  const expensive = basins.slice(0, 20).map((t, i) => {
    const y = years[i % years.length]!;
    return `/datasets/snodas/stats/${t}/date-range?datetime=${y - 1}-10-01/${y}-09-30&variable=swe&zone=terrain.elevation&zone=terrain.aspect`;
  });
  for (const p of [...cheap.slice(0, 5), expensive[0]!]) {
    const r = await fetch(`${origin}${p}`);
    if (r.status !== 200) throw new Error(`${p}: ${r.status} ${await r.text()}`);
  }
  const sampler = setInterval(() => {
    peak = Math.max(peak, rss());
  }, 250);
  console.log(
    `load: ${SECONDS} s, ${CHEAP_CONNECTIONS} connections cheap + ${64 - CHEAP_CONNECTIONS} expensive, on ${b.root}`,
  );
  const [c, e] = await Promise.all([
    wrk(origin, cheap, CHEAP_CONNECTIONS),
    wrk(origin, expensive, 64 - CHEAP_CONNECTIONS),
  ]);
  clearInterval(sampler);
  const alive = (await fetch(`${origin}/version`)).status === 200;
  const line = (name: string, r: WrkResult) =>
    `${name.padEnd(9)} ${String(r.requests).padStart(7)} requests  ${r.rps.toFixed(1).padStart(8)}/s  p50 ${r.p50.toFixed(1)} ms  p99 ${r.p99.toFixed(1)} ms  ${r.errors.join('; ') || 'no errors'}`;
  console.log(line('cheap', c));
  console.log(line('expensive', e));
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
  ];
  if (failures.length > 0) {
    console.error(`FAIL: ${failures.join('; ')}`);
    process.exitCode = 1;
  } else console.log('PASS');
} finally {
  server.kill('SIGTERM');
}
