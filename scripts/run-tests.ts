/**
 * Test entry for `npm test`: runs node's test runner on every compiled `*.test.js` under dist/test
 * (Node 20's runner expands no globs, and a directory argument would also run the helpers).
 * Extra arguments filter by substring of the path: `npm test -- raster`.
 */
import { spawnSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const distTest = fileURLToPath(new URL('../test', import.meta.url));
const filters = process.argv.slice(2).filter((a) => !a.startsWith('-'));
const flags = process.argv.slice(2).filter((a) => a.startsWith('-'));
const files = (readdirSync(distTest, { recursive: true, encoding: 'utf8' }) as string[])
  .filter((f) => f.endsWith('.test.js'))
  .map((f) => join(distTest, f))
  .filter((f) => filters.length === 0 || filters.some((s) => relative(distTest, f).includes(s)))
  .sort();
if (files.length === 0) {
  console.error(`no test files match ${filters.join(', ')}`);
  process.exit(1);
}
const r = spawnSync(process.execPath, ['--test', '--test-concurrency=2', ...flags, ...files], {
  stdio: 'inherit',
});
process.exit(r.status ?? 1);
