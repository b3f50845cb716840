/**
 * Scale-out scenarios (issue 23). Reads: the 20-year bench database published to a folder that
 * nginx serves on loopback, read by 1 and 2 `api serve --config http://…` replicas behind an nginx
 * balancer, against one `api serve` on the database folder (wrk, interleaved, after checking all
 * three answer the same bytes). Backfill: SNODAS daily tars ingested through the job queue (a real
 * redis-server) by 1, 2 and 4 worker processes, interleaved, after checking the runs end with the
 * same date folders.
 */
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { RedisServer } from '../test/helpers/redis.js';
import { memberNames, tarOf, writeMembers } from '../test/helpers/snodas.js';
import { REPO } from './cli.js';
import { benchDatabase } from './fixture/database.js';
import { listening, wrk } from './speed.bench.js';
import { median, spread } from './stats.js';

type Row = Record<string, string>;
const CLI = join(REPO, 'dist/src/cli/main.js');

const freePort = (): Promise<number> =>
  new Promise((resolve) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolve(port));
    });
  });

/** Start nginx with an `http {}` body; resolves once it listens on `port`. */
async function nginx(dir: string, name: string, http: string, port: number): Promise<ChildProcess> {
  const conf = join(dir, `${name}.conf`);
  const temp = ['client_body', 'proxy', 'fastcgi', 'uwsgi', 'scgi']
    .map((t) => `${t}_temp_path ${dir}/${name}-${t};`)
    .join(' ');
  await writeFile(
    conf,
    `user root; worker_processes 1; daemon off; pid ${dir}/${name}.pid; error_log ${dir}/${name}.err;\n` +
      `events { worker_connections 4096; }\nhttp { access_log off; ${temp}\n${http}\n}\n`,
  );
  const proc = spawn('nginx', ['-c', conf, '-p', dir], { stdio: 'ignore' });
  for (let i = 0; i < 100; i++) {
    const up = await fetch(`http://127.0.0.1:${port}/`).then(
      () => true,
      () => false,
    );
    if (up) return proc;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(
    `nginx ${name} did not start: ${await readFile(join(dir, `${name}.err`), 'utf8').catch(() => '')}`,
  );
}

async function serve(config: string): Promise<{ proc: ChildProcess; base: string }> {
  const proc = spawn(process.execPath, [CLI, 'api', 'serve', '--port', '0', '--log-level', 'warn'], {
    env: { ...process.env, SNOWDB_CONFIG: config },
  });
  return { proc, base: await listening(proc, /snowdb API on (http:\/\/[\d.:]+)/) };
}

async function stop(procs: readonly ChildProcess[]): Promise<void> {
  for (const p of procs) p.kill('SIGTERM');
  await Promise.all(procs.map((p) => (p.exitCode === null ? once(p, 'exit') : undefined)));
}

async function replicaRows(reps: number): Promise<Row[]> {
  const b = await benchDatabase();
  const pub = join(REPO, 'bench/.data/published');
  execFileSync(process.execPath, [CLI, 'publish', pub], {
    env: { ...process.env, SNOWDB_CONFIG: b.root },
    stdio: 'ignore',
  });
  const dir = await mkdtemp(join(tmpdir(), 'snowdb-bench-scale-'));
  const procs: ChildProcess[] = [];
  try {
    const staticPort = await freePort();
    procs.push(
      await nginx(
        dir,
        'static',
        `server { listen 127.0.0.1:${staticPort}; location /db/ { alias ${pub}/; } ` +
          `location /db/blobs/ { alias ${pub}/blobs/; add_header Cache-Control "public, max-age=31536000, immutable"; } }`,
        staticPort,
      ),
    );
    const local = await serve(b.root);
    const r1 = await serve(`http://127.0.0.1:${staticPort}/db/snowdb.json`);
    const r2 = await serve(`http://127.0.0.1:${staticPort}/db/snowdb.json`);
    procs.push(local.proc, r1.proc, r2.proc);
    const balancer = async (name: string, backends: readonly string[]) => {
      const port = await freePort();
      const upstream = backends.map((u) => `server ${new URL(u).host};`).join(' ');
      procs.push(
        await nginx(
          dir,
          name,
          `upstream r { ${upstream} keepalive 64; } server { listen 127.0.0.1:${port}; location / { ` +
            'proxy_pass http://r; proxy_http_version 1.1; proxy_set_header Connection ""; } }',
          port,
        ),
      );
      return `http://127.0.0.1:${port}`;
    };
    const folder = await balancer('lb0', [local.base]);
    const one = await balancer('lb1', [r1.base]);
    const two = await balancer('lb2', [r1.base, r2.base]);
    const triplets = (
      (await (await fetch(`${local.base}/pourpoints?geometry=point&limit=1000`)).json()) as {
        features: { id: string }[];
      }
    ).features.map((f) => f.id);
    // {date} stands for the triplet here: each request asks for the next basin's water year.
    const path = '/datasets/snodas/stats/{date}/date-range?datetime=2023-10-01/2024-09-30&variable=swe';
    for (const t of triplets.slice(0, 5)) {
      const bodies = await Promise.all(
        [folder, one, two].map(async (base) => {
          const { zones, results } = (await (await fetch(base + path.replace('{date}', t))).json()) as Row;
          return JSON.stringify({ zones, results }); // links name each server: not compared
        }),
      );
      if (bodies.some((x) => x !== bodies[0]))
        throw new Error(`replicas answer ${t} differently from the folder`);
    }
    const runs = { local: [] as number[], one: [] as number[], two: [] as number[] };
    for (let i = 0; i < reps; i++) {
      runs.local.push(wrk(folder + path, triplets, 5).rps);
      runs.one.push(wrk(one + path, triplets, 5).rps);
      runs.two.push(wrk(two + path, triplets, 5).rps);
    }
    const what = `${triplets.length} basins in turn, a water year of swe each, 32 connections (wrk, ${reps} × 5 s each)`;
    return [
      {
        scenario: `reads: 1 replica over HTTP (nginx static, loopback) vs api serve on the folder, each behind nginx; ${what}`,
        snowdb: `${spread(runs.one, 0, 'req/s')}`,
        baseline: `${spread(runs.local, 0, 'req/s')}`,
        ratio: `${(median(runs.one) / median(runs.local)).toFixed(2)}×`,
        target: 'near 1× (same caches, one more hop)',
      },
      {
        scenario: `reads: 2 replicas vs 1 replica, behind nginx; ${what}`,
        snowdb: `${spread(runs.two, 0, 'req/s')}`,
        baseline: `${spread(runs.one, 0, 'req/s')}`,
        ratio: `${(median(runs.two) / median(runs.one)).toFixed(2)}×`,
        target: '→ 2× with a core per replica',
      },
    ];
  } finally {
    await stop(procs);
    await rm(dir, { recursive: true, force: true });
  }
}

async function backfillRows(reps: number, dates: number): Promise<Row[]> {
  const dir = await mkdtemp(join(tmpdir(), 'snowdb-bench-backfill-'));
  const redis = await RedisServer.start();
  try {
    const tars: string[] = [];
    for (let k = 0; k < dates; k++) {
      const day = `202401${String(10 + k).padStart(2, '0')}`;
      const gen = join(dir, `gen-${day}`);
      const stems = await writeMembers(gen, day, 'current', 'txt');
      tars.push(await tarOf(join(dir, `SNODAS_${day}.tar`), gen, memberNames(stems, 'txt')));
      await rm(gen, { recursive: true, force: true });
    }
    const base = join(dir, 'base');
    const cli = (root: string, args: string[]) =>
      execFileSync(process.execPath, [CLI, ...args], {
        env: { ...process.env, SNOWDB_CONFIG: root },
        stdio: 'pipe',
      });
    cli(base, ['init', base]);
    cli(base, ['dataset', 'create', 'snodas', '--template', 'snodas']);
    const once_ = async (workers: number, run: number): Promise<{ ms: number; listing: string }> => {
      const root = join(dir, `db-${workers}-${run}`);
      execFileSync('cp', ['-a', base, root]);
      const ws = Array.from({ length: workers }, () =>
        spawn(process.execPath, [CLI, 'worker', '--queue', redis.url], {
          env: { ...process.env, SNOWDB_CONFIG: root },
        }),
      );
      try {
        await Promise.all(ws.map((w) => listening(w, /snowdb worker on/)));
        const t = performance.now();
        cli(root, ['dataset', 'ingest', 'snodas', '--queue', redis.url, ...tars]);
        const ms = performance.now() - t;
        const listing = execFileSync('ls', [join(root, 'data/snodas/cogs')], { encoding: 'utf8' })
          .split('\n')
          .filter((n) => /^\d{8}$/.test(n))
          .join(',');
        return { ms, listing };
      } finally {
        await stop(ws);
        await rm(root, { recursive: true, force: true });
      }
    };
    const counts = [1, 2, 4];
    const ms = new Map<number, number[]>(counts.map((c) => [c, []]));
    let listing: string | null = null;
    for (let i = 0; i < reps; i++)
      for (const c of counts) {
        const r = await once_(c, i);
        if (listing !== null && r.listing !== listing)
          throw new Error(`${c} workers ingested ${r.listing}, not ${listing}`);
        listing = r.listing;
        ms.get(c)!.push(r.ms);
      }
    const perMin = (c: number) => (dates * 60_000) / median(ms.get(c)!);
    return counts.slice(1).map((c) => ({
      scenario: `backfill: ${dates} SNODAS daily tars ingested through the queue (redis-server, loopback), ${c} vs 1 worker process (${reps} runs each)`,
      snowdb: `${spread(ms.get(c)!, 0)} (${perMin(c).toFixed(1)} dates/min)`,
      baseline: `${spread(ms.get(1)!, 0)} (${perMin(1).toFixed(1)} dates/min)`,
      ratio: `${(median(ms.get(1)!) / median(ms.get(c)!)).toFixed(2)}×`,
      target: `→ ${c}× with a core per worker`,
    }));
  } finally {
    await redis.kill();
    await rm(dir, { recursive: true, force: true });
  }
}

export async function scaleBench(reps = 3): Promise<Row[]> {
  await mkdir(join(REPO, 'bench/.data'), { recursive: true });
  return [...(await replicaRows(reps)), ...(await backfillRows(Math.min(reps, 2), 6))];
}
