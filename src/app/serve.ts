import { openActiveDataset } from '../datasets/registry.js';
import type { Database } from '../db/database.js';
import { indexOf } from '../pourpoints/store.js';

/** What a server over a database will serve. */
export interface Servable {
  readonly active: readonly string[];
  readonly pourpoints: number;
}

/**
 * Check a database can be served: every active dataset's config and the pourpoint index load (or
 * the server would fail on every request).
 * @throws SnowdbError `invalid-config` and the like, naming the file.
 */
export async function checkServable(db: Database): Promise<Servable> {
  const active = Object.entries(db.config.datasets)
    .filter(([, l]) => l.active)
    .map(([n]) => n);
  for (const name of active) await openActiveDataset(db, name);
  return { active, pourpoints: (await indexOf(db)).size };
}
