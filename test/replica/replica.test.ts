import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { once } from 'node:events';
import { readdir, readFile, stat } from 'node:fs/promises';
import { connect, type Socket } from 'node:net';
import { join, sep } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { buildApp } from '../../src/api/app.js';
import { openReplica, type Replica } from '../../src/app/replica.js';
import { listDatasets } from '../../src/datasets/inventory.js';
import { Database } from '../../src/db/database.js';
import { blobKey } from '../../src/io/published-tree.js';
import { seriesView } from '../../src/series/read.js';
import { preparedBasin } from '../../src/stats/basin.js';
import { executeStats } from '../../src/stats/engine.js';
import { openStatsPlan, type StatsQuery } from '../../src/stats/plan.js';
import { planReads, storeInputs } from '../../src/stats/reads.js';
import { reduceFromSeries } from '../../src/stats/series-path.js';
import { Runtime } from '../../src/util/runtime.js';
import { cliOk, snowdb, spawnSnowdb, tempDir } from '../helpers/cli.js';
import { FileServer } from '../helpers/file-server.js';
import { snapshotTree } from '../helpers/fs.js';
import { buildZionDb, ZION, zionTar } from '../helpers/zion-db.js';

/** Every file under `dir` as URL path → file, for the static server. */
async function served(dir: string): Promise<Map<string, string>> {
  const names = (await readdir(dir, { recursive: true })) as string[];
  const files = new Map<string, string>();
  for (const n of names)
    if ((await stat(join(dir, n))).isFile()) files.set(`/db/${n.split(sep).join('/')}`, join(dir, n));
  return files;
}

/** The database's files, its deletable caches left out. */
const contents = async (root: string) =>
  [...(await snapshotTree(root))].filter(([k]) => !k.startsWith('.cache'));

const sha256 = async (file: string) =>
  createHash('sha256')
    .update(await readFile(file))
    .digest('hex');

