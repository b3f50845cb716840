/**
 * Test entry for `npm test`: runs every compiled `*.test.js` under dist/test (Node 20's runner
 * expands no globs, and a directory argument would also run the helpers). Extra arguments filter by
 * substring of the path (`npm test -- raster`); those starting with `-` go to node (e.g.
 * `--test-name-pattern=…`).
 *
 * The files run in SHARDS processes at once (test-shard.ts: a shard's files one after another in
 * one process), balanced by each file's measured weight; a file that needs a process of its own
 * (ISOLATED) gets one. One process per file, as `node --test` runs them, cost the suite 40–60 CPU-s
 * more (BENCHMARKS.md, fourteenth session): every file loaded the same modules again.
 * Each shard's report is printed when it ends, then the totals.
 */
import { spawn } from 'node:child_process';
import { rmSync } from 'node:fs';
import { relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { distTest, runFolders, testFiles, weightOf } from './test-files.js';

/** Processes at once on two cores: most files wait on child processes, servers or GDAL part of the time. */
const SHARDS = 3;
/** Files that need a process of their own: V8 flags set at load, heap accounting by difference. */
const ISOLATED = ['stats/caches'];

const filters = process.argv.slice(2).filter((a) => !a.startsWith('-'));
const flags = process.argv.slice(2).filter((a) => a.startsWith('-'));
const files = testFiles(filters);
if (files.length === 0) {
  console.error(`no test files match ${filters.join(', ')}`);
  process.exit(1);
}
const entry = fileURLToPath(new URL('./test-shard.js', import.meta.url));
const name = (f: string) => relative(distTest, f);

interface Shard {
  files: string[];
  weight: number;
}
/** Longest first (testFiles' order) onto the lightest shard (LPT); isolated files alone. */
function plan(all: readonly string[]): Shard[] {
  const shared: Shard[] = Array.from({ length: Math.min(SHARDS, all.length) }, () => ({
    files: [],
    weight: 0,
  }));
  const alone: Shard[] = [];
  for (const f of all) {
    if (ISOLATED.some((s) => name(f).startsWith(s))) {
      alone.push({ files: [f], weight: weightOf(name(f)) });
      continue;
    }
    const s = shared.reduce((a, b) => (b.weight < a.weight ? b : a));
    s.files.push(f);
    s.weight += weightOf(name(f));
  }
  return [...shared, ...alone].filter((s) => s.files.length > 0).sort((a, b) => b.weight - a.weight);
}

const run = runFolders();
const queue = plan(files);
const totals = { tests: 0, pass: 0, fail: 0, cancelled: 0, skipped: 0, todo: 0 };
let failedShards = 0;
const started = Date.now();

async function runShard(s: Shard, i: number): Promise<void> {
  const t0 = Date.now();
  const child = spawn(process.execPath, [...flags, '--test-reporter=spec', entry, ...s.files], {
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, ...run.env },
  });
  let out = '';
  child.stdout.setEncoding('utf8').on('data', (d: string) => (out += d));
  child.stderr.setEncoding('utf8').on('data', (d: string) => (out += d));
  const code = await new Promise<number>((ok) => child.on('close', (c) => ok(c ?? 1)));
  const counts: Record<string, number> = {};
  for (const m of out.matchAll(/^ℹ (tests|pass|fail|cancelled|skipped|todo) (\d+)$/gm))
    counts[m[1]!] = Number(m[2]);
  for (const k of Object.keys(totals) as (keyof typeof totals)[]) totals[k] += counts[k] ?? 0;
  if (code !== 0 || counts.tests === undefined) failedShards++;
  const head = `── shard ${i + 1}: ${s.files.length} file(s), exit ${code}, ${((Date.now() - t0) / 1000).toFixed(0)} s: ${s.files.map(name).join(' ')}`;
  process.stdout.write(`\n${head}\n${out}`);
}

let next = 0;
await Promise.all(
  Array.from({ length: SHARDS }, async () => {
    for (let s = queue.shift(); s; s = queue.shift()) await runShard(s, next++);
  }),
);
rmSync(run.root, { recursive: true, force: true });
const t = totals;
const broken = failedShards > 0 ? `; ${failedShards} process(es) failed (above)` : '';
console.log(
  `\nsuite: ${t.tests} tests, ${t.pass} passed, ${t.fail} failed, ${t.cancelled} cancelled, ${t.skipped} skipped, ${t.todo} todo; ${files.length} files in ${next} process(es), ${((Date.now() - started) / 1000).toFixed(0)} s${broken}`,
);
process.exit(failedShards > 0 || t.fail > 0 || t.cancelled > 0 ? 1 : 0);
