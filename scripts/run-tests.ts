/**
 * Test entry for `npm test`: runs node's test runner on every compiled `*.test.js` under dist/test
 * (Node 20's runner expands no globs, and a directory argument would also run the helpers).
 * Extra arguments filter by substring of the path: `npm test -- raster`.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const distTest = fileURLToPath(new URL('../test', import.meta.url));
/** The longest files start first, so the runners finish together (the rest by path). */
const SLOW_FIRST = [
  'demo/',
  'queue/',
  'ingest/swann',
  'crash/',
  'fetch/fetch',
  'ingest/snodas',
  'ingest/spires',
  'api/fuzz',
  'api/web-many',
];
const weight = (f: string) => {
  const i = SLOW_FIRST.findIndex((s) => relative(distTest, f).startsWith(s));
  return i < 0 ? 0 : SLOW_FIRST.length - i;
};
const filters = process.argv.slice(2).filter((a) => !a.startsWith('-'));
const flags = process.argv.slice(2).filter((a) => a.startsWith('-'));
const files = (readdirSync(distTest, { recursive: true, encoding: 'utf8' }) as string[])
  .filter((f) => f.endsWith('.test.js'))
  .map((f) => join(distTest, f))
  .filter((f) => filters.length === 0 || filters.some((s) => relative(distTest, f).includes(s)))
  .sort((a, b) => weight(b) - weight(a) || (a < b ? -1 : 1));
if (files.length === 0) {
  console.error(`no test files match ${filters.join(', ')}`);
  process.exit(1);
}
// Tests write many small files and fsync each atomic write: on Linux they run in memory (tmpfs),
// where that costs nothing. Fixture databases are built once per run, here, and copied per test
// (test/helpers/fixture-cache.ts).
const shm = '/dev/shm';
const base = existsSync(shm) && statSync(shm).isDirectory() ? mkdtempSync(join(shm, 'snowdb-test-')) : null;
const temp = base ?? tmpdir();
const fixtures = mkdtempSync(join(temp, 'snowdb-fixtures-'));
// Three files at a time on two cores: most files wait on child processes, servers or GDAL part of
// the time, and a third keeps the cores busy (measured: 341 s → 299 s for the suite).
const r = spawnSync(process.execPath, ['--test', '--test-concurrency=3', ...flags, ...files], {
  stdio: 'inherit',
  env: { ...process.env, SNOWDB_TEST_FIXTURES: fixtures, ...(base && { TMPDIR: base }) },
});
rmSync(base ?? fixtures, { recursive: true, force: true });
process.exit(r.status ?? 1);
