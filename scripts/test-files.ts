/**
 * The suite's test files and the folders a run uses, shared by `npm test` (run-tests.ts) and the
 * per-file CPU measurement (test-cpu.ts).
 */
import { existsSync, mkdtempSync, readdirSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { withHugePages } from './huge-pages.js';

export const distTest = fileURLToPath(new URL('../test', import.meta.url));
/**
 * A test file's weight: about its seconds alone on the 2-core machine (CPU and waits, Node 26,
 * `npm run test:cpu`, BENCHMARKS.md sixteenth session), for starting the longest first and
 * balancing shards; other files ~3.
 */
const WEIGHTS: Readonly<Record<string, number>> = {
  'demo/demo': 78,
  'queue/queue': 49,
  'crash/crash': 22,
  'fetch/fetch': 20,
  'zones/zones': 16,
  'ingest/spires': 14,
  'export/export': 12,
  'ingest/snodas': 12,
  'replica/replica': 12,
  'api/fuzz': 11,
  'ingest/swann': 11,
  'stats/history': 11,
  'api/docs-browser': 10,
  'api/web-many-basins': 10,
  'fetch/update': 10,
  'raster/coverage': 9,
  'stats/series': 9,
  'bad-input/bad-input': 7,
  'api/api': 6,
  'datasets/datasets': 6,
  'stats/caches': 6,
  'fetch/ftp': 5,
  'stations/stations': 5,
  'api/limits': 4,
  'cli/maintenance': 4,
  'datasets/freshness': 4,
  'formats/bounded': 4,
};
/** The weight of a file by its path under dist/test (`demo/demo.test.js`). */
export const weightOf = (file: string): number => WEIGHTS[file.replace(/\.test\.js$/, '')] ?? 3;
const weight = (f: string) => weightOf(relative(distTest, f));

/** Every compiled `*.test.js` under dist/test whose path contains one of `filters` (all if none), slowest first. */
export function testFiles(filters: readonly string[]): string[] {
  return (readdirSync(distTest, { recursive: true, encoding: 'utf8' }) as string[])
    .filter((f) => f.endsWith('.test.js'))
    .map((f) => join(distTest, f))
    .filter((f) => filters.length === 0 || filters.some((s) => relative(distTest, f).includes(s)))
    .sort((a, b) => weight(b) - weight(a) || (a < b ? -1 : 1));
}

/**
 * A run's scratch folders. Tests write many small files and fsync each atomic write: on Linux they
 * run in memory (tmpfs), where that costs nothing. Fixture databases are built once per run, in
 * `fixtures`, and copied per test (test/helpers/fixture-cache.ts). Remove `root` at the end.
 */
export function runFolders(): { root: string; fixtures: string; env: Record<string, string> } {
  const shm = '/dev/shm';
  const base = existsSync(shm) && statSync(shm).isDirectory() ? mkdtempSync(join(shm, 'snowdb-test-')) : null;
  const temp = base ?? tmpdir();
  const fixtures = mkdtempSync(join(temp, 'snowdb-fixtures-'));
  return {
    root: base ?? fixtures,
    fixtures,
    env: {
      SNOWDB_TEST_FIXTURES: fixtures,
      ...(base && { TMPDIR: base }),
      GLIBC_TUNABLES: withHugePages(process.env).GLIBC_TUNABLES!,
      // Node ≥ 22.1 keeps the compiled code of every module here, for the processes of a run
      // (shards, spawned CLIs, servers, workers) to skip compiling it again; Node 20 ignores it.
      NODE_COMPILE_CACHE: join(temp, 'node-compile-cache'),
    },
  };
}
