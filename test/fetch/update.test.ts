import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { readdir, rm, utimes, writeFile } from 'node:fs/promises';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';

import { isAlive } from '../../src/io/lock.js';
import { snodasArchiveFile } from '../helpers/archive.js';
import { cliOk, snowdb, snowdbProcess, tempDir } from '../helpers/cli.js';
import { FileServer } from '../helpers/file-server.js';

/** `YYYYMMDD` of the UTC day `n` days before today. */
function daysAgo(n: number): string {
  const t = new Date();
  t.setUTCDate(t.getUTCDate() - n);
  return t.toISOString().slice(0, 10).replaceAll('-', '');
}
const iso = (d: string) => `${d.slice(0, 4)}-${d.slice(4, 6)}-${d.slice(6)}`;

describe('update: every active dataset up to the newest date its producer has, one run at a time', () => {
  let dir: string;
  let cleanup: () => Promise<void>;
  let root: string;
  let server: FileServer;
  const [d3, d2, d1, d0] = [daysAgo(3), daysAgo(2), daysAgo(1), daysAgo(0)];
  const env = () => ({
    SNOWDB_CONFIG: root,
    SNOWDB_SNODAS_URL: `${server.base}/snodas`,
    SNOWDB_FETCH_BACKOFF_MS: '10',
    SNOWDB_FETCH_RETRIES: '1',
    HOME: dir,
  });
  const ok = cliOk(env);
  const dates = async () =>
    (await readdir(join(root, 'data/snodas/cogs'))).filter((n) => /^\d{8}$/.test(n)).sort();
  let later: [string, string];

  before(async () => {
    ({ dir, cleanup } = await tempDir());
    root = join(dir, 'db');
    const published = new Map<string, string>();
    for (const d of [d3, d2]) published.set(...(await snodasArchiveFile(dir, d)));
    later = await snodasArchiveFile(dir, d1);
    server = await FileServer.start(published);
    await ok('init', root);
    await ok('dataset', 'create', 'snodas', '--template', 'snodas');
    await ok('dataset', 'activate', 'snodas');
    await ok('dataset', 'create', 'swann', '--template', 'swann-800m');
  });
  after(async () => {
    await server.close();
    await cleanup();
  });

  it('a dataset with no dates is told how to start; an inactive one is left alone unless named', async () => {
    const r = await ok('update');
    assert.equal(
      r.stdout.trim(),
      "snodas: no dates yet: run 'snowdb dataset fetch snodas --dates <start>/<end>' first",
    );
    const named = await ok('update', 'swann');
    assert.match(named.stdout, /^swann: no dates yet/);
    assert.equal(server.seen.length, 0);
  });

  it('fetches the dates after the newest, stops at what the producer has without calling it missing, and takes the next day on the next run', async () => {
    await ok('dataset', 'fetch', 'snodas', '--dates', iso(d3));
    const first = await ok('update');
    assert.equal(
      first.stdout.trim(),
      `snodas: ingested 1, upgraded 0, missing 0, failed 0; newest ${iso(d2)}`,
    );
    assert.deepEqual(await dates(), [d3, d2]);
    // The producer publishes the next day; two updates start at once: one works, one stands aside.
    server.files.set(...later);
    // The holder's pause (2 s) outlasts any stagger in the two processes' start-up on a loaded machine.
    const slow = { ...env(), SNOWDB_TEST_SWAP_PAUSE_MS: '2000' };
    const [a, b] = await Promise.all([
      snowdbProcess(['update'], { env: slow }),
      snowdbProcess(['update'], { env: slow }),
    ]);
    assert.equal(a.code, 0, a.stderr);
    assert.equal(b.code, 0, b.stderr);
    const outs = [a.stdout.trim(), b.stdout.trim()].sort();
    assert.match(outs[0]!, /^another update is running \(pid \d+\); nothing done$/);
    assert.equal(outs[1], `snodas: ingested 1, upgraded 0, missing 0, failed 0; newest ${iso(d1)}`);
    assert.deepEqual(await dates(), [d3, d2, d1]);
    // Idempotent: the next run asks only for today, which is not published.
    const seen = server.seen.length;
    const third = await ok('update');
    assert.equal(
      third.stdout.trim(),
      `snodas: ingested 0, upgraded 0, missing 0, failed 0; newest ${iso(d1)}`,
    );
    assert.deepEqual(
      server.seen.slice(seen).map((s) => [s.path.split('/').pop(), s.status]),
      [[`SNODAS_${d0}.tar`, 404]],
    );
  });

  it('exits 1 with the reason when the archive cannot be reached, and changes nothing', async () => {
    const closed = await FileServer.start(new Map());
    const gone = closed.base;
    await closed.close();
    const r = await snowdb(['update', '--format', 'json'], {
      env: { ...env(), SNOWDB_SNODAS_URL: `${gone}/snodas` },
    });
    assert.equal(r.code, 1);
    // Said once for the dataset, not once per date, and not retried.
    const said = `snodas: the archive's host ${new URL(gone).host} does not answer \\(ECONNREFUSED\\): nothing fetched`;
    assert.match(r.stderr + r.stdout, new RegExp(said));
    assert.equal((r.stderr + r.stdout).match(/ECONNREFUSED/g)?.length, 1, r.stderr + r.stdout);
    const report = JSON.parse(r.stdout) as { datasets: { failed: number; error: string | null }[] };
    assert.match(report.datasets[0]!.error!, new RegExp(said));
    assert.deepEqual(await dates(), [d3, d2, d1]);
    const unknown = await snowdb(['update', 'nope'], { env: env() });
    assert.equal(unknown.code, 1);
    assert.match(unknown.stderr, /dataset 'nope'/);
  });

  it('a lock left by a dead update is taken over; a live one held over 6 h is an error cron reports (exit 1)', async () => {
    const lock = join(env().SNOWDB_CONFIG!, '.update.lock');
    const held = await dates();
    // Its holder is gone (a pid no process has): this update runs.
    let dead = 4_000_000;
    while (isAlive(dead)) dead++;
    await writeFile(lock, `${dead} ${hostname()}`);
    const taken = await snowdb(['update'], { env: env() });
    assert.equal(taken.code, 0, taken.stderr);
    assert.doesNotMatch(taken.stdout, /another update/);
    assert.equal(existsSync(lock), false, 'released');
    // Held by a live process (this one, where the CLI runs in-process): recent, nothing done, exit 0.
    await writeFile(lock, `${process.pid} ${hostname()}`);
    const waiting = await snowdb(['update'], { env: env() });
    assert.equal(waiting.code, 0, waiting.stderr);
    assert.match(waiting.stdout, /^another update is running \(pid \d+\); nothing done$/m);
    // The same lock, 7 h old: stalled, exit 1 naming the holder and since when.
    const old = new Date(Date.now() - 7 * 3_600_000);
    await utimes(lock, old, old);
    const stalled = await snowdb(['update'], { env: env() });
    assert.equal(stalled.code, 1);
    assert.match(
      stalled.stderr,
      new RegExp(
        `^Error: another update \\(pid ${process.pid}\\) has held the update lock since ${old.toISOString().slice(0, 16)}.*, over 6 h: it may be stalled`,
      ),
    );
    await rm(lock);
    assert.deepEqual(await dates(), held);
  });
});