describe('read-only replicas: publish to a folder served over HTTP, and to S3', () => {
  let dir: string;
  let cleanup: () => Promise<void>;
  let env: Record<string, string>;
  let pub: string;
  let server: FileServer;
  let replica: Replica;
  const cli = cliOk(() => env);
  const url = () => `${server.base}/db/snowdb.json`;
  const onReplica = (...args: string[]) => snowdb([...args, '--config', url()], { env: {} });
  /** The published tree: the served path of a file's blob, and the Zion basin's record. */
  const published = async () => {
    const { files } = JSON.parse(await readFile(join(pub, 'published.json'), 'utf8')) as {
      files: Record<string, { sha256: string }>;
    };
    return {
      blob: (rel: string) => `/db/${blobKey(files[rel]!.sha256)}`,
      record: Object.keys(files).find((k) => k.startsWith('pourpoints/09406000'))!,
    };
  };

  before(async () => {
    ({ dir, cleanup } = await tempDir());
    env = await buildZionDb(dir);
    await cli('dataset', 'activate', 'snodas');
    pub = join(dir, 'pub');
    server = await FileServer.start(new Map());
  });
  after(async () => {
    replica?.close();
    await server.close();
    await cleanup();
  });

  it('publish writes content-addressed blobs and a tree; a replica answers what the database answers', async () => {
    const before = await contents(env.SNOWDB_CONFIG!);
    const r = JSON.parse((await cli('publish', pub, '--format', 'json')).stdout) as Record<string, number>;
    assert.deepEqual(
      await contents(env.SNOWDB_CONFIG!),
      before,
      'publishing changes nothing in the database',
    );
    const tree = JSON.parse(await readFile(join(pub, 'published.json'), 'utf8')) as {
      files: Record<string, { size: number; sha256: string; chunks?: string }>;
    };
    // One entry per read file: the date links read as their version folders, no dot names. A file
    // past 64 KiB also names its chunk list: the first 16 bytes of each 64 KiB chunk's sha256.
    const swe = join(env.SNOWDB_CONFIG!, 'data/snodas/cogs/20240115/swe.tif');
    const bytes = await readFile(swe);
    const list = Buffer.concat(
      Array.from({ length: Math.ceil(bytes.length / 65536) }, (_, i) =>
        createHash('sha256')
          .update(bytes.subarray(i * 65536, (i + 1) * 65536))
          .digest()
          .subarray(0, 16),
      ),
    );
    assert.ok(bytes.length > 65536);
    const listSha = createHash('sha256').update(list).digest('hex');
    assert.deepEqual(tree.files['data/snodas/cogs/20240115/swe.tif'], {
      size: bytes.length,
      sha256: await sha256(swe),
      chunks: listSha,
    });
    assert.deepEqual(await readFile(join(pub, blobKey(listSha))), list);
    assert.ok(Object.values(tree.files).every((f) => (f.chunks !== undefined) === f.size > 65536));
    assert.ok(Object.keys(tree.files).every((k) => !k.split('/').some((p) => p.startsWith('.'))));
    assert.equal(r.files, Object.keys(tree.files).length);
    const blobs = Object.values(tree.files).flatMap((f) => (f.chunks ? [f.sha256, f.chunks] : [f.sha256]));
    assert.equal(r.uploaded, new Set(blobs).size);
    // Bytes uploaded: each distinct file once, and each chunk list (16 bytes a 64 KiB chunk).
    const bySha = new Map(Object.values(tree.files).map((f) => [f.sha256, f.size]));
    const lists = new Map(
      Object.values(tree.files).flatMap((f) =>
        f.chunks ? [[f.chunks, Math.ceil(f.size / 65536) * 16] as const] : [],
      ),
    );
    const sum = (m: Map<string, number>) => [...m.values()].reduce((a, b) => a + b, 0);
    assert.equal(r.uploaded_bytes, sum(bySha) + sum(lists));
    assert.deepEqual(
      await readFile(join(pub, 'snowdb.json')),
      await readFile(join(env.SNOWDB_CONFIG!, 'snowdb.json')),
    );
    assert.deepEqual(await readFile(join(pub, blobKey(await sha256(swe)))), await readFile(swe));

    // Publishing again uploads nothing.
    const again = JSON.parse((await cli('publish', pub, '--format', 'json')).stdout) as Record<
      string,
      number
    >;
    assert.equal(again.uploaded, 0);
    assert.equal(again.removed, 0);

    for (const [k, v] of await served(pub)) server.files.set(k, v);
    for (const args of [
      // Not swe nor average_temp: the next test counts the requests they make.
      ['stats', 'snodas', ZION, '--zone', 'terrain.elevation', '--variable', 'depth', '--format', 'json'],
      ['stats', 'snodas', ZION, '--variable', 'precip_solid', '--format', 'json'],
      ['stats', 'snodas', ZION, '--zone', 'landcover.forest_cover', '--variable', 'depth', '--format', 'csv'],
      ['dataset', 'list', '--format', 'json'],
      ['pourpoint', 'list', '--format', 'json'],
    ]) {
      const local = await cli(...args);
      const remote = await onReplica(...args);
      assert.equal(remote.code, 0, remote.stderr);
      assert.equal(remote.stdout, local.stdout, args.join(' '));
    }
  });

  it("publish --static writes each dataset's static files beside the tree; a replica links them from /datasets/{d}", async () => {
    const asReplica = async () => {
      const r = await openReplica(url(), { runtime: new Runtime(), refreshMs: 0 });
      const app = await buildApp(r.db);
      try {
        return (await app.inject({ method: 'GET', url: '/datasets/snodas' })).json() as {
          links: { rel: string; href: string }[];
        };
      } finally {
        await app.close();
        r.close();
      }
    };
    assert.equal(
      (await asReplica()).links.find((l) => l.rel === 'static-files'),
      undefined,
      'none published yet',
    );
    const r = JSON.parse((await cli('publish', pub, '--static', '--format', 'json')).stdout) as {
      uploaded: number;
      static: { dataset: string; files: number; uploaded: number }[];
    };
    assert.equal(r.uploaded, 0, 'the tree had not changed');
    assert.equal(r.static[0]!.dataset, 'snodas');
    for (const [k, v] of await served(pub)) server.files.set(k, v);
    const link = (await asReplica()).links.find((l) => l.rel === 'static-files');
    assert.equal(link?.href, `${server.base}/db/static/snodas/index.json`);
    const index = (await (await fetch(link!.href)).json()) as { files: Record<string, { size: number }> };
    assert.equal(Object.keys(index.files).length, r.static[0]!.files);
    // pandas' way: a basin's whole history by URL, the stats CSV's rows.
    const csv = await (
      await fetch(`${server.base}/db/static/snodas/by-basin/${ZION.replaceAll(':', '_')}.csv`)
    ).text();
    const local = (await cli('stats', 'snodas', ZION, '--format', 'csv')).stdout;
    assert.equal(csv.trimEnd(), local.trimEnd());
    // The next tests compare replicas with the database, which knows nothing of static files.
    for (const k of [...server.files.keys()]) if (k.startsWith('/db/static/')) server.files.delete(k);
  });

  it('reads only byte ranges of rasters and pages, and nothing again for a repeated query', async () => {
    replica = await openReplica(url(), { runtime: new Runtime(), refreshMs: 0 });
    const localDb = await Database.open(env.SNOWDB_CONFIG!);
    const local = await buildApp(localDb);
    const remote = await buildApp(replica.db);
    const get = async (app: typeof local, path: string) => {
      const res = await app.inject({ method: 'GET', url: path });
      return { status: res.statusCode, body: res.body };
    };
    for (const path of ['/datasets', '/datasets/snodas', '/pourpoints', `/pourpoints/${ZION}`]) {
      const [a, b] = [await get(local, path), await get(remote, path)];
      assert.equal(b.status, 200, b.body);
      assert.equal(b.body, a.body, path);
    }
    const blobs = new Map(
      Object.entries(
        (
          JSON.parse(await readFile(join(pub, 'published.json'), 'utf8')) as {
            files: Record<string, { sha256: string; size: number }>;
          }
        ).files,
      ).map(([rel, f]) => [`/db/${blobKey(f.sha256)}`, { rel, size: f.size }]),
    );
    for (const [query, fromSeries] of [
      [
        '/datasets/snodas/stats/09406000:UT:USGS/date-range?datetime=2024-01-15/2024-01-16&variable=swe&zone=terrain.elevation',
        true,
      ],
      [
        '/datasets/snodas/stats/09406000:UT:USGS/date-range?datetime=2024-01-15/2024-01-16&variable=average_temp',
        false,
      ],
    ] as const) {
      const seen = server.seen.length;
      const [a, b] = [await get(local, query), await get(remote, query)];
      assert.equal(b.status, 200, b.body);
      assert.deepEqual(JSON.parse(b.body), JSON.parse(a.body), query);
      const fetched = server.seen
        .slice(seen)
        .filter((s) => /\.(tif|page|pack)$/.test(blobs.get(s.path)?.rel ?? ''));
      assert.ok(fetched.length > 0, `${query} read rasters or pages`);
      for (const s of fetched) assert.equal(s.status, 206, `${blobs.get(s.path)!.rel}: a range request`);
      const rels = new Set(fetched.map((s) => blobs.get(s.path)!.rel));
      if (fromSeries) {
        // The swe pack of water year 2024 alone (and the elevation layer: this replica's runtime
        // is fresh; the basin's weights come from the coverage index, no raster), smaller than
        // one 64 KiB chunk: its index and the basin's blocks come from the one range request of
        // that chunk.
        const page = fetched.filter((s) => blobs.get(s.path)!.rel === 'data/snodas/series/swe/wy2024.pack');
        assert.deepEqual(
          [...rels].filter((r) => !r.includes('/zones/')),
          ['data/snodas/series/swe/wy2024.pack'],
        );
        const size = blobs.get(page[0]!.path)!.size;
        assert.ok(size < 65536, `${size} bytes`);
        assert.deepEqual(
          page.map((s) => s.range),
          [`bytes=0-${size - 1}`],
        );
      } else {
        // Two dates' average_temp COGs, each read in parts (header, then the tiles under the basin).
        const cogs = [...rels].filter((r) => r.endsWith('/average_temp.tif'));
        assert.equal(cogs.length, 2, [...rels].join());
        for (const s of fetched.filter((f) => blobs.get(f.path)!.rel.endsWith('/average_temp.tif'))) {
          const [from, to] = s.range!.slice(6).split('-').map(Number) as [number, number];
          assert.ok(to - from + 1 < blobs.get(s.path)!.size / 2, `${s.range}: a part of the COG`);
        }
      }
      const repeat = server.seen.length;
      assert.deepEqual(JSON.parse((await get(remote, query)).body), JSON.parse(b.body));
      assert.equal(server.seen.length, repeat, `${query} again: no request`);
    }
    // A long scan on a replica: this thread fetches the pages' bytes, worker threads decode them;
    // every date from the store, the local bits.
    const q: StatsQuery = {
      dataset: 'snodas',
      pourpoint: ZION,
      dates: { type: 'DateRange', start_date: '2024-01-15', end_date: '2024-01-16' },
      zones: ['terrain.aspect'],
      variables: ['swe', 'depth'],
      includeEmptyZones: false,
      validFraction: true,
    };
    const [lp, rp] = [await openStatsPlan(localDb, q), await openStatsPlan(replica.db, q)];
    assert.deepEqual(await executeStats(rp, { threadsAbove: 0 }), await executeStats(lp, { series: false }));
    const view = (await seriesView(rp.dataset))!;
    const sums = { sw: new Float64Array(2 * rp.product), sv: new Float64Array(2 * rp.product) };
    const [swe] = planReads({ ...rp, variables: ['swe'] }, await storeInputs(rp.dataset, view, rp));
    const done = await reduceFromSeries(rp, await preparedBasin(rp), view, swe!, sums, { threadsAbove: 0 });
    assert.equal(done.size, 2);
    await local.close();
    await remote.close();
  });

  it('refuses bytes the storage gets wrong and keeps none: a whole file not its digest, a range reply of the right length but altered bytes (chunk lists), a range reply cut short; asks again, then answers as the database', async () => {
    // A replica on a runtime of its own (its own memos and caches), its caches emptied at will.
    const runtime = new Runtime();
    const cold = () => runtime.clearCaches();
    const fresh = await openReplica(`${server.base}/db/`, { runtime, refreshMs: 0 });
    try {
      const remote = await buildApp(fresh.db);
      const local = await buildApp(await Database.open(env.SNOWDB_CONFIG!));
      const { blob, record } = await published();
      const ask = async (path: string) => {
        const [r, l] = [
          await remote.inject({ method: 'GET', url: path }),
          await local.inject({ method: 'GET', url: path }),
        ];
        return { status: r.statusCode, body: r.body, local: l.body };
      };
      const cog = 'data/snodas/cogs/20240116/average_temp.tif';
      // The coverage index (the basin's weights: a query reads no AOI raster) is one chunk
      // (≤ 64 KiB) and has no chunk list: checked by its digest.
      const cix = 'data/snodas/coverage.idx';
      assert.ok((await stat(join(env.SNOWDB_CONFIG!, cix))).size <= 65_536);
      for (const [rel, fault, path, why] of [
        [
          cix,
          { kind: 'altered', at: 300 },
          `/datasets/snodas/stats/${ZION}/date-range?datetime=2024-01-16&variable=average_temp`,
          /bytes 0–\d+ that are not the published content of/,
        ],
        [
          record,
          { kind: 'altered', at: 40 },
          `/pourpoints/${ZION}`,
          /bytes that are not the published content of/,
        ],
        [
          cog,
          { kind: 'altered', at: 60_000 },
          `/datasets/snodas/stats/${ZION}/date-range?datetime=2024-01-16&variable=average_temp`,
          /bytes 0–65535 that are not the published content of/,
        ],
        [
          cog,
          { kind: 'cut', after: 100 },
          `/datasets/snodas/stats/${ZION}/date-range?datetime=2024-01-16&variable=average_temp`,
          /a reply for \d+ bytes at 0 held 100/,
        ],
      ] as const) {
        // Bad on every attempt (three): a 503 that names no storage URL or key.
        cold();
        server.fault(blob(rel), fault, fault, fault);
        const bad = await ask(path);
        assert.equal(bad.status, 503, `${rel}: ${bad.body}`);
        const problem = JSON.parse(bad.body) as { type: string; detail: string };
        assert.equal(problem.type, '/problems/storage-unreachable');
        assert.equal(problem.detail, "the database's storage did not answer as expected; try again shortly");
        assert.ok(!bad.body.includes('127.0.0.1') && !bad.body.includes('blobs/'), bad.body);
        // The store's own error (the server's log) says what came back.
        cold();
        server.fault(blob(rel), fault, fault, fault);
        const abs = `${fresh.db.root}/${rel}`;
        await assert.rejects(rel !== record ? fresh.store.readAt(abs, 0, 200) : fresh.store.read(abs), why);
        // Bad once: asked again at once, and the answer is the database's; nothing bad was kept.
        cold();
        server.fault(blob(rel), fault);
        const seen = server.seen.length;
        const good = await ask(path);
        assert.equal(good.status, 200, good.body);
        assert.deepEqual(JSON.parse(good.body), JSON.parse(good.local), path);
        assert.ok(server.seen.slice(seen).filter((r) => r.path === blob(rel)).length >= 2, 'asked again');
      }
    } finally {
      fresh.close();
    }
  });

  // Without the sweep, close() waited out the 72 s keep-alive of the connection that was answering
  // when it began, and on Node 20 60–90 s for a connection never used (seen: `api serve` taking
  // 69 s to exit on SIGTERM, with a fetch pool's spare connection open): the time limit fails that.
  it('a server closing while a request waits on storage answers it and one begun on an open connection, drops unused connections, then closes at once', {
    timeout: 30_000,
  }, async (t) => {
    // Every wait below ends when the test's time runs out, so the cleanup still runs.
    const timedOut = once(t.signal, 'abort').then(() => {
      throw new Error('close did not end (the test timed out)');
    });
    const within = <T>(p: Promise<T>) => Promise.race([p, timedOut]);
    const sockets: Socket[] = [];
    const fresh = await openReplica(`${server.base}/db/`, { runtime: new Runtime(), refreshMs: 0 });
    const app = await buildApp(fresh.db);
    let release = () => {};
    try {
      const address = await app.listen({ host: '127.0.0.1', port: 0 });
      const { blob, record } = await published();
      let arrived!: () => void;
      const reached = new Promise<void>((r) => {
        arrived = r;
      });
      const until = new Promise<void>((r) => {
        release = r;
      });
      server.fault(blob(record), { kind: 'held', arrived, until });
      // A second connection with a request begun (head not ended) before close: not idle, so kept.
      const raw = connect(Number(new URL(address).port), '127.0.0.1');
      sockets.push(raw);
      let said = '';
      raw.setEncoding('utf8').on('data', (d: string) => {
        said += d;
      });
      const rawClosed = once(raw, 'close');
      await once(raw, 'connect');
      raw.write('GET /datasets HTTP/1.1\r\nHost: 127.0.0.1\r\n');
      // A connection opened and never used (a preconnect, a pool's spare): dropped at once.
      const silent = connect(Number(new URL(address).port), '127.0.0.1');
      sockets.push(silent);
      const silentClosed = once(silent, 'close');
      await once(silent, 'connect');
      const answer = fetch(`${address}/pourpoints/${ZION}`); // a keep-alive connection
      await reached; // the request is in flight, waiting on the storage
      let closed = false;
      const closing = app.close().then(() => {
        closed = true;
      });
      await within(silentClosed);
      raw.write('\r\n'); // the request on the open connection ends after close began
      await within(rawClosed); // answered, then closed by the server
      const [head, body] = said.split('\r\n\r\n') as [string, string];
      assert.match(head, /^HTTP\/1\.1 200 /);
      assert.match(head, /\r\nconnection: close\r\n/i);
      assert.ok(body.includes('"snodas"'), body);
      assert.equal(closed, false, 'close waits for the request in flight');
      release();
      const r = await answer;
      assert.equal(r.status, 200);
      assert.equal(((await r.json()) as { id: string }).id, ZION);
      await within(closing);
      assert.equal(app.server.listening, false);
    } finally {
      // After a failure: nothing left waiting on the held request or on open connections.
      release();
      for (const socket of sockets) socket.destroy();
      app.server.closeAllConnections();
      await app.close();
      fresh.close();
    }
  });

  it('sees a newly published date after the refresh interval; the replica refuses writes', async () => {
    const live = await openReplica(`${server.base}/db/`, { runtime: new Runtime(), refreshMs: 300 });
    const list = () =>
      snowdb(['dataset', 'list', '--format', 'json', '--config', `${server.base}/db/`], { env: {} });
    assert.match((await list()).stdout, /"last_date": ?"2024-01-16"/);
    await cli('dataset', 'ingest', 'snodas', await zionTar(dir, '20240117', (r, c) => (r + c) % 300));
    // A publish killed after its uploads, before its switch: the old tree stays, whole and served.
    const blobNames = async () =>
      ((await readdir(join(pub, 'blobs'), { recursive: true })) as string[]).filter((n) =>
        /[0-9a-f]{64}$/.test(n),
      );
    const treeBefore = await readFile(join(pub, 'published.json'));
    const blobsBefore = (await blobNames()).length;
    const killed = spawnSnowdb(['publish', pub], { env: { ...env, SNOWDB_TEST_SWAP_PAUSE_MS: '60000' } });
    let counts = [blobsBefore];
    while (counts.length < 6 || counts.at(-1)! === blobsBefore || new Set(counts.slice(-6)).size > 1) {
      assert.equal(killed.exitCode, null, 'the publish still runs (paused before its switch)');
      await new Promise((res) => setTimeout(res, 100));
      counts = [...counts, (await blobNames()).length];
    }
    killed.kill('SIGKILL');
    await new Promise((res) => killed.once('close', res));
    assert.ok(counts.at(-1)! > blobsBefore, 'the new date uploaded');
    assert.deepEqual(await readFile(join(pub, 'published.json')), treeBefore);
    for (const [k, v] of await served(pub)) server.files.set(k, v);
    assert.match((await list()).stdout, /"last_date": ?"2024-01-16"/);
    const r = JSON.parse((await cli('publish', pub, '--format', 'json')).stdout) as Record<string, number>;
    assert.ok(r.uploaded! > 0 && r.uploaded! < r.files!, JSON.stringify(r));
    // Every blob left is named by the new tree or the one before it (readers may still hold it).
    const named = new Set(
      [treeBefore, await readFile(join(pub, 'published.json'))].flatMap((t) =>
        Object.values(
          (JSON.parse(t.toString('utf8')) as { files: Record<string, { sha256: string; chunks?: string }> })
            .files,
        ).flatMap((e) => (e.chunks ? [e.sha256, e.chunks] : [e.sha256])),
      ),
    );
    for (const n of await blobNames()) assert.ok(named.has(n.slice(-64)), n);
    for (const [k, v] of await served(pub)) server.files.set(k, v);
    // The open replica refreshing every 0.3 s sees it; the one of the first test, which never
    // refreshes (refreshMs 0), keeps the tree it read; a command opening the copy anew sees it.
    const lastDate = async (db: Database) => (await listDatasets(db))[0]?.last_date;
    let seen = false;
    for (let t = 0; t < 100 && !seen; t++) {
      seen = (await lastDate(live.db)) === '2024-01-17';
      if (!seen) await new Promise((res) => setTimeout(res, 100));
    }
    assert.ok(seen, 'the new date shows within 10 s (the refresh interval is 0.3 s)');
    assert.equal(await lastDate(replica.db), '2024-01-16');
    const args = ['stats', 'snodas', ZION, '--dates', '2024-01-17', '--format', 'json'];
    const fresh = await snowdb([...args, '--config', `${server.base}/db/`], { env: {} });
    assert.equal(fresh.stdout, (await cli(...args)).stdout);
    assert.match(fresh.stdout, /"2024-01-17"/);
    live.close();
    const check = await onReplica('api', 'serve', '--check');
    assert.equal(check.code, 0, check.stderr);
    assert.equal(
      check.stdout,
      `OK: ${url()}: 1 active dataset(s) (snodas), 1 pourpoint(s); the app builds\n`,
    );

    const ingest = await onReplica('dataset', 'remove-date', 'snodas', '2024-01-17');
    assert.equal(ingest.code, 1);
    assert.match(
      ingest.stderr,
      /is a published copy, which is read-only: run 'snowdb dataset remove-date' on the database it was published from/,
    );
    const http = await snowdb(['publish', server.base], { env });
    assert.equal(http.code, 1);
    assert.match(http.stderr, /cannot publish over HTTP/);
  });

  it('publishes to S3 (a local S3-compatible server) with caching headers; a replica on s3:// answers the same', async () => {
    const { default: S3rver } = await import('s3rver');
    const { S3Client, CreateBucketCommand, HeadObjectCommand } = await import('@aws-sdk/client-s3');
    const s3dir = join(dir, 's3');
    const s3 = new S3rver({ port: 0, address: '127.0.0.1', silent: true, directory: s3dir });
    const { port } = (await s3.run()) as { port: number };
    // The AWS SDK reads credentials from the process environment, as it does for a user (both
    // restored after: other test files may share this process).
    const keys = ['AWS_ACCESS_KEY_ID', 'AWS_SECRET_ACCESS_KEY'] as const;
    const had = keys.map((k) => process.env[k]);
    try {
      process.env.AWS_ACCESS_KEY_ID = 'S3RVER';
      process.env.AWS_SECRET_ACCESS_KEY = 'S3RVER';
      const endpoint = `http://127.0.0.1:${port}`;
      const client = new S3Client({
        endpoint,
        region: 'us-east-1',
        forcePathStyle: true,
        credentials: { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' },
      });
      await client.send(new CreateBucketCommand({ Bucket: 'snow-pub' }));
      const s3env = { ...env, AWS_ENDPOINT_URL: endpoint };
      const target = 's3://snow-pub/prod/v1';
      const missing = await snowdb(['dataset', 'list', '--config', target], {
        env: { AWS_ENDPOINT_URL: endpoint },
      });
      assert.equal(missing.code, 1);
      assert.match(
        missing.stderr,
        /s3:\/\/snow-pub\/prod\/v1: no published snowdb database \(no published\.json\)/,
      );

      const first = await snowdb(['publish', target, '--format', 'json'], { env: s3env });
      assert.equal(first.code, 0, first.stderr);
      // The database as the folder copy holds it (published last in the previous test).
      const tree = JSON.parse(await readFile(join(pub, 'published.json'), 'utf8')) as {
        files: Record<string, { sha256: string; chunks?: string }>;
      };
      const r = JSON.parse(first.stdout) as Record<string, number>;
      assert.equal(r.files, Object.keys(tree.files).length);
      const blobs = Object.values(tree.files).flatMap((f) => (f.chunks ? [f.sha256, f.chunks] : [f.sha256]));
      assert.equal(r.uploaded, new Set(blobs).size);
      const again = JSON.parse(
        (await snowdb(['publish', target, '--format', 'json'], { env: s3env })).stdout,
      );
      assert.deepEqual([again.uploaded, again.removed], [0, 0]);
      const swe = tree.files['data/snodas/cogs/20240115/swe.tif']!.sha256;
      const head = await client.send(
        new HeadObjectCommand({ Bucket: 'snow-pub', Key: `prod/v1/${blobKey(swe)}` }),
      );
      assert.equal(head.CacheControl, 'public, max-age=31536000, immutable');
      const pointer = await client.send(
        new HeadObjectCommand({ Bucket: 'snow-pub', Key: 'prod/v1/published.json' }),
      );
      assert.equal(pointer.CacheControl, 'no-cache');

      for (const args of [
        ['stats', 'snodas', ZION, '--zone', 'terrain.aspect', '--variable', 'swe', '--format', 'json'],
        ['stats-all', 'snodas', '--date', '2024-01-15/2024-01-17', '--format', 'json'],
      ]) {
        const local = await snowdb(args, { env });
        const remote = await snowdb([...args, '--config', target], { env: { AWS_ENDPOINT_URL: endpoint } });
        assert.equal(local.code, 0, local.stderr);
        assert.equal(remote.code, 0, remote.stderr);
        assert.equal(remote.stdout, local.stdout, args.join(' '));
      }
      client.destroy();
    } finally {
      for (const [i, k] of keys.entries()) {
        const v = had[i];
        if (v === undefined) delete process.env[k];
        else process.env[k] = v;
      }
      await s3.close();
    }
  });
});
