/**
 * Test entry for `npm test`: runs node's test runner on every compiled `*.test.js` under dist/test
 * (Node 20's runner expands no globs, and a directory argument would also run the helpers).
 * Extra arguments filter by substring of the path: `npm test -- raster`.
 */
import { spawnSync } from 'node:child_process';
import { rmSync } from 'node:fs';
import { runFolders, testFiles } from './test-files.js';

const filters = process.argv.slice(2).filter((a) => !a.startsWith('-'));
const flags = process.argv.slice(2).filter((a) => a.startsWith('-'));
const files = testFiles(filters);
if (files.length === 0) {
  console.error(`no test files match ${filters.join(', ')}`);
  process.exit(1);
}
const run = runFolders();
// Three files at a time on two cores: most files wait on child processes, servers or GDAL part of
// the time, and a third keeps the cores busy (measured: 341 s → 299 s for the suite).
const r = spawnSync(process.execPath, ['--test', '--test-concurrency=3', ...flags, ...files], {
  stdio: 'inherit',
  env: { ...process.env, ...run.env },
});
rmSync(run.root, { recursive: true, force: true });
process.exit(r.status ?? 1);
