/**
 * The worker-thread pool (util/workers.ts) on a real worker module: at most `size` threads, jobs
 * queued beyond them, a failed or aborted job's thread replaced, idle threads stopped.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { WorkerPool } from '../../src/util/workers.js';
import type { PoolJob } from '../helpers/pool.worker.js';

const MODULE = new URL('../helpers/pool.worker.js', import.meta.url);
type Answer = { n: number; thread: number };

describe('worker pool', () => {
  it('runs every job once on at most `size` threads, reusing them, queueing the rest', async () => {
    const pool = new WorkerPool<PoolJob, Answer>(MODULE, 2, 5_000);
    const answers = await Promise.all(Array.from({ length: 8 }, (_, n) => pool.run({ n, ms: 20 })));
    assert.deepEqual(
      answers.map((a) => a.n),
      [0, 1, 2, 3, 4, 5, 6, 7],
    );
    assert.equal(new Set(answers.map((a) => a.thread)).size, 2, 'two threads did all eight');
  });

  it('a job that throws or whose thread exits rejects; the next job runs on a fresh thread', async () => {
    const pool = new WorkerPool<PoolJob, Answer>(MODULE, 1, 5_000);
    const first = await pool.run({ n: 0 });
    await assert.rejects(pool.run({ n: 1, fail: true }), /job 1 failed/);
    const second = await pool.run({ n: 2 });
    assert.notEqual(second.thread, first.thread);
    await assert.rejects(pool.run({ n: 3, exit: true }), /worker exited \(3\)/);
    const third = await pool.run({ n: 4 });
    assert.ok(third.thread !== second.thread && third.thread !== first.thread);
  });

  it('an aborted job rejects at once with the reason; its busy thread is stopped and a waiting job gets a new one', async () => {
    const pool = new WorkerPool<PoolJob, Answer>(MODULE, 1, 5_000);
    const stop = new AbortController();
    const long = pool.run({ n: 0, ms: 60_000 }, stop.signal);
    const waiting = pool.run({ n: 1 }); // queued behind the long job: the only thread is busy
    const t0 = Date.now();
    setTimeout(() => stop.abort(new Error('client left')), 50);
    await assert.rejects(long, /client left/);
    const next = await waiting;
    assert.equal(next.n, 1);
    assert.ok(Date.now() - t0 < 10_000, 'the 60 s job did not run on');
    const gone = new AbortController();
    gone.abort(new Error('already gone'));
    await assert.rejects(pool.run({ n: 2 }, gone.signal), /already gone/);
  });

  it('cooperative: an aborted job rejects at once, its thread stops the job at its flag and serves the next; one that ignores it is stopped after the grace', async () => {
    const pool = new WorkerPool<PoolJob, Answer>(MODULE, 1, 5_000, undefined, 300);
    const cancel = new Int32Array(new SharedArrayBuffer(4));
    const stop = new AbortController();
    stop.signal.addEventListener('abort', () => Atomics.store(cancel, 0, 1));
    const first = await pool.run({ n: 0 });
    const long = pool.run({ n: 1, ms: 60_000, cancel }, stop.signal);
    setTimeout(() => stop.abort(new Error('client left')), 50);
    await assert.rejects(long, /client left/);
    const next = await pool.run({ n: 2 });
    assert.equal(next.thread, first.thread, 'the same thread: it was not terminated');
    // A job that never looks at a flag: its thread runs on for the grace, then is terminated.
    const deaf = new AbortController();
    const t0 = Date.now();
    const stuck = pool.run({ n: 3, ms: 60_000 }, deaf.signal);
    setTimeout(() => deaf.abort(new Error('gone')), 50);
    await assert.rejects(stuck, /gone/);
    const after = await pool.run({ n: 4 });
    assert.notEqual(after.thread, first.thread, 'a fresh thread after the grace');
    assert.ok(Date.now() - t0 < 10_000);
    await pool.close();
  });

  it('an idle thread stops after idleMs; the next job starts a new one', async () => {
    const pool = new WorkerPool<PoolJob, Answer>(MODULE, 1, 100);
    const a = await pool.run({ n: 0 });
    const b = await pool.run({ n: 1 });
    assert.equal(b.thread, a.thread, 'reused while warm');
    await new Promise((r) => setTimeout(r, 400));
    const c = await pool.run({ n: 2 });
    assert.notEqual(c.thread, a.thread);
  });

  it('kept warm, an idle thread outlives idleMs until close(); let go, it stops after idleMs again', async () => {
    const pool = new WorkerPool<PoolJob, Answer>(MODULE, 1, 100);
    pool.keepWarm(true);
    const a = await pool.run({ n: 0 });
    await new Promise((r) => setTimeout(r, 400));
    assert.equal(pool.stats().idle, 1);
    assert.equal((await pool.run({ n: 1 })).thread, a.thread, 'the same thread, 4 × idleMs later');
    pool.keepWarm(false);
    await new Promise((r) => setTimeout(r, 400));
    assert.equal(pool.stats().idle, 0);
    assert.notEqual((await pool.run({ n: 2 })).thread, a.thread);
    await pool.close();
  });

  it('close() stops the idle threads at once; the pool still serves after it', async () => {
    const pool = new WorkerPool<PoolJob, Answer>(MODULE, 2, 60_000);
    const [a, b] = await Promise.all([pool.run({ n: 0, ms: 20 }), pool.run({ n: 1, ms: 20 })]);
    assert.notEqual(a.thread, b.thread);
    await pool.close();
    const c = await pool.run({ n: 2 });
    assert.ok(c.thread !== a.thread && c.thread !== b.thread, 'a fresh thread');
    await pool.close();
  });
});
