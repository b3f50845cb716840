/**
 * A whole history in one export against the API calls that return the same rows (issue 46): on
 * the daily bench database, `snowdb export` (a fresh process each run: its caches empty, its peak
 * resident memory read from /proc by GNU time) interleaved with one `date-range` call per basin
 * and water year over HTTP to a running `api serve` (the fewest calls a user without the export
 * makes). Before timing, the export's rows of two basins are checked equal to those calls'.
 */
import { spawn, spawnSync } from 'node:child_process';
import { once } from 'node:events';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { waterYearOf } from '../src/util/dates.js';
import { REPO } from './cli.js';
import type { BenchDatabase } from './fixture/database.js';
import { median, spread } from './stats.js';

const CLI = join(REPO, 'dist/src/cli/main.js');
const QUERY = ['--variable', 'swe', '--zone', 'terrain.elevation'];

/** One `snowdb export <args> --out <out> --replace` of `root` in a fresh process: wall ms and peak RSS (MiB, GNU time's %M). */
export function exportOnce(root: string, args: readonly string[], out: string): { ms: number; mib: number } {
  const t = performance.now();
  const r = spawnSync(
    '/usr/bin/time',
    ['-f', '%M', process.execPath, CLI, '-q', 'export', ...args, '--out', out, '--replace'],
    { env: { ...process.env, SNOWDB_CONFIG: root }, encoding: 'utf8' },
  );
  if (r.status !== 0) throw new Error(`export failed: ${r.stderr}`);
  return { ms: performance.now() - t, mib: Number(r.stderr.trim().split('\n').at(-1)) / 1024 };
}

/** The export this bench times: every basin's SWE by band as one CSV. */
const exportCsv = (b: BenchDatabase, out: string) =>
  exportOnce(b.root, [b.dataset, ...QUERY, '--to', 'csv'], out);

/**
 * GET `url`, asked again once when the connection dies before an answer: a keep-alive socket left
 * idle through a long export can be closed by the server (its Keep-Alive timeout, 72 s) just as
 * the client reuses it.
 */
async function get(url: string): Promise<Response> {
  try {
    return await fetch(url);
  } catch (e) {
    if ((e as { cause?: { code?: string } }).cause?.code !== 'UND_ERR_SOCKET') throw e;
    return fetch(url);
  }
}

/** Every basin's every water year through the API over HTTP: ms, and the CSV bodies by basin. */
async function apiOnce(base: string, basins: readonly string[], years: readonly [string, string][]) {
  const t = performance.now();
  const bodies = new Map<string, string>();
  for (const b of basins)
    for (const [from, to] of years) {
      const r = await get(
        `${base}/datasets/snodas/stats/${b}/date-range?datetime=${from}/${to}&variable=swe&zone=terrain.elevation&f=csv`,
      );
      if (r.status !== 200) throw new Error(`${b}: HTTP ${r.status}`);
      bodies.set(b, (bodies.get(b) ?? '') + (await r.text()));
    }
  return { ms: performance.now() - t, bodies };
}

export async function exportRow(b: BenchDatabase, reps: number): Promise<Record<string, string>> {
  const dir = await mkdtemp(join(dirname(b.root), 'export-bench-'));
  const server = spawn(process.execPath, [CLI, 'api', 'serve', '--port', '0', '--log-level', 'warn'], {
    env: { ...process.env, SNOWDB_CONFIG: b.root },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  try {
    let err = '';
    server.stderr.setEncoding('utf8');
    while (!/on (http:\/\/\S+) /.test(err)) err += (await once(server.stderr, 'data'))[0];
    const base = /on (http:\/\/\S+) /.exec(err)![1]!;
    const pourpoints = (
      (await (await get(`${base}/pourpoints?limit=1000`)).json()) as { features: { id: string }[] }
    ).features.map((f) => f.id);
    const years: [string, string][] = [...new Set(b.dates.map(waterYearOf))].map((wy) => [
      `${wy - 1}-10-01`,
      `${wy}-09-30`,
    ]);
    const out = join(dir, 'export.csv');
    // The same numbers: two basins' rows of the export are their API answers' rows.
    exportCsv(b, out);
    const api = await apiOnce(base, pourpoints.slice(0, 2), years);
    const exported = (await readFile(out, 'utf8')).split('\r\n');
    for (const [basin, body] of api.bodies) {
      const want = body.split('\r\n').filter((l) => l !== '' && !l.startsWith('date,'));
      const got = exported.filter((l) => l.startsWith(`${basin},`)).map((l) => l.slice(basin.length + 1));
      if (JSON.stringify(got) !== JSON.stringify(want)) throw new Error(`export and API differ for ${basin}`);
    }
    const ours: number[] = [];
    const mib: number[] = [];
    const theirs: number[] = [];
    for (let i = 0; i < reps; i++) {
      const e = exportCsv(b, out);
      ours.push(e.ms);
      mib.push(e.mib);
      theirs.push((await apiOnce(base, pourpoints, years)).ms);
    }
    return {
      scenario: `export ${pourpoints.length} basins × ${b.dates.length} dates by band (CSV; peak ${spread(mib, 0, 'MiB')}) vs ${pourpoints.length * years.length} date-range calls over HTTP`,
      snowdb: spread(ours, 0),
      baseline: spread(theirs, 0),
      ratio: `${(median(theirs) / median(ours)).toFixed(1)}×`,
      target: 'faster than the calls, bounded memory',
    };
  } finally {
    server.kill('SIGTERM');
    await once(server, 'close').catch(() => {});
    await rm(dir, { recursive: true, force: true });
  }
}
