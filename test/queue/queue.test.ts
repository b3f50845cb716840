/**
 * Work on a real job queue: a Debian redis-server on loopback and `snowdb worker` processes
 * sharing the database folder. A queued run must give the report and the database a local run
 * gives; a worker killed mid-job, or Redis lost mid-run, must not leave a date half-done.
 */
import assert from 'node:assert/strict';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { Queue } from 'bullmq';
import { queueName, redisOptions } from '../../src/queue/connection.js';
import { snodasArchiveFile } from '../helpers/archive.js';
import { cliOk, snowdb, spawnSnowdb, tempDir } from '../helpers/cli.js';
import { FileServer } from '../helpers/file-server.js';
import { logicalTree, snapshotTree } from '../helpers/fs.js';
import { RedisServer } from '../helpers/redis.js';
import { buildZionDb, zionZoneSources } from '../helpers/zion-db.js';

/** Three dates: one more than a worker's concurrency, so a date is still queued when one ends. */
const DATES = ['20240101', '20240102', '20240103'];
const RANGE = '2024-01-01/2024-01-03';
const iso = (d: string) => `${d.slice(0, 4)}-${d.slice(4, 6)}-${d.slice(6)}`;
type Report = { results: { date: string; action: string; bytes?: number }[] };

describe('the job queue: snowdb worker processes on a real Redis', () => {
  let dir: string;
  let cleanup: () => Promise<void>;
  let redis: RedisServer;
  let server: FileServer;
  let tars: string[];
  let local: { ingest: string; fetch: string };
  const workers = new Set<ReturnType<typeof spawnSnowdb>>();
  const env = (root: string, extra: Record<string, string> = {}) => ({
    SNOWDB_CONFIG: root,
    SNOWDB_SNODAS_URL: `${server.base}/snodas`,
    SNOWDB_FETCH_BACKOFF_MS: '10',
    SNOWDB_QUEUE_LOCK_MS: '1500',
    SNOWDB_QUEUE_GRACE_MS: '1500',
    HOME: dir,
    ...extra,
  });

  /** A fresh database with an empty snodas dataset. */
  const freshDb = async (name: string) => {
    const root = join(dir, name);
    const ok = cliOk(() => env(root));
    await ok('init', root);
    await ok('dataset', 'create', 'snodas', '--template', 'snodas');
    return root;
  };

  /** A `snowdb worker` process on the database; resolves once it listens, with its log so far. */
  const startWorker = async (root: string, extra: Record<string, string> = {}) => {
    const w = spawnSnowdb(['worker', '--queue', redis.url, '--concurrency', '2'], { env: env(root, extra) });
    workers.add(w);
    const log = { text: '' };
    w.stderr.setEncoding('utf8').on('data', (d: string) => (log.text += d));
    while (!/snowdb worker on/.test(log.text)) {
      if (w.exitCode !== null) throw new Error(`worker exited: ${log.text}`);
      await new Promise((r) => setTimeout(r, 50));
    }
    return { w, log };
  };
  const stopWorkers = async () => {
    await Promise.all(
      [...workers].map(async (w) => {
        if (w.exitCode === null && w.signalCode === null) {
          w.kill('SIGTERM');
          await new Promise((r) => w.once('close', r));
        }
      }),
    );
    workers.clear();
  };
  /** The database as a reader sees it, less its own creation time (snowdb.json's created_at). */
  const same = async (root: string) => {
    const t = await logicalTree(root);
    const { created_at: _, ...config } = JSON.parse(await readFile(join(root, 'snowdb.json'), 'utf8'));
    t.set('snowdb.json', JSON.stringify(config));
    return t;
  };
  const byDate = (r: Report) => r.results.map((x) => `${x.date} ${x.action}`).sort();

  before(async () => {
    ({ dir, cleanup } = await tempDir());
    redis = await RedisServer.start();
    const published = new Map<string, string>();
    for (const d of DATES) published.set(...(await snodasArchiveFile(dir, d)));
    tars = [...published.values()];
    server = await FileServer.start(published);
    // The local runs every queued run is compared with.
    local = { ingest: await freshDb('local-ingest'), fetch: await freshDb('local-fetch') };
    await cliOk(() => env(local.ingest))('dataset', 'ingest', 'snodas', ...tars);
    await cliOk(() => env(local.fetch))('dataset', 'fetch', 'snodas', '--dates', RANGE);
  });
  after(async () => {
    await stopWorkers();
    await redis.kill();
    await server.close();
    await cleanup();
  });

  it('fetch and ingest through two workers give the report and the database of a local run', async () => {
    const root = await freshDb('queued');
    await startWorker(root);
    await startWorker(root);
    const f = await snowdb(
      ['dataset', 'fetch', 'snodas', '--dates', RANGE, '--queue', redis.url, '--format', 'json'],
      {
        env: env(root),
      },
    );
    assert.equal(f.code, 0, f.stderr);
    const report = JSON.parse(f.stdout) as Report;
    assert.deepEqual(
      byDate(report),
      DATES.map((d) => `${iso(d)} ingested`),
    );
    assert.deepEqual(await same(root), await same(local.fetch));
    // Ingest of the same files again through the queue: every date up to date, nothing changed.
    const before = await snapshotTree(root);
    const i = await snowdb(
      ['dataset', 'ingest', 'snodas', ...tars, '--queue', redis.url, '--format', 'json'],
      {
        env: env(root),
      },
    );
    assert.equal(i.code, 0, i.stderr);
    assert.deepEqual(
      byDate(JSON.parse(i.stdout) as Report),
      DATES.map((d) => `${iso(d)} up-to-date`),
    );
    assert.deepEqual(await snapshotTree(root), before);
    // A malformed job put on the queue by anyone else: failed at once, not retried, the worker
    // still serving and the database untouched.
    const queue = new Queue(queueName(root), { connection: redisOptions(redis.url) });
    try {
      const job = await queue.add('ingest-date', { root: 'db', name: 'snodas' }, { attempts: 3 });
      while ((await job.getState()) !== 'failed') await new Promise((r) => setTimeout(r, 50));
      const failed = await queue.getJob(job.id!);
      assert.equal(failed?.attemptsMade, 1, 'no retry');
      assert.match(failed?.failedReason ?? '', /'ingest-date' job is malformed at root: an absolute path/);
    } finally {
      await queue.close();
    }
    assert.ok([...workers].every((w) => w.exitCode === null));
    assert.deepEqual(await snapshotTree(root), before);
    await stopWorkers();
  });

  it('generate-zones and rebuild-series through two workers: the layers and store of a local run; a bad source fails as locally', async () => {
    const local = join(dir, 'zion-local');
    const queued = join(dir, 'zion-queued');
    const localEnv = await buildZionDb(local);
    const queuedEnv = await buildZionDb(queued);
    const q = queuedEnv.SNOWDB_CONFIG!;
    const zones = [
      'dataset',
      'generate-zones',
      'snodas',
      ...zionZoneSources(),
      '--force',
      '--format',
      'json',
    ];
    const rebuild = ['dataset', 'rebuild-series', 'snodas', '--format', 'json'];
    const l1 = await snowdb(zones, { env: localEnv });
    const l2 = await snowdb(rebuild, { env: localEnv });
    assert.equal(l1.code + l2.code, 0, l1.stderr + l2.stderr);
    const ws = [await startWorker(q), await startWorker(q)];
    const jobs = (kind: string) =>
      ws.map((w) => w.log.text.split(`start ${kind} `).length - 1).reduce((a, b) => a + b);
    const z = await snowdb([...zones, '--queue', redis.url], { env: env(q) });
    assert.equal(z.code, 0, z.stderr);
    // The same outcomes (one shared read per provider, as locally), in the same order.
    assert.deepEqual(JSON.parse(z.stdout), JSON.parse(l1.stdout));
    assert.deepEqual(
      (JSON.parse(z.stdout) as { provider: string; action: string }[]).map(
        (o) => `${o.provider} ${o.action}`,
      ),
      ['terrain generated', 'landcover generated'],
    );
    const r = await snowdb([...rebuild, '--queue', redis.url], { env: env(q) });
    assert.equal(r.code, 0, r.stderr);
    const report = JSON.parse(r.stdout) as { pages: number; dates: number; variables: string[] };
    assert.deepEqual(report, JSON.parse(l2.stdout));
    // depth and swe, one page each (both dates in 2024): 2 page jobs.
    assert.deepEqual([report.variables, report.pages, report.dates], [['depth', 'swe'], 2, 2]);
    assert.deepEqual([jobs('zones-provider'), jobs('series-page')], [2, 2], 'the workers did the work');
    assert.deepEqual(await snapshotTree(q), await snapshotTree(localEnv.SNOWDB_CONFIG!));
    // A source that is not a TIFF: the local run's message and exit code, not retried, nothing changed.
    const bad = join(dir, 'not-a.tif');
    await writeFile(bad, 'garbage');
    const before = await snapshotTree(q);
    const badArgs = [
      'dataset',
      'generate-zones',
      'snodas',
      '--source',
      'terrain',
      bad,
      '--provider',
      'terrain',
    ];
    const lb = await snowdb(badArgs, { env: localEnv });
    const qb = await snowdb([...badArgs, '--queue', redis.url], { env: env(q) });
    assert.equal(lb.code, 1);
    assert.equal(qb.code, 1);
    assert.match(qb.stderr, /not-a\.tif: not a TIFF/);
    assert.equal(qb.stderr, lb.stderr);
    assert.deepEqual(await snapshotTree(q), before);
    await stopWorkers();
  });

  it('a worker killed mid-job (kill -9): its date is retried by another, every date done once, the database as a local run', async () => {
    const root = await freshDb('killed');
    const a = await startWorker(root);
    // The enqueuer's swap pause travels with each job: dates take ~3 s, long enough to kill inside.
    const run = snowdb(['dataset', 'ingest', 'snodas', ...tars, '--queue', redis.url, '--format', 'json'], {
      env: env(root, { SNOWDB_TEST_SWAP_PAUSE_MS: '1000' }),
    });
    while (!/start ingest-date/.test(a.log.text)) await new Promise((r) => setTimeout(r, 20));
    a.w.kill('SIGKILL');
    const b = await startWorker(root);
    const r = await run;
    assert.equal(r.code, 0, r.stderr);
    const report = JSON.parse(r.stdout) as Report;
    assert.deepEqual(report.results.map((x) => x.date).sort(), DATES.map(iso), 'each date reported once');
    for (const x of report.results) assert.match(x.action, /^(ingested|up-to-date)$/, JSON.stringify(x));
    assert.match(b.log.text, /start ingest-date/, 'the second worker took over');
    assert.deepEqual(await same(root), await same(local.ingest));
    await stopWorkers();
  });

  it('Redis and a worker lost mid-run: a clear error within the grace period; a rerun converges', async () => {
    const root = await freshDb('lost');
    const w = await startWorker(root);
    const args = ['dataset', 'ingest', 'snodas', ...tars, '--queue', redis.url];
    const run = snowdb(args, { env: env(root, { SNOWDB_TEST_SWAP_PAUSE_MS: '700' }) });
    while (!/done ingest-date/.test(w.log.text)) await new Promise((r) => setTimeout(r, 20));
    await redis.kill();
    const t = Date.now();
    const r = await run;
    assert.equal(r.code, 1);
    assert.match(
      r.stderr,
      /lost Redis at redis:\/\/127\.0\.0\.1:\d+ with \d of 3 jobs done; run the same command again/,
    );
    assert.ok(Date.now() - t < 15_000, `gave up after ${Date.now() - t} ms`);
    // The worker lost too (it would finish the date it holds meanwhile): kill it.
    w.w.kill('SIGKILL');
    await new Promise((r) => w.w.once('close', r));
    // Unreachable at the start: at once, and nothing changes.
    const before = await snapshotTree(root);
    const down = await snowdb(args, { env: env(root) });
    assert.equal(down.code, 1);
    assert.match(down.stderr, /cannot reach Redis at redis:\/\/127\.0\.0\.1:\d+/);
    assert.deepEqual(await snapshotTree(root), before);
    const worker = await snowdb(['worker', '--queue', redis.url], { env: env(root) });
    assert.equal(worker.code, 1);
    assert.match(worker.stderr, /cannot reach Redis/);
    // Redis back (empty: its jobs are gone) and a new worker: the same command finishes the work,
    // on a worker that lived through one more Redis restart (it reconnects by itself).
    await redis.restart();
    const survivor = await startWorker(root);
    await redis.kill();
    await redis.restart();
    const again = await snowdb([...args, '--format', 'json'], { env: env(root) });
    assert.equal(again.code, 0, again.stderr);
    assert.match(
      survivor.log.text,
      /start ingest-date/,
      'the worker that lived through the restart took jobs',
    );
    assert.deepEqual((JSON.parse(again.stdout) as Report).results.map((x) => x.date).sort(), DATES.map(iso));
    assert.deepEqual(await same(root), await same(local.ingest));
    await stopWorkers();
  });
});
