/**
 * What warm in-process timings leave out: memory (a 20-year query on the largest basin, in a fresh
 * process: peak RSS above the RSS after a warm-up query) and a cold page cache (fresh processes on
 * both sides, every bench file's cached pages dropped first with bench/evict.py).
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { dirname, join } from 'node:path';
import { REPO } from './cli.js';
import type { BenchDatabase } from './fixture/database.js';
import { interleave, spread } from './stats.js';

const BIGHORN = '06287000:MT:USGS';
const VIRGIN = '09406000:UT:USGS';
const PYTHON = '/usr/bin/python3';
const MB = 1024 * 1024;

type Row = Record<'scenario' | 'snowdb' | 'baseline' | 'ratio' | 'target', string>;

export function memoryRow(b: BenchDatabase, reps: number): Row {
  const all = b.dates.slice(-7300);
  const above: number[] = [];
  let idle = 0;
  for (let i = 0; i < reps; i++) {
    const out = execFileSync(
      process.execPath,
      [join(REPO, 'dist/bench/memory-probe.js'), b.root, b.dataset, BIGHORN, all[0]!, all.at(-1)!],
      { encoding: 'utf8' },
    );
    const m = JSON.parse(out) as { idle: number; peak: number };
    above.push((m.peak - m.idle) / MB);
    idle = m.idle / MB;
  }
  return {
    scenario: `memory: 7,300 dates × 1,000-ft bands, Bighorn R, fresh process (idle ≈ ${idle.toFixed(0)} MB after a warm-up query)`,
    snowdb: `peak ${spread(above, 0, 'MB')} above idle`,
    baseline: '—',
    ratio: '—',
    target: '≤ ~200 MB above idle',
  };
}

/** Wall time of a fresh process after dropping the page cache of every bench file. */
function coldRun(b: BenchDatabase, cmd: string, args: string[], input?: string): number {
  execFileSync(PYTHON, [join(REPO, 'bench/evict.py'), dirname(b.root)]);
  const t = performance.now();
  const r = spawnSync(cmd, args, {
    input,
    env: { ...process.env, SNOWDB_CONFIG: b.root },
    stdio: ['pipe', 'ignore', 'inherit'],
  });
  if (r.status !== 0) throw new Error(`${cmd} ${args.join(' ')}: exit ${r.status}`);
  return performance.now() - t;
}

export async function coldRow(b: BenchDatabase, reps: number): Promise<Row> {
  const wy = b.dates.filter((x) => x >= '2022-10-01' && x <= '2023-09-30');
  const ours = [
    join(REPO, 'dist/src/cli/main.js'),
    'stats',
    b.dataset,
    VIRGIN,
    '--dates',
    `${wy[0]}/${wy.at(-1)}`,
    '--variable',
    'swe',
    '--variable',
    'depth',
    '--zone',
    'terrain.elevation',
    '--format',
    'csv',
  ];
  const query = JSON.stringify({
    root: b.root,
    dataset: b.dataset,
    triplet: VIRGIN,
    dates: wy,
    variables: ['depth', 'swe'],
    band_step_ft: 1000,
  });
  const cells = await interleave(
    reps,
    async () => coldRun(b, process.execPath, ours),
    async () => coldRun(b, PYTHON, [join(REPO, 'bench/baseline.py'), 'loop'], `${query}\n`),
    0,
  );
  return {
    scenario: 'cold page cache, fresh process (CLI / python), 365 dates × swe+depth × bands, Virgin R',
    ...cells,
    target: 'reported, not targeted',
  };
}
