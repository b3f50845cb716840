import assert from 'node:assert/strict';
import { once } from 'node:events';
import { readdir, readFile } from 'node:fs/promises';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { snowdb, spawnSnowdb, tempDir } from '../helpers/cli.js';
import { snapshotTree } from '../helpers/fs.js';
import { FakeGitHub } from '../helpers/github.js';
import { fixturePath } from '../helpers/raster.js';

const FIX = fixturePath('pourpoints');

/** A loopback port nothing listens on (bound, then released). */
async function closedPort(): Promise<number> {
  const s = createServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  const port = (s.address() as AddressInfo).port;
  await new Promise((r) => s.close(r));
  return port;
}
const TREE_URL = 'https://github.com/PSU-CSAR/BAGIS-pourpoints/tree/main/reference';

describe('pourpoint sync from a GitHub folder URL (loopback fake of the REST API and raw host)', () => {
  let dir: string;
  let cleanup: () => Promise<void>;
  let gh: FakeGitHub;
  let root: string;
  const env = (extra: Record<string, string> = {}) => ({ SNOWDB_CONFIG: root, ...gh.env(), ...extra });

  before(async () => {
    ({ dir, cleanup } = await tempDir());
    const files = await FakeGitHub.folder(FIX, 'reference');
    files.set('README.md', join(FIX, '../README.md'));
    gh = await FakeGitHub.start({ owner: 'PSU-CSAR', repo: 'BAGIS-pourpoints', refs: ['main'], files });
    root = join(dir, 'db');
    assert.equal((await snowdb(['init', root])).code, 0);
  });
  after(async () => {
    await gh.close();
    await cleanup();
  });

  it('an interrupted sync (killed mid-download) leaves the database as it was', async () => {
    const before = await snapshotTree(root);
    gh.stall.add('reference/150021_CA_USGS.geojson');
    const child = spawnSnowdb(['pourpoint', 'sync', TREE_URL], { env: env() });
    while (!gh.seen.some((r) => r.url.includes('150021_CA_USGS')))
      await new Promise((r) => setTimeout(r, 20));
    child.kill('SIGKILL');
    await once(child, 'close');
    gh.stall.clear();
    assert.deepEqual(await snapshotTree(root), before);
  });

  it('lists the folder through the API, downloads raw files, and sends GITHUB_TOKEN', async () => {
    gh.seen.length = 0;
    const r = await snowdb(['pourpoint', 'sync', TREE_URL], { env: env({ GITHUB_TOKEN: 'tok123' }) });
    assert.equal(r.code, 0, r.stderr);
    assert.equal(
      r.stdout.trim(),
      'imported 9 (9 new, 0 updated), 0 unchanged, skipped 2 point-only, pruned 0, invalid 0',
    );
    assert.match(
      r.stderr,
      /syncing 11 record file\(s\) from PSU-CSAR\/BAGIS-pourpoints@c0ffee000000:reference/,
    );
    const names = (await readdir(join(root, 'pourpoints'))).filter((n) => n !== 'index.geojson');
    assert.equal(names.length, 9);
    for (const n of names)
      assert.deepEqual(await readFile(join(root, 'pourpoints', n)), await readFile(join(FIX, n)));
    assert.equal(gh.rawRequests().length, 11); // README.md is not a record: never fetched
    assert.ok(gh.seen.every((s) => s.authorization === 'Bearer tok123'));
  });

  it('a second sync downloads no unchanged basin record (git blob shas match)', async () => {
    gh.seen.length = 0;
    const before = await snapshotTree(root);
    const r = await snowdb(['pourpoint', 'sync', TREE_URL], { env: env() });
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /^imported 0 \(0 new, 0 updated\), 9 unchanged, skipped 2 point-only/);
    // Only the two point-only records (never stored) are fetched again.
    assert.deepEqual(
      gh
        .rawRequests()
        .map((s) => s.url.split('/').pop())
        .sort(),
      ['008NG005_BC_USGS.geojson', '10020300_UT_USGS.geojson'],
    );
    assert.ok(gh.seen.every((s) => s.authorization === undefined));
    assert.deepEqual(await snapshotTree(root), before);
  });

  it('clear errors for an unknown ref or folder, a rate limit, and an unreachable host', async () => {
    const before = await snapshotTree(root);
    const badRef = await snowdb(
      ['pourpoint', 'sync', 'https://github.com/PSU-CSAR/BAGIS-pourpoints/tree/nope/reference'],
      { env: env() },
    );
    assert.equal(badRef.code, 1);
    assert.match(badRef.stderr, /^Error: GitHub knows no ref 'nope' in PSU-CSAR\/BAGIS-pourpoints/m);
    const badPath = await snowdb(
      ['pourpoint', 'sync', 'https://github.com/PSU-CSAR/BAGIS-pourpoints/tree/main/user'],
      { env: env() },
    );
    assert.equal(badPath.code, 1);
    assert.match(badPath.stderr, /^Error: PSU-CSAR\/BAGIS-pourpoints@c0ffee000000 has no folder 'user'/m);
    gh.rateLimited = true;
    const limited = await snowdb(['pourpoint', 'sync', TREE_URL], { env: env() });
    gh.rateLimited = false;
    assert.equal(limited.code, 1);
    assert.match(
      limited.stderr,
      /rate limit exceeded \(HTTP 403\) until 2030-01-01T00:00:00\.000Z; set GITHUB_TOKEN/,
    );
    const port = await closedPort();
    const down = await snowdb(['pourpoint', 'sync', TREE_URL], {
      env: env({ SNOWDB_GITHUB_API_URL: `http://127.0.0.1:${port}/api` }),
    });
    assert.equal(down.code, 1);
    assert.match(
      down.stderr,
      new RegExp(
        `^Error: could not fetch http://127\\.0\\.0\\.1:${port}/api/repos/PSU-CSAR/BAGIS-pourpoints/commits/main: ECONNREFUSED`,
        'm',
      ),
    );
    const notFolder = await snowdb(['pourpoint', 'sync', 'https://example.org/records/'], { env: env() });
    assert.equal(notFolder.code, 2);
    assert.match(notFolder.stderr, /is not a GitHub folder URL/);
    assert.deepEqual(await snapshotTree(root), before);
  });

  it('import takes a raw file URL and a GitHub blob URL', async () => {
    const fresh = join(dir, 'db2');
    assert.equal((await snowdb(['init', fresh])).code, 0);
    const raw = `${gh.base}/raw/PSU-CSAR/BAGIS-pourpoints/c0ffee0000000000000000000000000000000001/reference/10311100_NV_USGS.geojson`;
    const a = await snowdb(['pourpoint', 'import', raw], { env: { ...env(), SNOWDB_CONFIG: fresh } });
    assert.equal(a.code, 0, a.stderr);
    assert.match(a.stdout, /^imported 1 \(1 new/);
    const blob =
      'https://github.com/PSU-CSAR/BAGIS-pourpoints/blob/c0ffee0000000000000000000000000000000001/reference/150021_CA_USGS.geojson';
    const b = await snowdb(['pourpoint', 'import', blob], { env: { ...env(), SNOWDB_CONFIG: fresh } });
    assert.equal(b.code, 0, b.stderr);
    assert.deepEqual(
      await readFile(join(fresh, 'pourpoints/150021_CA_USGS.geojson')),
      await readFile(join(FIX, '150021_CA_USGS.geojson')),
    );
    const gone = await snowdb(['pourpoint', 'import', `${gh.base}/raw/nothing.geojson`], {
      env: { ...env(), SNOWDB_CONFIG: fresh },
    });
    assert.equal(gone.code, 1);
    assert.match(gone.stderr, /nothing\.geojson: not found \(HTTP 404\)/);
  });
});
