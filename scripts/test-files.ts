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
      // Node ≥ 22.1 keeps the compiled code of every module here, for the ~170 processes of a run
      // (test files, spawned CLIs, servers, workers) to skip compiling it again; Node 20 ignores it.
      NODE_COMPILE_CACHE: join(temp, 'node-compile-cache'),
    },
  };
}
