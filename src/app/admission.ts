import { SnowdbError } from '../errors.js';

/** How much expensive work a server takes on (docs/reference.md#limits). */
export interface AdmissionLimits {
  /** Expensive queries computing at once. */
  readonly concurrency: number;
  /** Expensive queries waiting for a slot; one more is refused with 503 + Retry-After. */
  readonly queue: number;
  /** Time from arrival to answer, ms, queueing included; then 503 `query-timeout`. */
  readonly timeoutMs: number;
}

interface Waiter {
  readonly start: () => void;
}

/** Seconds a refused client should wait: the backlog at the mean run time, 1..60 s. */
const retryAfterS = (meanMs: number, backlog: number, concurrency: number): number =>
  Math.min(60, Math.max(1, Math.ceil(((backlog / concurrency) * meanMs) / 1000)));

/**
 * Admission control for expensive queries: at most `concurrency` run, at most `queue` wait in
 * arrival order, each has a deadline. A slot stays held until the work itself settles (an
 * abandoned query's work stops at its next check of the signal), so the bound is on real work.
 */
export class Admission {
  private running = 0;
  private readonly waiting: Waiter[] = [];
  /** Exponential mean of run times, ms (the Retry-After estimate). */
  private meanMs = 1000;

  constructor(readonly limits: AdmissionLimits) {}

  /** Queries computing and waiting now. */
  get load(): { running: number; waiting: number } {
    return { running: this.running, waiting: this.waiting.length };
  }

  /**
   * Run `work` in a slot, with a signal that aborts at the deadline (`timeoutMs` after the request
   * arrived, `elapsedMs` ago) or when `gone` aborts (the
   * client left). Rejects at once with `service-busy` when the queue is full, with
   * `query-timeout` at the deadline (whether waiting or running), with `client-closed` when the
   * client leaves.
   */
  async run<T>(work: (signal: AbortSignal) => Promise<T>, gone?: AbortSignal, elapsedMs = 0): Promise<T> {
    const { concurrency, queue, timeoutMs } = this.limits;
    if (this.running >= concurrency && this.waiting.length >= queue) {
      const retry = retryAfterS(this.meanMs, this.waiting.length + this.running, concurrency);
      throw new SnowdbError(
        'service-busy',
        `the server is computing ${this.running} expensive queries with ${this.waiting.length} waiting (the limit); retry in ${retry} s`,
        { retry_after: retry },
      );
    }
    const control = new AbortController();
    const leftMs = Math.max(0, timeoutMs - elapsedMs); // the request's own age counts (parsing, planning)
    const timer = setTimeout(() => {
      control.abort(
        new SnowdbError(
          'query-timeout',
          `the query took longer than the server's limit of ${timeoutMs / 1000} s; ask for fewer dates, zones or variables`,
          { limit_s: timeoutMs / 1000 },
        ),
      );
    }, leftMs);
    const onGone = () =>
      control.abort(new SnowdbError('client-closed', 'the client closed the connection before the answer'));
    gone?.addEventListener('abort', onGone, { once: true });
    const signal = control.signal;
    try {
      await this.slot(signal);
      if (signal.aborted) {
        this.release(); // abandoned between taking the slot and starting
        throw signal.reason;
      }
      const t0 = performance.now();
      const job = work(signal).finally(() => {
        this.meanMs = 0.8 * this.meanMs + 0.2 * (performance.now() - t0);
        this.release();
      });
      return await Promise.race([job, aborted(signal)]);
    } finally {
      clearTimeout(timer);
      gone?.removeEventListener('abort', onGone);
    }
  }

  /** Take a slot now, or wait in line until one frees or the signal aborts. */
  private slot(signal: AbortSignal): Promise<void> {
    if (this.running < this.limits.concurrency && this.waiting.length === 0) {
      this.running++;
      return Promise.resolve();
    }
    return new Promise<void>((resolve, reject) => {
      const waiter: Waiter = {
        start: () => {
          signal.removeEventListener('abort', leave);
          this.running++;
          resolve();
        },
      };
      const leave = () => {
        const i = this.waiting.indexOf(waiter);
        if (i >= 0) this.waiting.splice(i, 1);
        reject(signal.reason);
      };
      signal.addEventListener('abort', leave, { once: true });
      this.waiting.push(waiter);
    });
  }

  private release(): void {
    this.running--;
    while (this.running < this.limits.concurrency) {
      const next = this.waiting.shift();
      if (next === undefined) return;
      next.start();
    }
  }
}

/** A promise that rejects with the signal's reason when it aborts (never resolves). */
function aborted(signal: AbortSignal): Promise<never> {
  return new Promise((_resolve, reject) => {
    if (signal.aborted) reject(signal.reason);
    else signal.addEventListener('abort', () => reject(signal.reason), { once: true });
  });
}
