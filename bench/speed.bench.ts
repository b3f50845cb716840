/**
 * Speed against the rival (issue 18): snowdb and a straightforward Python/GDAL/numpy loop
 * (bench/baseline.py, Debian's python3-gdal) on the generated 20-year SNODAS database, checked to
 * agree to 1e-9 (relative) and then timed interleaved. Both sides are warm, long-lived processes:
 * snowdb answers in-process through the call the CLI and API make, the baseline in its own loop
 * (it reports the seconds each query took inside Python). HTTP: wrk against `snowdb api serve`
 * and against the baseline's threading HTTP server.
 */
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { once } from 'node:events';
import { writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { openDataset } from '../src/datasets/registry.js';
import { Database } from '../src/db/database.js';
import { computeAllBasins } from '../src/stats/all-basins.js';
import { type CompactStats, computeStats } from '../src/stats/engine.js';
import { computeNormals, NORMAL_STATISTICS } from '../src/stats/normals.js';
import type { StatsQuery } from '../src/stats/plan.js';
import { waterYearOf } from '../src/util/dates.js';
import { REPO } from './cli.js';
import { type BenchDatabase, benchDatabase } from './fixture/database.js';
import { elapsed, interleave, median } from './stats.js';

const VIRGIN = '09406000:UT:USGS';
const BIGHORN = '06287000:MT:USGS';
const REPS = Number(process.env.SNOWDB_BENCH_REPS ?? 7);
const M_TO_FT = 3.28084;

export interface BaselineQuery {
  root: string;
  dataset: string;
  triplet: string;
  dates: string[];
  variables: string[];
  band_step_ft?: number;
  /** Answer day-of-year normals over the dates instead of the dates' values. */
  normals?: boolean;
}
export interface BaselineAnswer {
  seconds: number;
  results: Record<string, Record<string, (number | null)[]>>;
  /** With `all` (rivals.py): each basin's results. */
  basins?: Record<string, Record<string, Record<string, (number | null)[]>>>;
  /** Per MM-DD, per variable, per cell: median, mean, p10, p90, min, max, years. */
  normals?: Record<string, Record<string, (number | null)[][]>>;
}

/** A rival's query loop (default: the baseline's, in Python): one JSON line in, one out. */
export class Baseline {
  private readonly proc: ChildProcess;
  private readonly lines: AsyncIterableIterator<string>;

  constructor(args: readonly string[] = [join(REPO, 'bench/baseline.py'), 'loop'], exe = '/usr/bin/python3') {
    this.proc = spawn(exe, args, {
      stdio: ['pipe', 'pipe', 'inherit'],
    });
    this.lines = createInterface({ input: this.proc.stdout! })[Symbol.asyncIterator]();
  }

  ask(q: BaselineQuery | (BaselineQuery & { all: string[] })): Promise<BaselineAnswer> {
    return this.call(q) as Promise<BaselineAnswer>;
  }

  /** One JSON line out, the process's one JSON line back. */
  async call(message: unknown): Promise<unknown> {
    this.proc.stdin!.write(`${JSON.stringify(message)}\n`);
    const { value, done } = await this.lines.next();
    if (done) throw new Error(`${this.proc.spawnargs.join(' ')} exited`);
    return JSON.parse(value) as unknown;
  }

  close(): void {
    this.proc.stdin!.end();
  }
}

/** Every mean snowdb reports equals the baseline's (same band) to 1e-9 relative, and vice versa. */
export function assertSame(
  label: string,
  ours: CompactStats,
  theirs: BaselineAnswer,
  step: number | undefined,
): void {
  const first = step ? Math.floor((-100 * M_TO_FT) / step) : 0;
  let compared = 0;
  for (const [date, perVar] of Object.entries(theirs.results)) {
    for (const [v, cells] of Object.entries(perVar)) {
      const col = ours.variables.findIndex((name) => name.startsWith(`mean_${v}_`)); // mean_swe_mm, mean_snow_fraction_percent
      const mine = new Map<number, number | null>();
      ours.zones.forEach((z, k) => {
        const ref = z.zone[0];
        if (ref?.kind === 'unclassified') return; // pixels no band holds: the rivals drop them
        const band = ref && ref.kind === 'band' ? Math.round(ref.min / step!) - first : 0;
        mine.set(band, ours.results[date]![k]![col] as number | null);
      });
      cells.forEach((x, band) => {
        const m = mine.get(band) ?? null;
        const ok = x === null ? m === null : m !== null && Math.abs(m - x) <= 1e-9 * Math.max(1, Math.abs(x));
        if (!ok) throw new Error(`${label}: ${date} ${v} band ${band}: snowdb ${m}, baseline ${x}`);
        compared++;
      });
    }
  }
  if (compared === 0) throw new Error(`${label}: nothing compared`);
}

interface Row {
  scenario: string;
  snowdb: string;
  baseline: string;
  ratio: string;
  target: string;
}

/** One stats scenario: check agreement, then REPS interleaved timings of each side. */
async function scenario(
  b: BenchDatabase,
  db: Database,
  base: Baseline,
  label: string,
  target: string,
  q: StatsQuery,
  dates: string[],
  step?: number,
): Promise<Row> {
  const bq: BaselineQuery = {
    root: b.root,
    dataset: b.dataset,
    triplet: q.pourpoint,
    dates,
    variables: q.variables as string[],
    ...(step ? { band_step_ft: step } : {}),
  };
  assertSame(label, await computeStats(db, q), await base.ask(bq), step);
  const cells = await interleave(
    REPS,
    () => elapsed(() => computeStats(db, q)),
    async () => (await base.ask(bq)).seconds * 1000,
  );
  return { scenario: label, ...cells, target };
}

/**
 * Day-of-year normals of one basin's whole-basin mean SWE over every complete water year: snowdb's
 * normals (from the series store, the reference table not cached) vs the baseline reading every
 * date's COG and taking numpy's percentiles per calendar day; checked value for value first.
 */
async function normals(b: BenchDatabase, db: Database, base: Baseline, triplet: string): Promise<Row> {
  const q = { dataset: b.dataset, pourpoint: triplet, variables: ['swe'], zones: [] };
  const ours = await computeNormals(db, q, { cached: false });
  const years = new Set(ours.reference.water_years);
  const dates = b.dates.filter((d) => years.has(waterYearOf(d)));
  const bq: BaselineQuery = {
    root: b.root,
    dataset: b.dataset,
    triplet,
    dates,
    variables: ['swe'],
    normals: true,
  };
  const theirs = (await base.ask(bq)).normals!;
  const at = (s: string) => ours.variables.indexOf(`${s}_mean_swe_mm`);
  const cols = NORMAL_STATISTICS.map(at);
  let compared = 0;
  for (const [day, perVar] of Object.entries(theirs)) {
    const mine = ours.results[day]![0]!;
    perVar.swe![0]!.forEach((x, i) => {
      const m = mine[cols[i]!] ?? null;
      const ok = x === null ? m === null : m !== null && Math.abs(m - x) <= 1e-9 * Math.max(1, Math.abs(x));
      if (!ok) throw new Error(`normals ${day} ${NORMAL_STATISTICS[i]}: snowdb ${m}, baseline ${x}`);
      compared++;
    });
  }
  if (compared < 365 * 7) throw new Error(`normals: ${compared} values compared`);
  const cells = await interleave(
    REPS,
    () => elapsed(() => computeNormals(db, q, { cached: false })),
    async () => (await base.ask(bq)).seconds * 1000,
  );
  return {
    scenario: `normals: ${years.size} water years (${dates.length} dates), whole basin, swe, Virgin R; ${compared} values equal`,
    ...cells,
    target: '≥ 10×',
  };
}

/** All basins, one date: snowdb's all-basins call vs the baseline looping over them, checked first. */
async function allBasins(b: BenchDatabase, db: Database, base: Baseline, date: string): Promise<Row> {
  const q = {
    dataset: b.dataset,
    dates: { type: 'DateRange' as const, start_date: date, end_date: date },
    variables: ['swe'],
  };
  const ours = await computeAllBasins(db, q);
  const baseRun = async (check: boolean) => {
    let sec = 0;
    for (const basin of ours.basins) {
      const a = await base.ask({
        root: b.root,
        dataset: b.dataset,
        triplet: basin.pourpoint,
        dates: [date],
        variables: ['swe'],
      });
      if (check) assertSame(basin.pourpoint, { ...ours, ...basin }, a, undefined);
      sec += a.seconds;
    }
    return sec * 1000;
  };
  await baseRun(true);
  const cells = await interleave(
    REPS,
    () => elapsed(() => computeAllBasins(db, q)),
    () => baseRun(false),
  );
  return {
    scenario: `one date, every covered basin (${ours.basins.length}), swe: stats-all vs a loop of the baseline`,
    ...cells,
    target: '≥ 10×, ≤ 0.3 s',
  };
}

/**
 * wrk at 32 connections for `seconds`, each request for the next of `dates` (`{date}` in `url`):
 * requests/s and p50 latency (ms).
 */
export function wrk(url: string, dates: readonly string[], seconds: number): { rps: number; p50: number } {
  const u = new URL(url.replace('{date}', dates[0]!));
  const paths = dates.map((d) => {
    const x = new URL(url.replace('{date}', d));
    return x.pathname + x.search;
  });
  const script = join(tmpdir(), `snowdb-wrk-${process.pid}.lua`);
  writeFileSync(
    script,
    `local paths = {${paths.map((p) => JSON.stringify(p)).join(',')}}\nlocal i = 0\n` +
      'request = function()\n  i = i % #paths + 1\n  return wrk.format(nil, paths[i])\nend\n',
  );
  const out = execFileSync('wrk', ['-t2', '-c32', `-d${seconds}s`, '--latency', '-s', script, u.origin], {
    encoding: 'utf8',
  });
  const rps = Number(/Requests\/sec:\s+([\d.]+)/.exec(out)?.[1]);
  const m = /50%\s+([\d.]+)(us|ms|s)/.exec(out);
  const p50 = m ? Number(m[1]) * (m[2] === 'us' ? 0.001 : m[2] === 's' ? 1000 : 1) : Number.NaN;
  if (!/Non-2xx/.test(out) && Number.isFinite(rps)) return { rps, p50 };
  throw new Error(`wrk ${url}: ${out}`);
}

export async function listening(proc: ChildProcess, pattern: RegExp): Promise<string> {
  let text = '';
  for (const stream of [proc.stdout!, proc.stderr!]) stream.setEncoding('utf8');
  return new Promise((resolve, reject) => {
    const on = (chunk: string) => {
      text += chunk;
      const m = pattern.exec(text);
      if (m) resolve(m[1] ?? m[0]);
    };
    proc.stdout!.on('data', on);
    proc.stderr!.on('data', on);
    proc.once('exit', (code) => reject(new Error(`exited ${code}: ${text}`)));
  });
}

async function http(b: BenchDatabase, dates: readonly string[]): Promise<Row> {
  const ours = spawn(
    process.execPath,
    [join(REPO, 'dist/src/cli/main.js'), 'api', 'serve', '--port', '0', '--log-level', 'warn'],
    {
      env: { ...process.env, SNOWDB_CONFIG: b.root },
    },
  );
  const port = 18765;
  const theirs = spawn('/usr/bin/python3', [join(REPO, 'bench/baseline.py'), 'serve', String(port)]);
  try {
    const address = await listening(ours, /snowdb API on (http:\/\/[\d.:]+)/);
    await listening(theirs, /listening/);
    const urlOurs = `${address}/datasets/snodas/stats/${VIRGIN}/date-range?datetime={date}&variable=swe`;
    const urlTheirs = `http://127.0.0.1:${port}/stats?root=${encodeURIComponent(b.root)}&triplet=${VIRGIN}&date={date}&variable=swe`;
    for (const u of [urlOurs, urlTheirs]) {
      const r = await fetch(u.replace('{date}', dates[0]!));
      if (r.status !== 200) throw new Error(`${u}: ${r.status} ${await r.text()}`);
    }
    const s: { rps: number; p50: number }[] = [];
    const p: { rps: number; p50: number }[] = [];
    const reps = Math.min(REPS, 3);
    for (let i = 0; i < reps; i++) {
      s.push(wrk(urlOurs, dates, 5));
      p.push(wrk(urlTheirs, dates, 5));
    }
    const rps = (xs: { rps: number }[]) => median(xs.map((x) => x.rps));
    const p50 = (xs: { p50: number }[]) => median(xs.map((x) => x.p50));
    return {
      scenario: `HTTP, 1 date (each request the next of ${dates.length}), Virgin R, swe, 32 connections (wrk, ${reps} × 5 s each)`,
      snowdb: `${rps(s).toFixed(0)} req/s, p50 ${p50(s).toFixed(2)} ms`,
      baseline: `${rps(p).toFixed(0)} req/s, p50 ${p50(p).toFixed(2)} ms`,
      ratio: `${(rps(s) / rps(p)).toFixed(1)}×`,
      target: '≥ 2× and ≥ 2,000 req/s, p50 ≤ 5 ms',
    };
  } finally {
    ours.kill('SIGTERM');
    theirs.kill('SIGTERM');
    await Promise.all([once(ours, 'exit'), once(theirs, 'exit')]);
  }
}

export async function speedBench(): Promise<Row[]> {
  const b = await benchDatabase((m) => console.error(m));
  const db = await Database.open(b.root);
  const d = await openDataset(db, b.dataset);
  const base = new Baseline();
  const rows: Row[] = [];
  try {
    const wy = b.dates.filter((x) => x >= '2022-10-01' && x <= '2023-09-30');
    const all = b.dates.slice(-7300);
    const range = (ds: string[]) => ({
      type: 'DateRange' as const,
      start_date: ds[0]!,
      end_date: ds.at(-1)!,
    });
    const q = (pourpoint: string, ds: string[], variables: string[], zones: string[] = []): StatsQuery => ({
      dataset: d.name,
      pourpoint,
      dates: range(ds),
      variables,
      zones,
    });
    rows.push(
      await scenario(
        b,
        db,
        base,
        '365 dates × swe+depth × 1,000-ft bands, Virgin R (2,455 km²)',
        '≥ 10×, ≤ 70 ms',
        q(VIRGIN, wy, ['depth', 'swe'], ['terrain.elevation']),
        wy,
        1000,
      ),
    );
    rows.push(
      await scenario(
        b,
        db,
        base,
        '7,300 dates, whole basin, swe, Virgin R',
        '≥ 10×, ≤ 0.5 s',
        q(VIRGIN, all, ['swe']),
        all,
      ),
    );
    rows.push(
      await scenario(
        b,
        db,
        base,
        '7,300 dates × 1,000-ft bands, swe, Bighorn R (~51,000 km²)',
        '≥ 5×',
        q(BIGHORN, all, ['swe'], ['terrain.elevation']),
        all,
        1000,
      ),
    );
    rows.push(await allBasins(b, db, base, '2023-02-15'));
    rows.push(await normals(b, db, base, VIRGIN));
  } finally {
    base.close();
  }
  rows.push(
    await http(
      b,
      b.dates.filter((x) => x >= '2022-10-01' && x <= '2023-09-30'),
    ),
  );
  return rows;
}
