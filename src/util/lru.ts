/**
 * Values made by async functions, kept by key and evicted least recently used once their sizes
 * (known when each resolves) pass `maxBytes`. Concurrent asks for one key share one promise; a
 * failed make is forgotten. The newest value is kept even when it alone is over the budget.
 */
export class AsyncLru<V> {
  private readonly entries = new Map<string, { value: Promise<V>; bytes: number }>();
  private bytes = 0;

  constructor(
    private readonly maxBytes: number,
    private readonly sizeOf: (v: V) => number,
  ) {}

  /** Whether `key` is held (made or being made), without touching its recency. */
  has(key: string): boolean {
    return this.entries.has(key);
  }

  async get(key: string, make: () => Promise<V>): Promise<V> {
    const hit = this.entries.get(key);
    if (hit !== undefined) {
      this.entries.delete(key);
      this.entries.set(key, hit);
      return hit.value;
    }
    const entry = { value: make(), bytes: 0 };
    this.entries.set(key, entry);
    try {
      const v = await entry.value;
      if (this.entries.get(key) !== entry) return v; // evicted while it was made
      entry.bytes = this.sizeOf(v);
      this.bytes += entry.bytes;
      for (const [k, e] of this.entries) {
        if (this.bytes <= this.maxBytes || this.entries.size <= 1) break;
        this.entries.delete(k);
        this.bytes -= e.bytes;
      }
      return v;
    } catch (e) {
      if (this.entries.get(key) === entry) this.entries.delete(key);
      throw e;
    }
  }
}
