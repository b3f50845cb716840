/**
 * A pool of worker threads running one module (stats scans, ingest dates): each job is
 * one message in, one message out. Workers start on first use, hold the process open only while
 * busy, and stop after `idleMs` without work or at `close()` (their memory goes back). A worker
 * that fails is dropped, and its job rejects.
 */
import { availableParallelism } from 'node:os';
import { Worker } from 'node:worker_threads';

/** Worker threads a pool runs unless the settings say (SNOWDB_THREADS): the machine's cores. */
export const defaultThreads = (): number => Math.max(1, availableParallelism());

/** What a pool has done: its threads now and the jobs it ran. */
export interface PoolStats {
  readonly size: number;
  /** Threads running (busy or idle). */
  readonly threads: number;
  readonly idle: number;
  /** Jobs waiting for a thread. */
  readonly waiting: number;
  /** Jobs answered, and jobs that rejected (a failed, exited or aborted worker). */
  readonly jobs: number;
  readonly failed: number;
}

interface Idle {
  readonly worker: Worker;
  /** When it stops; none while the pool is kept warm. */
  readonly timer: NodeJS.Timeout | undefined;
}

export class WorkerPool<J, R> {
  private readonly idle: Idle[] = [];
  private readonly waiting: ((w: Worker) => void)[] = [];
  private started = 0;
  private jobs = 0;
  private failed = 0;
  /** Keep idle workers until `close()` (a server: the next long scan does not pay their start). */
  private warm = false;

  /**
   * `youngMb`: the workers' young generation (MB), small where jobs make short-lived garbage.
   * `graceMs`: with cooperative jobs (the job itself stops when its caller aborts, e.g. by a
   * shared flag it checks), how long an aborted job's worker may run on before it is terminated;
   * undefined: an aborted job's worker is terminated at once. Terminating a thread that is inside
   * zlib can abort the whole process (Node 20: "close before init"), so pools whose jobs inflate
   * should be cooperative.
   */
  constructor(
    private readonly module: URL,
    readonly size: number,
    private readonly idleMs = 10_000,
    private readonly youngMb?: number,
    private readonly graceMs?: number,
  ) {}

  /**
   * Run one job on a free worker (waiting for one when all are busy), the buffers in `transfer`
   * moved to it (not copied: they are unusable here afterwards). When `signal` aborts, the
   * job rejects at once with its reason; its worker is terminated then, or (a cooperative pool)
   * finishes the job, whose answer is dropped, and serves again (terminated if it is not done
   * within `graceMs`).
   */
  async run(job: J, signal?: AbortSignal, transfer: readonly ArrayBuffer[] = []): Promise<R> {
    signal?.throwIfAborted();
    const worker = await this.acquire();
    // The worker's own outcome decides what becomes of it, whether or not the caller waits.
    const answer = exchange<J, R>(worker, job, transfer).then(
      (r) => {
        this.jobs++;
        this.release(worker);
        return r;
      },
      (e: unknown) => {
        this.failed++;
        this.drop(worker);
        throw e;
      },
    );
    if (signal === undefined) return answer;
    answer.catch(() => {}); // the caller may have left: its rejection is handled below or dropped
    return new Promise<R>((resolve, reject) => {
      const onAbort = () => {
        reject(signal.reason);
        if (this.graceMs === undefined) void worker.terminate();
        else {
          const late = setTimeout(() => void worker.terminate(), this.graceMs).unref();
          void answer.finally(() => clearTimeout(late)).catch(() => {});
        }
      };
      signal.addEventListener('abort', onAbort, { once: true });
      answer.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
    });
  }

  /** Keep idle workers (true) until `close()`, or let them stop after `idleMs` again (false). */
  keepWarm(on: boolean): void {
    this.warm = on;
    for (const e of this.idle.splice(0)) {
      clearTimeout(e.timer);
      this.park(e.worker);
    }
  }

  stats(): PoolStats {
    const { size, started: threads, jobs, failed } = this;
    return { size, threads, idle: this.idle.length, waiting: this.waiting.length, jobs, failed };
  }

  private acquire(): Promise<Worker> {
    const free = this.idle.pop();
    if (free !== undefined) {
      clearTimeout(free.timer);
      return Promise.resolve(free.worker);
    }
    if (this.started < this.size) {
      this.started++;
      return Promise.resolve(this.spawn());
    }
    return new Promise((resolve) => this.waiting.push(resolve));
  }

  private spawn(): Worker {
    const limits =
      this.youngMb === undefined ? {} : { resourceLimits: { maxYoungGenerationSizeMb: this.youngMb } };
    return new Worker(this.module, limits);
  }

  /** Stop the idle workers now (busy ones stop when their job ends and no one waits). */
  async close(): Promise<void> {
    const idle = this.idle.splice(0);
    for (const e of idle) clearTimeout(e.timer);
    this.started -= idle.length;
    await Promise.all(idle.map((e) => e.worker.terminate()));
  }

  private release(worker: Worker): void {
    const next = this.waiting.shift();
    if (next !== undefined) {
      next(worker);
      return;
    }
    worker.unref();
    this.park(worker);
  }

  /** Hold an idle worker: until `idleMs` passes, or until `close()` while kept warm. */
  private park(worker: Worker): void {
    const timer = this.warm
      ? undefined
      : setTimeout(() => {
          const i = this.idle.findIndex((e) => e.worker === worker);
          if (i >= 0) this.idle.splice(i, 1);
          this.drop(worker);
        }, this.idleMs).unref();
    this.idle.push({ worker, timer });
  }

  private drop(worker: Worker): void {
    this.started--;
    void worker.terminate();
    const next = this.waiting.shift(); // a waiter gets a fresh worker in its place
    if (next !== undefined) {
      this.started++;
      next(this.spawn());
    }
  }
}

/** Post one job and wait for its answer (or the worker's failure), keeping the process alive meanwhile. */
function exchange<J, R>(worker: Worker, job: J, transfer: readonly ArrayBuffer[]): Promise<R> {
  worker.ref();
  return new Promise<R>((resolve, reject) => {
    const done = () => {
      worker.off('message', onMessage);
      worker.off('error', onError);
      worker.off('exit', onExit);
    };
    const onMessage = (r: R) => {
      done();
      resolve(r);
    };
    const onError = (e: Error) => {
      done();
      reject(e);
    };
    const onExit = (code: number) => {
      done();
      reject(new Error(`worker exited (${code})`));
    };
    worker.on('message', onMessage);
    worker.on('error', onError);
    worker.on('exit', onExit);
    worker.postMessage(job, transfer as ArrayBuffer[]);
  });
}
