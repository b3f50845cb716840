import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** Repository root (bench runs from dist/bench). */
export const REPO = fileURLToPath(new URL('../..', import.meta.url));
const cli = join(REPO, 'dist/src/cli/main.js');

/** Run the real CLI on the database at `root`, quietly; returns its wall time in ms. */
export function snowdb(root: string, args: string[]): number {
  const t = performance.now();
  const r = spawnSync(process.execPath, [cli, '-q', ...args], {
    env: { ...process.env, SNOWDB_CONFIG: root },
    encoding: 'utf8',
  });
  if (r.status !== 0) throw new Error(`snowdb ${args.join(' ')} failed: ${r.stderr}`);
  return performance.now() - t;
}
