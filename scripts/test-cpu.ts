/**
 * The suite's CPU seconds per test file (`npm run test:cpu [-- filter…]`): each file runs alone in
 * a shard process of its own (test-shard.ts, as `npm test` runs files) under GNU time
 * (`/usr/bin/time`, user + sys of the file's process and its children: CLIs, servers, GDAL,
 * Chromium), two at a time, sharing one fixture cache as in a suite run (the first
 * file that needs a fixture pays for its build). Prints a table, largest first, and the total:
 * the sum of files alone, each loading its modules in a process of its own; `npm test` shares
 * three processes among them and costs less than the sum (BENCHMARKS.md, fourteenth session).
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { distTest, runFolders, testFiles } from './test-files.js';

interface Row {
  file: string;
  user: number;
  sys: number;
  wall: number;
  ok: boolean;
}

const files = testFiles(process.argv.slice(2));
/** A file runs as in a shard of `npm test` (test-shard.ts), alone. */
const entry = fileURLToPath(new URL('./test-shard.js', import.meta.url));
const run = runFolders();
const out = mkdtempSync(join(run.root, 'time-'));
const rows: Row[] = [];

async function one(file: string, i: number): Promise<void> {
  const timing = join(out, `${i}.txt`);
  const code = await new Promise<number>((resolve) => {
    const p = spawn(
      '/usr/bin/time',
      ['-f', '%U %S %e', '-o', timing, process.execPath, '--test-reporter=dot', entry, file],
      {
        stdio: 'ignore',
        env: { ...process.env, ...run.env },
      },
    );
    p.on('close', (c) => resolve(c ?? 1));
  });
  const [user = 0, sys = 0, wall = 0] = readFileSync(timing, 'utf8')
    .trim()
    .split('\n')
    .at(-1)!
    .split(' ')
    .map(Number);
  rows.push({ file: relative(distTest, file), user, sys, wall, ok: code === 0 });
  process.stderr.write(
    `${code === 0 ? 'ok  ' : 'FAIL'} ${(user + sys).toFixed(1).padStart(6)} CPU-s  ${relative(distTest, file)}\n`,
  );
}

const queue = files.map((f, i) => [f, i] as const);
await Promise.all(
  [0, 1].map(async () => {
    for (let next = queue.shift(); next; next = queue.shift()) await one(...next);
  }),
);
rmSync(run.root, { recursive: true, force: true });
rows.sort((a, b) => b.user + b.sys - (a.user + a.sys));
const total = rows.reduce((s, r) => s + r.user + r.sys, 0);
console.log('| file | CPU s (user + sys) | wall s |\n|---|---|---|');
for (const r of rows)
  console.log(
    `| ${r.file}${r.ok ? '' : ' (FAILED)'} | ${(r.user + r.sys).toFixed(1)} | ${r.wall.toFixed(1)} |`,
  );
console.log(`| **total (${rows.length} files)** | **${total.toFixed(0)}** | |`);
process.exit(rows.every((r) => r.ok) ? 0 : 1);
