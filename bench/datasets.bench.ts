/**
 * Dataset scenarios (issue 5): `dataset create` on the SNODAS grid with the 45 BAGIS sample basins
 * (41 basin-bearing; ../shared/data when present, else the committed fixtures), cold and converged.
 */
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { REPO, snowdb } from './cli.js';
import { median } from './stats.js';

export async function datasetsBench(): Promise<Record<string, string>[]> {
  const shared = join(REPO, '../shared/data/pourpoints/reference');
  const records = existsSync(shared) ? shared : join(REPO, 'test/fixtures/pourpoints');
  const cold: number[] = [];
  const warm: number[] = [];
  for (let i = 0; i < 3; i++) {
    const dir = await mkdtemp(join(tmpdir(), 'snowdb-bench-'));
    try {
      const root = join(dir, 'db');
      snowdb(root, ['init', root]);
      snowdb(root, ['pourpoint', 'sync', records]);
      cold.push(snowdb(root, ['dataset', 'create', 'snodas', '--template', 'snodas']));
      warm.push(snowdb(root, ['dataset', 'create', 'snodas', '--template', 'snodas']));
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }
  const what = records === shared ? '45 sample records (41 basins)' : 'fixture records';
  return [
    {
      scenario: `dataset create snodas, ${what}, whole CLI process`,
      median_ms: median(cold).toFixed(0),
      target: '< 10000',
    },
    {
      scenario: 'the same again (converged: nothing rebuilt)',
      median_ms: median(warm).toFixed(0),
      target: '',
    },
  ];
}
