// `npm run demo` / `npm test` on a fresh clone: install the pinned dependencies first (npm ci)
// when node_modules is missing or older than package-lock.json; otherwise do nothing.
import { spawnSync } from 'node:child_process';
import { existsSync, statSync } from 'node:fs';

const marker = 'node_modules/.package-lock.json';
if (!existsSync(marker) || statSync(marker).mtimeMs < statSync('package-lock.json').mtimeMs) {
  process.stderr.write('installing the pinned dependencies: npm ci\n');
  const r = spawnSync('npm', ['ci', '--no-audit', '--no-fund'], { stdio: 'inherit' });
  if (r.status !== 0) process.exit(r.status ?? 1);
}
