/**
 * The process's runtime in one place: its caches (util/caches.ts, sized by SNOWDB_CACHE_MB) and
 * worker threads (util/workers.ts, SNOWDB_THREADS), configured once from the settings by the
 * composition root (the CLI's context, which `api serve` and `worker` run in), and what they hold
 * and did, for `/status` and the server's shutdown log. Stores belong to each `Database`.
 */
import { scanPoolStats } from '../stats/series-path.js';
import { type CacheReport, cacheReport } from '../util/caches.js';
import type { PoolStats } from '../util/workers.js';
import { applyCacheSizes, applyThreads, type Settings } from './settings.js';

/**
 * Size the caches and worker pools from the settings.
 * @throws SnowdbError `usage-error` for a malformed SNOWDB_CACHE_MB or SNOWDB_THREADS.
 */
export function configureRuntime(s: Settings): void {
  applyCacheSizes(s);
  applyThreads(s);
}

/** What the caches hold and how they served; what the stats-scan worker threads did. */
export function runtimeReport(): { caches: CacheReport[]; workers: PoolStats } {
  return { caches: cacheReport(), workers: scanPoolStats() };
}
