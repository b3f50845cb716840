import { availableParallelism } from 'node:os';
import { openActiveDataset } from '../datasets/registry.js';
import type { Database } from '../db/database.js';
import type { ApiConfig } from '../db/root-config.js';
import { indexOf } from '../pourpoints/store.js';
import { MAX_QUERY_VALUES, MAX_ZONE_CELLS } from '../stats/limits.js';
import type { AdmissionLimits } from './admission.js';

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

/** Every bound a server puts on one request (docs/reference.md#limits). */
export interface ServeLimits extends AdmissionLimits {
  /** Longest request target (path and query), bytes; longer is 414. */
  readonly maxUrlBytes: number;
  /** Most cells of a zone crossing, and numbers (dates × cells × columns) of an answer. */
  readonly maxZoneCells: number;
  readonly maxValues: number;
}

export const DEFAULT_LIMITS: ServeLimits = {
  maxUrlBytes: 8192,
  concurrency: Math.max(2, availableParallelism()),
  queue: 64,
  timeoutMs: 60_000,
  maxZoneCells: MAX_ZONE_CELLS,
  maxValues: MAX_QUERY_VALUES,
};

/** The limits in force: flags over the root config's `api` block over the defaults. */
export function serveLimits(config: ApiConfig | undefined, flags: ApiConfig = {}): ServeLimits {
  const c: ApiConfig = { ...config, ...flags }; // flags come parsed: absent ones have no key
  return {
    maxUrlBytes: c.max_url_bytes ?? DEFAULT_LIMITS.maxUrlBytes,
    concurrency: c.concurrency ?? DEFAULT_LIMITS.concurrency,
    queue: c.queue ?? DEFAULT_LIMITS.queue,
    timeoutMs: c.timeout_s === undefined ? DEFAULT_LIMITS.timeoutMs : c.timeout_s * 1000,
    maxZoneCells: c.max_zone_cells ?? DEFAULT_LIMITS.maxZoneCells,
    maxValues: c.max_values ?? DEFAULT_LIMITS.maxValues,
  };
}
