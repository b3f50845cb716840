/**
 * What a process runs on, owned in one object: its named caches, its worker-thread pools, its
 * long-lived shared resources (a replica's store) and the small state modules keep between calls
 * (the series views). The composition root (the CLI's context, which
 * `api serve` and `worker` run in) makes one from the settings and opens its database with it; a
 * database hands it to everything that reads through it. A database opened without one gets its
 * own, with the defaults.
 */
import { type CacheBudgets, type CacheName, type CacheReport, Caches } from './caches.js';
import type { AsyncLru } from './lru.js';
import { defaultThreads, type PoolStats, WorkerPool } from './workers.js';

export interface RuntimeOptions {
  /** Cache budgets, MiB by name (SNOWDB_CACHE_MB); the rest have their defaults. */
  readonly cacheMib?: CacheBudgets;
  /** Threads each pool may run (SNOWDB_THREADS); default the machine's cores. */
  readonly threads?: number;
}

/** How a pool's workers start: idle time before they stop, a young generation (MB), and (cooperative jobs) the grace of an aborted one (WorkerPool). */
export interface PoolOptions {
  readonly idleMs?: number;
  readonly youngMb?: number;
  readonly graceMs?: number;
}

/** What the runtime reports: every cache, and its pools' workers summed. */
export interface RuntimeReport {
  readonly caches: CacheReport[];
  readonly workers: PoolStats;
}

export class Runtime {
  readonly threads: number;
  private readonly caches: Caches;
  private readonly pools = new Map<string, WorkerPool<unknown, unknown>>();
  private readonly shared = new Map<string, Promise<unknown>>();
  private readonly state = new Map<string, unknown>();
  private warm = false;

  constructor(o: RuntimeOptions = {}) {
    this.caches = new Caches(o.cacheMib);
    this.threads = Math.max(1, Math.floor(o.threads ?? defaultThreads()));
  }

  /** The cache `name` (`sizeOf` counts an entry's bytes; the first caller's is kept). */
  cache<V>(name: CacheName, sizeOf: (v: V) => number): AsyncLru<V> {
    return this.caches.get(name, sizeOf);
  }

  /** The pool running `module` (made on first use, `threads` wide), shared by its callers. */
  pool<J, R>(module: URL, o: PoolOptions = {}): WorkerPool<J, R> {
    let p = this.pools.get(module.href);
    if (p === undefined) {
      p = new WorkerPool<unknown, unknown>(module, this.threads, o.idleMs, o.youngMb, o.graceMs);
      p.keepWarm(this.warm);
      this.pools.set(module.href, p);
    }
    return p as WorkerPool<J, R>;
  }

  /** Keep every pool's idle workers until `close()` (a long-lived server), now and for pools made later. */
  keepWorkersWarm(): void {
    this.warm = true;
    for (const p of this.pools.values()) p.keepWarm(true);
  }

  /**
   * The resource `key` names, made once by `make` and then shared; a failed make is forgotten (the
   * next caller tries again).
   */
  share<T>(key: string, make: () => Promise<T>): Promise<T> {
    let r = this.shared.get(key) as Promise<T> | undefined;
    if (r === undefined) {
      r = make();
      this.shared.set(key, r);
      r.catch(() => this.shared.delete(key));
    }
    return r;
  }

  /** State a module keeps for this runtime under `key` (made by `make` on first use). */
  held<T>(key: string, make: () => T): T {
    if (!this.state.has(key)) this.state.set(key, make());
    return this.state.get(key) as T;
  }

  /** Forget a shared resource (its holder closed it). */
  unshare(key: string): void {
    this.shared.delete(key);
  }

  report(): RuntimeReport {
    const zero: PoolStats = { size: this.threads, threads: 0, idle: 0, waiting: 0, jobs: 0, failed: 0 };
    const workers = [...this.pools.values()].reduce<PoolStats>((t, p) => {
      const s = p.stats();
      return {
        size: t.size,
        threads: t.threads + s.threads,
        idle: t.idle + s.idle,
        waiting: t.waiting + s.waiting,
        jobs: t.jobs + s.jobs,
        failed: t.failed + s.failed,
      };
    }, zero);
    return { caches: this.caches.report(), workers };
  }

  /** Let every entry of cache `name` go (default: of every cache). */
  clearCaches(name?: CacheName): void {
    this.caches.clear(name);
  }

  /** Stop the pools' idle workers (busy ones stop when their job ends). */
  async close(): Promise<void> {
    await Promise.all([...this.pools.values()].map((p) => p.close()));
  }
}
