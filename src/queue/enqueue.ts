/**
 * Run a batch of jobs on the queue and wait for every result: one BullMQ job per item (retried
 * with backoff when a worker throws or dies), results in the items' order. Redis unreachable for
 * longer than the grace period ends the wait with a clear error, never a hang.
 */
import { randomUUID } from 'node:crypto';
import { Job, Queue, QueueEvents } from 'bullmq';
import { Redis } from 'ioredis';
import { SnowdbError } from '../errors.js';
import { checkRedis, redisOptions, shownUrl } from './connection.js';

export interface Batch<D, R> {
  readonly url: string;
  readonly queue: string;
  /** The job kind (the workers' registry key). */
  readonly kind: string;
  readonly items: readonly D[];
  /** The result of an item whose every attempt threw (or whose worker died each time). */
  readonly failed: (item: D, reason: string) => R;
  /** ms Redis may stay unreachable before the wait gives up. */
  readonly graceMs: number;
  readonly onResult?: (r: R, done: number, total: number) => void;
}

/** Attempts per job, and the first retry's delay (ms; doubling). */
export const ATTEMPTS = 3;
const BACKOFF_MS = 1000;
const RECONCILE_MS = 2000;

/** Resolve after `ms`, or reject with `what` timed out. */
function within<T>(p: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what}: no answer in ${ms} ms`)), ms);
  });
  return Promise.race([p, timeout]).finally(() => clearTimeout(timer));
}

/**
 * Enqueue every item and wait until each has a result.
 * @throws SnowdbError `queue-unreachable` when Redis cannot be reached, at the start or for
 *   longer than `graceMs` during the run (finished jobs stay done: a rerun skips their dates).
 */
export async function runOnQueue<D, R>(b: Batch<D, R>): Promise<R[]> {
  await checkRedis(b.url);
  const connection = redisOptions(b.url);
  const queue = new Queue(b.queue, { connection });
  const events = new QueueEvents(b.queue, { connection });
  const quiet = () => {}; // connection errors are judged by the watchdog below
  queue.on('error', quiet);
  events.on('error', quiet);
  const results = new Array<R>(b.items.length);
  const pending = new Map<string, number>(); // job id → item index
  let done = 0;
  let settle: (e?: Error) => void = () => {};
  const finished = new Promise<void>((resolve, reject) => {
    settle = (e) => (e ? reject(e) : resolve());
  });
  const take = (id: string, r: R) => {
    const i = pending.get(id);
    if (i === undefined) return;
    pending.delete(id);
    results[i] = r;
    b.onResult?.(r, ++done, b.items.length);
    if (pending.size === 0) settle();
  };
  /**
   * A job's outcome from Redis: its result, or its failure once no attempt is left. The state is
   * read first and the job after it: completed and failed are final, so the job then holds its
   * outcome (read the other way round, a job ending between the two reads gave a null result).
   */
  const look = async (id: string): Promise<void> => {
    const state = await queue.getJobState(id);
    if (state !== 'completed' && state !== 'failed') return;
    const job = await Job.fromId(queue, id);
    if (!job) return;
    if (state === 'completed') take(id, job.returnvalue as R);
    else take(id, b.failed(b.items[pending.get(id)!]!, job.failedReason));
  };
  events.on('completed', ({ jobId }) => void look(jobId).catch(quiet));
  events.on('failed', ({ jobId }) => void look(jobId).catch(quiet));
  // Its own connection for PING: commands fail at once while Redis is away (no offline queue).
  const probe = new Redis({
    ...connection,
    maxRetriesPerRequest: 0,
    enableOfflineQueue: false,
    retryStrategy: (n) => Math.min(200 * n, 1000),
  });
  probe.on('error', quiet);
  let lastSeen = Date.now();
  const watchdog = setInterval(async () => {
    try {
      await within(probe.ping(), 1000, 'PING');
      lastSeen = Date.now();
      // Events missed across a reconnect: ask for the jobs still waited on.
      for (const id of [...pending.keys()].slice(0, 200)) await look(id);
    } catch {
      if (Date.now() - lastSeen > b.graceMs)
        settle(
          new SnowdbError(
            'queue-unreachable',
            `lost Redis at ${shownUrl(b.url)} with ${done} of ${b.items.length} jobs done; run the same command again when it is back (what is done is skipped)`,
          ),
        );
    }
  }, RECONCILE_MS);
  try {
    await within(events.waitUntilReady(), 5000, 'the queue events');
    if (b.items.length === 0) return results;
    const run = randomUUID();
    const ids = b.items.map((_, i) => `${run}-${i}`);
    for (const [i, id] of ids.entries()) pending.set(id, i);
    await queue.addBulk(
      b.items.map((data, i) => ({
        name: b.kind,
        data,
        opts: {
          jobId: ids[i]!,
          attempts: ATTEMPTS,
          backoff: { type: 'exponential', delay: BACKOFF_MS },
          removeOnComplete: { age: 24 * 3600 },
          removeOnFail: { age: 7 * 24 * 3600 },
        },
      })),
    );
    await finished;
    return results;
  } finally {
    clearInterval(watchdog);
    probe.disconnect();
    // Closing talks to Redis; when it is gone, drop the connections instead of waiting.
    await within(Promise.all([queue.close(), events.close()]), 2000, 'closing').catch(() => {
      void queue.disconnect().catch(quiet);
      void events.disconnect().catch(quiet);
    });
  }
}
