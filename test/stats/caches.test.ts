/**
 * The runtime's caches: each counts at least the memory its entries hold (measured on the heap
 * after a full GC), the server reports them at /status, two runtimes share nothing, and
 * SNOWDB_CACHE_MB and SNOWDB_THREADS size them or name what is wrong.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import v8 from 'node:v8';
import { runInNewContext } from 'node:vm';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../../src/api/app.js';
import { runtimeFrom } from '../../src/app/runtime.js';
import { settingsFrom } from '../../src/app/settings.js';
import { Database } from '../../src/db/database.js';
import { SnowdbError } from '../../src/errors.js';
import { computeAllBasins } from '../../src/stats/all-basins.js';
import { parseDateRange } from '../../src/stats/dates.js';
import { computeStats, executeStats } from '../../src/stats/engine.js';
import { executeNormals, openNormalsPlan } from '../../src/stats/normals.js';
import { openStatsPlan } from '../../src/stats/plan.js';
import type { CacheName } from '../../src/util/caches.js';
import type { Runtime } from '../../src/util/runtime.js';
import { defaultThreads } from '../../src/util/workers.js';
import { snowdb } from '../helpers/cli.js';
import { HALF, historyDb } from '../helpers/history-db.js';

v8.setFlagsFromString('--expose-gc');
// No bytecode flushing: V8 drops the bytecode of functions idle for a few collections, which made
// "what clearing a cache frees" jump by 100–250 kB in one round in five (measured; CI failed on it).
v8.setFlagsFromString('--no-flush-bytecode');
const gc = runInNewContext('gc') as () => void;
/** Bytes live on the JS heap and in array buffers after a full collection. */
const live = () => {
  gc();
  gc();
  const m = process.memoryUsage();
  return m.heapUsed + m.arrayBuffers;
};
const counted = (rt: Runtime, name: CacheName) => rt.report().caches.find((c) => c.name === name)!;

