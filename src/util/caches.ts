/**
 * The caches a runtime owns, all named here with their default budgets (808 MiB in all: they fit
 * a 2-core, 4 GB host beside the worker threads). The composition root (the CLI's context, which
 * `api serve` and `worker` run in) makes one `Caches` sized from the settings, inside its
 * `Runtime`; a module asks the runtime it is given for its cache by name, and `report` tells what
 * each holds and how it has served (the server's /status and its shutdown log).
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
  nesting: { what: 'the basins each basin lies in and holds (parents, children)', mib: 8 },
  'group-coverage': { what: "groups' unions: exact coverage weights per dataset grid", mib: 32 },
  'replica-files': { what: "a replica's whole small files (configs, indexes, records)", mib: 64 },
  'replica-chunks': { what: "a replica's blob bytes in 64 KiB chunks", mib: 256 },
  sweeps: { what: "every-basin layouts (all basins' pixels, weights, cells)", mib: 160 },
} as const;

export type CacheName = keyof typeof CACHES;

/** Budgets in MiB by cache name; a name not given has its default. */
export type CacheBudgets = Partial<Readonly<Record<CacheName, number>>>;

export const isCache = (n: string): n is CacheName => Object.hasOwn(CACHES, n);

/** One cache's report: its name and purpose, then what it holds and how it has served. */
export interface CacheReport extends CacheStats {
  readonly name: CacheName;
  readonly what: string;
}

/**
 * A set of the named caches, each made on first use and sized by `budgets` (MiB) or its default.
 * A runtime owns one; nothing else holds a cache.
 */
export class Caches {
  private readonly made = new Map<CacheName, AsyncLru<unknown>>();

  constructor(private readonly budgets: CacheBudgets = {}) {}

  private budget(name: CacheName): number {
    return (this.budgets[name] ?? CACHES[name].mib) * MIB;
  }

  /** The cache `name` (made on first call, then the same one; `sizeOf` counts an entry's bytes). */
  get<V>(name: CacheName, sizeOf: (v: V) => number): AsyncLru<V> {
    const had = this.made.get(name);
    if (had !== undefined) return had as AsyncLru<V>;
    const lru = new AsyncLru<V>(this.budget(name), sizeOf);
    this.made.set(name, lru as AsyncLru<unknown>);
    return lru;
  }

  /** Every cache, by name (one not made yet reports empty). */
  report(): CacheReport[] {
    return (Object.keys(CACHES) as CacheName[]).sort().map((name) => ({
      name,
      what: CACHES[name].what,
      ...(this.made.get(name)?.stats() ?? {
        entries: 0,
        bytes: 0,
        maxBytes: this.budget(name),
        hits: 0,
        misses: 0,
      }),
    }));
  }

  /** Let every entry of cache `name` (default: of every cache) go; the caches stay, with their counts. */
  clear(name?: CacheName): void {
    for (const [n, lru] of this.made) if (name === undefined || n === name) lru.clear();
  }
}
