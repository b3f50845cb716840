import type { TypedArray } from './dtype.js';

/**
 * A bounded LRU of decoded tiles, keyed by source and tile. It caches promises so concurrent
 * readers of one tile share one fetch, and forgets a promise that rejects.
 */
export class TileCache {
  private readonly entries = new Map<string, { promise: Promise<TypedArray>; bytes: number }>();
  private used = 0;
  /** Tiles decoded (cache misses) since creation. */
  misses = 0;
  /** Tiles served from the cache. */
  hits = 0;

  /** @param maxBytes upper bound of decoded bytes held (default 256 MiB). */
  constructor(readonly maxBytes = 256 * 1024 * 1024) {}

  get size(): number {
    return this.entries.size;
  }

  get bytes(): number {
    return this.used;
  }

  peek(key: string): Promise<TypedArray> | undefined {
    const e = this.entries.get(key);
    if (e === undefined) return undefined;
    this.entries.delete(key);
    this.entries.set(key, e);
    this.hits++;
    return e.promise;
  }

  /** Cache `promise` under `key`; `bytes` is the decoded size used for the bound. */
  put(key: string, promise: Promise<TypedArray>, bytes: number): Promise<TypedArray> {
    this.misses++;
    const old = this.entries.get(key);
    if (old) this.used -= old.bytes;
    this.entries.set(key, { promise, bytes });
    this.used += bytes;
    promise.catch(() => {
      if (this.entries.get(key)?.promise === promise) {
        this.entries.delete(key);
        this.used -= bytes;
      }
    });
    while (this.used > this.maxBytes && this.entries.size > 1) {
      const [oldest, e] = this.entries.entries().next().value as [string, { bytes: number }];
      this.entries.delete(oldest);
      this.used -= e.bytes;
    }
    return promise;
  }

  clear(): void {
    this.entries.clear();
    this.used = 0;
  }
}
