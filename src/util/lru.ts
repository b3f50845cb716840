/**
 * Values made by async functions, kept by key and evicted least recently used once their sizes
 * (known when each resolves; with the key and the entry's own cost) pass `maxBytes`. Concurrent asks for one key share one make; a failed
 * make is forgotten. The newest value is kept even when it alone is over the budget.
 *
 * Each ask may bring an AbortSignal: an ask whose signal aborts rejects at once with its reason,
 * and the shared make's own signal aborts when every ask waiting on it has left (an ask without
 * a signal never leaves), so abandoned work stops while work someone still waits for goes on.
 */
/** What an entry costs beside its value and key, bytes: the entry, its promise and AbortController (measured ~0.9 KiB). */
const ENTRY_BYTES = 1024;

interface Entry<V> {
  readonly value: Promise<V>;
  /** Aborts the make when every ask has left; null for a value the caller made (`put`). */
  readonly control: AbortController | null;
  /** Asks still waiting on an unsettled make; Infinity once one without a signal came. */
  waiting: number;
  settled: boolean;
  bytes: number;
}

/** What a cache holds and how it has served: entries, counted bytes, its budget, hits and misses. */
export interface CacheStats {
  readonly entries: number;
  readonly bytes: number;
  readonly maxBytes: number;
  readonly hits: number;
  readonly misses: number;
}

export class AsyncLru<V> {
  private readonly entries = new Map<string, Entry<V>>();
  private bytes = 0;
  private hits = 0;
  private misses = 0;

  constructor(
    private readonly maxBytes: number,
    private readonly sizeOf: (v: V) => number,
  ) {}

  /** Whether `key` is held (made or being made), without touching its recency. */
  has(key: string): boolean {
    return this.entries.has(key);
  }

  get(key: string, make: (signal: AbortSignal) => Promise<V>, signal?: AbortSignal): Promise<V> {
    signal?.throwIfAborted();
    const entry = this.touch(key) ?? this.made(key, make);
    return entry.settled ? entry.value : this.wait(entry, signal);
  }

  /** The value held for `key` (a hit, made most recent), or undefined (nothing counted). */
  peek(key: string): Promise<V> | undefined {
    return this.touch(key)?.value;
  }

  /** Hold `value` under `key` (a miss: the caller made it), replacing any entry. */
  put(key: string, value: Promise<V>): Promise<V> {
    this.drop(key);
    return this.start(key, value, null).value; // no AbortController: ~3 µs each, a query's 1,000s of blocks
  }

  /** Entries, counted bytes, budget, hits and misses. */
  stats(): CacheStats {
    return {
      entries: this.entries.size,
      bytes: this.bytes,
      maxBytes: this.maxBytes,
      hits: this.hits,
      misses: this.misses,
    };
  }

  /** Forget every entry (counts stay). */
  clear(): void {
    this.entries.clear();
    this.bytes = 0;
  }

  /** A live entry for `key`, made most recent and counted a hit; undefined (no count) when none. */
  private touch(key: string): Entry<V> | undefined {
    const entry = this.entries.get(key);
    if (entry === undefined || entry.control?.signal.aborted) return undefined; // absent, or being given up
    this.entries.delete(key);
    this.entries.set(key, entry);
    this.hits++;
    return entry;
  }

  private drop(key: string): void {
    const old = this.entries.get(key);
    if (old === undefined) return;
    this.entries.delete(key);
    this.bytes -= old.bytes;
  }

  private evict(): void {
    for (const [k, e] of this.entries) {
      if (this.bytes <= this.maxBytes || this.entries.size <= 1) break;
      this.entries.delete(k);
      this.bytes -= e.bytes;
    }
  }

  private made(key: string, make: (signal: AbortSignal) => Promise<V>): Entry<V> {
    const control = new AbortController();
    return this.start(key, make(control.signal), control);
  }

  private start(key: string, value: Promise<V>, control: AbortController | null): Entry<V> {
    this.misses++;
    const entry: Entry<V> = { value, control, waiting: 0, settled: false, bytes: 0 };
    this.entries.set(key, entry);
    value.then(
      (v) => {
        entry.settled = true;
        if (this.entries.get(key) !== entry) return; // evicted while it was made
        entry.bytes = this.sizeOf(v) + 2 * key.length + ENTRY_BYTES; // the key as UTF-16, at most
        this.bytes += entry.bytes;
        this.evict();
      },
      () => {
        entry.settled = true;
        if (this.entries.get(key) === entry) this.entries.delete(key);
      },
    );
    return entry;
  }

  /** The entry's value for one ask, or that ask's abort reason when it leaves first. */
  private wait(entry: Entry<V>, signal?: AbortSignal): Promise<V> {
    if (signal === undefined) {
      entry.waiting = Number.POSITIVE_INFINITY;
      return entry.value;
    }
    entry.waiting++;
    return new Promise<V>((resolve, reject) => {
      const leave = () => {
        if (--entry.waiting === 0 && !entry.settled) entry.control?.abort(signal.reason);
        reject(signal.reason);
      };
      signal.addEventListener('abort', leave, { once: true });
      entry.value.then(
        (v) => {
          signal.removeEventListener('abort', leave);
          entry.waiting--;
          resolve(v);
        },
        (e: unknown) => {
          signal.removeEventListener('abort', leave);
          entry.waiting--;
          reject(e);
        },
      );
    });
  }
}