describe('caches', () => {
  let db: Database;
  let env: Record<string, string>;
  let app: FastifyInstance;
  before(async () => {
    env = await historyDb();
    db = await Database.open(env.SNOWDB_CONFIG!);
    app = await buildApp(db);
  });
  after(() => app.close());

  it('prepared basins, every-basin layouts and normals tables: the bytes a cache counts are at least what its entries keep alive', async () => {
    // Entries per round: many small basins and layouts (a few kB each), fewer normals tables (~2 MB
    // each); rounds: the median of five for small entries, of three for 20 MB of tables.
    for (const [name, n, rounds, fill] of [
      [
        'basins',
        40,
        5,
        (i: number) =>
          computeStats(db, {
            dataset: 'hist',
            pourpoint: HALF,
            dates: parseDateRange('2011-03-01'),
            zones: [`terrain.elevation:band_step_ft=${100 + 10 * i}`],
          }),
      ],
      [
        'sweeps',
        40,
        5,
        (i: number) =>
          computeAllBasins(db, {
            dataset: 'hist',
            dates: parseDateRange('2011-03-01'),
            zones: [`terrain.elevation:band_step_ft=${100 + 10 * i}`],
          }),
      ],
      [
        'normals',
        10,
        3,
        async (i: number) =>
          executeNormals(
            await openNormalsPlan(db, {
              dataset: 'hist',
              pourpoint: HALF,
              zones: ['terrain.elevation:band_step_ft=100'], // many bands: ~2 MB a table
              years: { start: 2004 + (i % 8), end: 2012 + Math.floor(i / 8) },
            }),
          ),
      ],
    ] as const) {
      for (let i = 0; i < n; i++) await fill(i); // warm: code and shared state, then forget the entries
      db.runtime.clearCaches(name);
      // What n entries keep alive: the memory that becomes free when the cache lets them go
      // (the median of the rounds: the heap moves by tens of kB on its own).
      const measured: { bytes: number; freed: number }[] = [];
      for (let round = 0; round < rounds; round++) {
        for (let i = 0; i < n; i++) await fill(n * (round + 1) + i);
        const { entries, bytes } = counted(db.runtime, name);
        assert.equal(entries, n, name);
        const m0 = live();
        db.runtime.clearCaches(name);
        measured.push({ bytes, freed: m0 - live() });
      }
      measured.sort((a, b) => a.freed - b.freed);
      const held = measured[(rounds - 1) / 2]!;
      const freed = held.freed;
      // Within the heap's own movement between rounds after a full GC (up to ~3 %, Node 20 and 26).
      assert.ok(held.bytes >= 0.97 * freed, `${name}: counted ${held.bytes} B, the entries kept ${freed} B`);
      assert.ok(held.bytes < 3 * freed, `${name}: counted ${held.bytes} B against ${freed} B kept`);
    }
  });

  it('GET /status reports every cache: entries, bytes, budget, hits, misses and hit rate', async () => {
    const q = {
      dataset: 'hist',
      pourpoint: HALF,
      dates: parseDateRange('2011-03-02'),
      zones: ['terrain.elevation:band_step_ft=2000'],
    };
    const b0 = counted(db.runtime, 'basins');
    await computeStats(db, q);
    await computeStats(db, q); // the same basin and axes: a hit
    const r = await app.inject({ method: 'GET', url: '/status' });
    assert.equal(r.statusCode, 200, r.body);
    const body = r.json() as {
      caches: { name: string; hits: number; misses: number; max_bytes: number; hit_rate: number | null }[];
    };
    assert.deepEqual(
      body.caches.map((c) => c.name),
      [
        'basin-outlines',
        'basin-records',
        'basins',
        'group-coverage',
        'nesting',
        'normals',
        'replica-chunks',
        'replica-files',
        'series-blocks',
        'sweeps',
      ],
    );
    const basins = body.caches.find((c) => c.name === 'basins')!;
    assert.deepEqual([basins.misses - b0.misses, basins.hits - b0.hits], [1, 1]);
    assert.equal(basins.hit_rate, basins.hits / (basins.hits + basins.misses));
    assert.equal(basins.max_bytes, 64 * 1024 * 1024);
    assert.equal(body.caches.find((c) => c.name === 'replica-chunks')!.hit_rate, null, 'never asked here');
    // The stats-scan worker threads: a long scan forced onto them runs jobs there, none fails.
    type Workers = { size: number; threads: number; jobs: number; failed: number };
    const workers = async () =>
      ((await app.inject({ method: 'GET', url: '/status' })).json() as { workers: Workers }).workers;
    const w0 = await workers();
    const plan = await openStatsPlan(db, { ...q, dates: parseDateRange('2011-01-01/2011-03-31') });
    await executeStats(plan, { threadsAbove: 0 });
    const w1 = await workers();
    assert.equal(w1.size, db.runtime.threads);
    assert.ok(w1.jobs > w0.jobs, `${w0.jobs} → ${w1.jobs} jobs`);
    assert.ok(w1.threads >= 1 && w1.threads <= w1.size, JSON.stringify(w1));
    assert.equal(w1.failed, w0.failed);
  });

  it('two runtimes share nothing: a database opened on its own runtime starts cold', async () => {
    const q = {
      dataset: 'hist',
      pourpoint: HALF,
      dates: parseDateRange('2011-03-03'),
      zones: ['terrain.elevation:band_step_ft=1000'],
    };
    await computeStats(db, q);
    const other = await Database.open(env.SNOWDB_CONFIG!);
    assert.notEqual(other.runtime, db.runtime);
    assert.equal(counted(other.runtime, 'basins').entries, 0);
    const b0 = counted(db.runtime, 'basins');
    await computeStats(other, q);
    assert.deepEqual(
      [counted(other.runtime, 'basins').misses, counted(other.runtime, 'basins').hits],
      [1, 0],
      'the other runtime prepared the basin itself',
    );
    assert.deepEqual(counted(db.runtime, 'basins'), b0, 'the first runtime saw nothing of it');
  });

  it('SNOWDB_THREADS sets the threads a pool may run; anything but 1 to 256 is a usage error', () => {
    assert.equal(runtimeFrom(settingsFrom({ SNOWDB_THREADS: '3' })).threads, 3);
    assert.equal(runtimeFrom(settingsFrom({})).threads, defaultThreads(), 'unset: the cores');
    for (const bad of ['0', '1.5', 'two', '257'])
      assert.throws(
        () => runtimeFrom(settingsFrom({ SNOWDB_THREADS: bad })),
        (e: unknown) =>
          SnowdbError.is(e) &&
          e.key === 'usage-error' &&
          e.message.includes(`'${bad}' is not a whole number from 1 to 256`),
      );
  });

  it('SNOWDB_CACHE_MB sizes caches by name; a malformed entry or an unknown name is a usage error', async () => {
    const rt = runtimeFrom(settingsFrom({ SNOWDB_CACHE_MB: 'normals=1, series-blocks=0.5' }));
    assert.equal(counted(rt, 'normals').maxBytes, 1024 * 1024);
    assert.equal(counted(rt, 'series-blocks').maxBytes, 512 * 1024);
    assert.equal(counted(rt, 'basins').maxBytes, 64 * 1024 * 1024);
    // Two normals tables of ~2 MB each: the 1 MiB cache keeps at most the last one.
    const small = await Database.open(env.SNOWDB_CONFIG!, { runtime: rt });
    for (const start of [2004, 2005])
      await executeNormals(
        await openNormalsPlan(small, {
          dataset: 'hist',
          pourpoint: HALF,
          zones: ['terrain.elevation:band_step_ft=100'],
          years: { start, end: 2012 },
        }),
      );
    const n = counted(rt, 'normals');
    assert.equal(n.misses, 2);
    assert.ok(n.entries <= 1 && (n.bytes <= 1024 * 1024 || n.entries === 1), JSON.stringify(n));
    for (const [value, message] of [
      ['basins=lots', /SNOWDB_CACHE_MB: 'basins=lots' is not name=MiB \(e\.g\. series-blocks=256\)/],
      ['tiles=64', /SNOWDB_CACHE_MB: no cache named 'tiles'; the caches: basins, normals, series-blocks/],
    ] as const) {
      const r = await snowdb(['status'], { env: { ...env, SNOWDB_CACHE_MB: value } });
      assert.equal(r.code, 2, r.stderr);
      assert.match(r.stderr, message);
    }
    const ok = await snowdb(['status'], { env: { ...env, SNOWDB_CACHE_MB: 'normals=128, basins=16' } });
    assert.equal(ok.code, 0, ok.stderr);
  });
});
