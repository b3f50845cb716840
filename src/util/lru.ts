/**
 * Values made by async functions, kept by key and evicted least recently used once their sizes
 * (known when each resolves) pass `maxBytes`. Concurrent asks for one key share one make; a failed
 * make is forgotten. The newest value is kept even when it alone is over the budget.
 *
 * Each ask may bring an AbortSignal: an ask whose signal aborts rejects at once with its reason,
 * and the shared make's own signal aborts when every ask waiting on it has left (an ask without
 * a signal never leaves), so abandoned work stops while work someone still waits for goes on.
 */
interface Entry<V> {
  readonly value: Promise<V>;
  readonly control: AbortController;
  /** Asks still waiting on an unsettled make; Infinity once one without a signal came. */
  waiting: number;
  settled: boolean;
  bytes: number;
}

export class AsyncLru<V> {
  private readonly entries = new Map<string, Entry<V>>();
  private bytes = 0;

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
    let entry = this.entries.get(key);
    if (entry?.control.signal.aborted) entry = undefined; // being given up
    if (entry !== undefined) {
      this.entries.delete(key);
      this.entries.set(key, entry);
    } else entry = this.start(key, make);
    return entry.settled ? entry.value : this.wait(entry, signal);
  }

  private start(key: string, make: (signal: AbortSignal) => Promise<V>): Entry<V> {
    const control = new AbortController();
    const value = make(control.signal);
    const entry: Entry<V> = { value, control, waiting: 0, settled: false, bytes: 0 };
    this.entries.set(key, entry);
    value.then(
      (v) => {
        entry.settled = true;
        if (this.entries.get(key) !== entry) return; // evicted while it was made
        entry.bytes = this.sizeOf(v);
        this.bytes += entry.bytes;
        for (const [k, e] of this.entries) {
          if (this.bytes <= this.maxBytes || this.entries.size <= 1) break;
          this.entries.delete(k);
          this.bytes -= e.bytes;
        }
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
        if (--entry.waiting === 0 && !entry.settled) entry.control.abort(signal.reason);
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
