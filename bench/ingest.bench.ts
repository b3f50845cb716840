/**
 * Ingest scenarios (issue 6): one generated SNODAS daily tar (eight 6935 × 3351 products, real
 * header text, system gzip + tar) into a fresh dataset, and skipping it once it is up to date.
 * Both run in-process (no CLI start-up) through the same call the CLI makes.
 */
import { mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createDataset } from '../src/datasets/lifecycle.js';
import { Database, initDatabase } from '../src/db/database.js';
import { ingestSources } from '../src/ingest/run.js';
import { memberNames, tarOf, writeMembers } from '../test/helpers/snodas.js';
import { median, time } from './stats.js';

export async function ingestBench(): Promise<Record<string, string>[]> {
  const dir = await mkdtemp(join(tmpdir(), 'snowdb-bench-ingest-'));
  try {
    const root = join(dir, 'db');
    await initDatabase(root);
    await createDataset(await Database.open(root), 'snodas', 'snodas');
    const stems = await writeMembers(join(dir, 'gen'), '20240115', 'current', 'txt');
    const tar = await tarOf(join(dir, 'SNODAS_20240115.tar'), join(dir, 'gen'), memberNames(stems, 'txt'));
    const mb = ((await stat(tar)).size / 1e6).toFixed(1);
    const db = await Database.open(root);
    const full = await time(3, () => ingestSources(db, 'snodas', [tar], { force: true }), 0);
    const skip = await time(21, () => ingestSources(db, 'snodas', [tar]));
    return [
      {
        scenario: `ingest one SNODAS daily tar (${mb} MB; 8 products → 8 COGs, deflate L1), in-process`,
        median_ms: median(full).toFixed(0),
        target: '< 4000',
      },
      {
        scenario: `the same tar again, up to date (plan + sha256 of ${mb} MB, manifest check)`,
        median_ms: median(skip).toFixed(1),
        target: '< 50',
      },
    ];
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
