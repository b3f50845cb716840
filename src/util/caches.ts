/**
 * The process's caches, all named here with their default budgets (608 MiB in all: they fit a
 * 2-core, 4 GB host beside the worker threads). A module makes its cache with `namedCache`; the
 * composition root (the CLI's context, which `api serve` runs in) sizes them from the settings
 * (`sizeCaches`), before or after they are made; `cacheReport` tells what each holds and how it
 * has served (the server's /status and its shutdown log).
 */
import { AsyncLru, type CacheStats } from './lru.js';

const MIB = 1024 * 1024;

/** Every cache: what it holds and its default budget, MiB. */
export const CACHES = {
  basins: { what: "basins prepared for a query's zone axes (pixels, cells, weights)", mib: 64 },
  normals: { what: 'reference tables of normals (day × cell × column × year)', mib: 64 },
  'series-blocks': { what: 'decoded series-store blocks (small, repeated queries)', mib: 64 },
  'basin-records': { what: 'basin records with their polygons as JSON bytes', mib: 64 },
  'basin-outlines': { what: 'simplified basin outlines (GeoJSON bytes) for the map', mib: 32 },
  'replica-files': { what: "a replica's whole small files (configs, indexes, records)", mib: 64 },
  'replica-chunks': { what: "a replica's blob bytes in 64 KiB chunks", mib: 256 },
} as const;

export type CacheName = keyof typeof CACHES;

const made = new Map<CacheName, AsyncLru<unknown>>();
/** Budgets the settings named, MiB. */
const configured = new Map<CacheName, number>();

const budget = (name: CacheName): number => (configured.get(name) ?? CACHES[name].mib) * MIB;

/** The cache `name` (made on first call, then the same one), sized by the settings or its default. */
export function namedCache<V>(name: CacheName, sizeOf: (v: V) => number): AsyncLru<V> {
  const had = made.get(name);
  if (had !== undefined) return had as AsyncLru<V>;
  const lru = new AsyncLru<V>(budget(name), sizeOf);
  made.set(name, lru as AsyncLru<unknown>);
  return lru;
}

const isCache = (n: string): n is CacheName => Object.hasOwn(CACHES, n);

/**
 * Size the caches: `mib` gives budgets in MiB by name; every other cache has its default.
 * @returns the names in `mib` that are no cache (nothing is changed then).
 */
export function sizeCaches(mib: Readonly<Record<string, number>>): string[] {
  const unknown = Object.keys(mib).filter((n) => !isCache(n));
  if (unknown.length > 0) return unknown;
  configured.clear();
  for (const [n, v] of Object.entries(mib)) if (isCache(n)) configured.set(n, v);
  for (const [n, lru] of made) lru.resize(budget(n));
  return [];
}

/** One cache's report: its name and purpose, then what it holds and how it has served. */
export interface CacheReport extends CacheStats {
  readonly name: CacheName;
  readonly what: string;
}

/** Every cache, by name (one not made yet in this process reports empty). */
export function cacheReport(): CacheReport[] {
  return (Object.keys(CACHES) as CacheName[]).sort().map((name) => ({
    name,
    what: CACHES[name].what,
    ...(made.get(name)?.stats() ?? { entries: 0, bytes: 0, maxBytes: budget(name), hits: 0, misses: 0 }),
  }));
}
