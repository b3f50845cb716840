import { readFile } from 'node:fs/promises';
import { byString } from '../util/compare.js';
import type { Database } from './database.js';

/** One registered dataset as `status` reports it (later issues add artifacts and health). */
export interface DatasetStatus {
  readonly name: string;
  readonly active: boolean;
  readonly config: string;
}

export interface DbStatus {
  /** Absolute database directory. */
  readonly root: string;
  readonly datasets: readonly DatasetStatus[];
  /** Basin-bearing pourpoints in the index. */
  readonly pourpoints: number;
}

/** Inventory of a database: registered datasets (sorted by name) and indexed pourpoints. */
export async function readStatus(db: Database): Promise<DbStatus> {
  const datasets = Object.entries(db.config.datasets)
    .sort(([a], [b]) => byString(a, b))
    .map(([name, link]) => ({ name, active: link.active, config: link.path }));
  return { root: db.root, datasets, pourpoints: await countIndexed(db.paths.pourpointIndex) };
}

async function countIndexed(indexFile: string): Promise<number> {
  const text = await readFile(indexFile, 'utf8').catch(() => null);
  if (text === null) return 0;
  const json = JSON.parse(text) as { features?: unknown[] };
  return Array.isArray(json.features) ? json.features.length : 0;
}
