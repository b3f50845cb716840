import assert from 'node:assert/strict';
import { mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { SnowdbError } from '../../src/errors.js';
import { ftpDownload } from '../../src/io/ftp.js';
import { spiresArchiveFile } from '../helpers/archive.js';
import { cliOk, snowdb, tempDir } from '../helpers/cli.js';
import { snapshotTree } from '../helpers/fs.js';
import { FtpArchive } from '../helpers/ftp-server.js';

const TILES = ['h08v04', 'h08v05', 'h09v04', 'h09v05', 'h10v04'];
const tilePath = (tile: string, date: string) =>
  `/spires/${tile}/${date.slice(0, 4)}/SPIRES_NRT_${tile}_MOD09GA061_${date}_V1.0.nc`;

describe('dataset fetch over FTP: SPIRES NRT from a real FTP server in the public layout', () => {
  let dir: string;
  let cleanup: () => Promise<void>;
  let root: string;
  let ftp: FtpArchive;
  const env = () => ({
    SNOWDB_CONFIG: root,
    SNOWDB_SPIRES_URL: `${ftp.base}/spires`,
    SNOWDB_FETCH_BACKOFF_MS: '10',
    SNOWDB_FETCH_IDLE_MS: '3000',
    HOME: dir, // the test's own ~/.netrc, not the machine's
  });
  const ok = cliOk(env);
  const cogs = async (db: string, date: string) => {
    const folder = join(db, 'data/spires/cogs', date);
    const names = (await readdir(folder)).filter((n) => n.endsWith('.tif')).sort();
    return new Map(await Promise.all(names.map(async (n) => [n, await readFile(join(folder, n))] as const)));
  };

  before(async () => {
    ({ dir, cleanup } = await tempDir());
    root = join(dir, 'db');
    const published = new Map<string, string>();
    for (const t of TILES) published.set(...(await spiresArchiveFile(dir, t, '20240110')));
    for (const t of TILES.slice(0, 3)) published.set(...(await spiresArchiveFile(dir, t, '20240111')));
    ftp = await FtpArchive.start(published);
    await ok('init', root);
    await ok('dataset', 'create', 'spires', '--template', 'instarr');
  });
  after(async () => {
    await ftp?.close();
    await cleanup();
  });

  it('fetches a whole date through a cut-short transfer and a reset (resumed with REST), reports a date with missing tiles, and a rerun fetches nothing', async () => {
    await ftp.fault(tilePath('h08v05', '20240110'), { kind: 'short', after: 200_000 });
    await ftp.fault(tilePath('h09v04', '20240110'), { kind: 'reset', after: 100_000 });
    const dry = await ok('dataset', 'fetch', 'spires', '--dates', '2024-01-10', '--dry-run');
    assert.match(
      dry.stdout,
      /2024-01-10\s+would-fetch\s+\S+\s+ftp:\/\/127\.0\.0\.1:\d+\/spires\/h08v04\/2024\//,
    );
    assert.equal((await ftp.seen()).length, 0);

    const r = await ok('dataset', 'fetch', 'spires', '--dates', '2024-01-10/2024-01-11');
    assert.match(r.stdout, /2024-01-10\s+ingested/);
    assert.match(r.stdout, /2024-01-11\s+missing/);
    const seen = await ftp.seen();
    const retrs = (tile: string) => seen.filter((s) => s.path === tilePath(tile, '20240110'));
    // The cut-short file ends at 200,000 bytes; the retry asks for the rest only.
    assert.deepEqual(
      retrs('h08v05').map((s) => s.rest),
      [0, 200_000],
    );
    // The reset one is fetched again from what had landed (pyftpdlib's 426 may beat its data).
    const reset = retrs('h09v04').map((s) => s.rest);
    assert.equal(reset.length, 2);
    assert.equal(reset[0], 0);
    assert.ok(reset[1]! <= 100_000, `resumed at ${reset[1]}`);
    assert.ok(seen.every((s) => s.user === 'anonymous'));
    // 2024-01-11 has three of five tiles: none is ingested, the first absent one ends the try.
    assert.deepEqual(
      (await readdir(join(root, 'data/spires/cogs'))).filter((n) => /^\d{8}$/.test(n)),
      ['20240110'],
    );
    // The source cache is emptied once ingested (no --keep-downloads).
    assert.deepEqual(await readdir(join(root, '.cache/sources/spires')), []);

    // What came over FTP is what the same tiles give when ingested from disk, byte for byte.
    const other = join(dir, 'other-db');
    const inOther = cliOk(() => ({ ...env(), SNOWDB_CONFIG: other }));
    await inOther('init', other);
    await inOther('dataset', 'create', 'spires', '--template', 'instarr');
    const local = join(dir, 'local-tiles');
    await mkdir(local);
    for (const t of TILES)
      await writeFile(
        join(local, `SPIRES_NRT_${t}_MOD09GA061_20240110_V1.0.nc`),
        await readFile(join(dir, 'spires', t, `SPIRES_NRT_${t}_MOD09GA061_20240110_V1.0.nc`)),
      );
    await inOther('dataset', 'ingest', 'spires', local);
    const [fetched, ingested] = [await cogs(root, '20240110'), await cogs(other, '20240110')];
    assert.equal(fetched.size, 9);
    assert.deepEqual([...fetched.keys()], [...ingested.keys()]);
    for (const [name, bytes] of fetched) assert.ok(bytes.equals(ingested.get(name)!), name);

    const before = await snapshotTree(root);
    const again = await ok('dataset', 'fetch', 'spires', '--dates', '2024-01-10');
    assert.match(again.stdout, /2024-01-10\s+up-to-date/);
    assert.equal((await ftp.seen()).length, seen.length);
    assert.deepEqual(await snapshotTree(root), before);
  });

  it('bounds a transfer: a file larger than the archive allows (announced or sent) is refused and removed; one past the time bound is cut and resumes', async () => {
    const path = tilePath('h08v05', '20240110');
    const url = `${ftp.base}${path}`;
    const original = await readFile(join(dir, 'spires/h08v05/SPIRES_NRT_h08v05_MOD09GA061_20240110_V1.0.nc'));
    const size = original.length;
    const target = join(dir, 'bounds.nc');
    const limits = { login: null, idleMs: 5_000 };
    const retrs = async () => (await ftp.seen()).filter((r) => r.path === path).length;
    const r0 = await retrs();
    // Announced (SIZE) past the bound: refused before any byte is asked for.
    await assert.rejects(
      ftpDownload(url, target, { ...limits, maxBytes: size - 1 }),
      (e: unknown) =>
        SnowdbError.is(e) &&
        e.key === 'source-too-large' &&
        e.message ===
          `${url}: the server announces ${size} bytes; a file of this archive holds at most ${size - 1}`,
    );
    assert.equal(await retrs(), r0, 'no RETR');
    // Sent past the bound (a server that goes on past its SIZE): cut there, nothing kept.
    await ftp.fault(path, { kind: 'endless' });
    await assert.rejects(
      ftpDownload(url, target, { ...limits, maxBytes: size + 200_000 }),
      (e: unknown) =>
        SnowdbError.is(e) && e.key === 'source-too-large' && /sent over \d+ bytes/.test(e.message),
    );
    await assert.rejects(readFile(`${target}.part`), { code: 'ENOENT' });
    // A drip past the whole-file bound: cut, the part kept; the next call resumes and completes.
    await ftp.fault(path, { kind: 'drip' });
    const t0 = Date.now();
    await assert.rejects(
      ftpDownload(url, target, { ...limits, totalMs: 1_000 }),
      (e: unknown) =>
        SnowdbError.is(e) &&
        e.key === 'source-unreachable' &&
        e.message === `${url}: the whole file took over 1 s; run the command again to resume`,
    );
    assert.ok(Date.now() - t0 < 4_000, `cut after ${Date.now() - t0} ms`);
    const kept = (await readFile(`${target}.part`)).length;
    assert.ok(kept > 0 && kept < size, `${kept} bytes kept`);
    await ftpDownload(url, target, limits);
    assert.deepEqual(await readFile(target), original);
    assert.equal((await ftp.seen()).at(-1)!.rest, kept, 'resumed where the cut left it');
  });

  it('logs in with the ~/.netrc entry of the host, and names a refused login', async () => {
    await ftp.refuseAnonymous(true);
    try {
      const before = await snapshotTree(root);
      const anon = await snowdb(['dataset', 'fetch', 'spires', '--dates', '2024-01-11'], { env: env() });
      assert.equal(anon.code, 1);
      assert.match(
        anon.stderr,
        /refused an anonymous login \(FTP 530\); add 'machine 127\.0\.0\.1 login <user> password <password>' to ~\/\.netrc/,
      );
      await writeFile(join(dir, '.netrc'), 'machine 127.0.0.1 login snow password wrong\n');
      const wrong = await snowdb(['dataset', 'fetch', 'spires', '--dates', '2024-01-11'], { env: env() });
      assert.equal(wrong.code, 1);
      assert.match(wrong.stderr, /refused the login of ~\/\.netrc \(FTP 530\)/);
      assert.deepEqual(await snapshotTree(root), before);

      await writeFile(join(dir, '.netrc'), 'machine 127.0.0.1 login snow password pw\n');
      const [n, logins] = [(await ftp.seen()).length, (await ftp.logins()).length];
      const r = await ok('dataset', 'fetch', 'spires', '--dates', '2024-01-11', '--concurrency', '1');
      assert.match(r.stdout, /2024-01-11\s+missing/);
      // One download at a time: h08v04, h08v05, h09v04, then h09v05 is absent (550) and ends the date.
      const mine = (await ftp.seen()).slice(n);
      assert.deepEqual(
        mine.map((s) => s.path),
        TILES.slice(0, 3).map((t) => tilePath(t, '20240111')),
      );
      assert.ok(mine.every((s) => s.user === 'snow'));
      // The whole run, the listings and the 550 included, is one session: one login, not one per file.
      assert.deepEqual((await ftp.logins()).slice(logins), ['snow']);
    } finally {
      await ftp.refuseAnonymous(false);
    }
  });
});
