import assert from 'node:assert/strict';
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { SNODAS_BLOCK, snodasArchiveFile, spiresArchiveFile, swannArchiveFile } from '../helpers/archive.js';
import { cliOk, snowdb, snowdbOnTty, tempDir } from '../helpers/cli.js';
import { FileServer } from '../helpers/file-server.js';
import { snapshotTree } from '../helpers/fs.js';
import { oracle } from '../helpers/gdal.js';

const TILES = ['h08v04', 'h08v05', 'h09v04', 'h09v05', 'h10v04'];

describe("dataset fetch: a loopback archive in each producer's layout, with faults", () => {
  let dir: string;
  let cleanup: () => Promise<void>;
  let root: string;
  let server: FileServer;
  let extra: Record<string, string> = {};
  const env = () => ({
    SNOWDB_CONFIG: root,
    SNOWDB_SNODAS_URL: `${server.base}/snodas`,
    SNOWDB_SWANN_URL: `${server.base}/swann`,
    SNOWDB_SPIRES_URL: `${server.base}/spires`,
    SNOWDB_FETCH_BACKOFF_MS: '10',
    SNOWDB_FETCH_IDLE_MS: '1500',
    HOME: dir, // no ~/.netrc of the machine's
    ...extra,
  });
  const ok = cliOk(env);
  const files = (path: string) => server.seen.filter((s) => s.path === path);
  const dateDirs = async (ds: string) =>
    (await readdir(join(root, 'data', ds, 'cogs'))).filter((n) => /^\d{8}$/.test(n)).sort();
  const swe = async (date: string) =>
    (await oracle<{ sum: number }>('raster-sum', join(root, 'data/snodas/cogs', date, 'swe.tif'))).sum;

  before(async () => {
    ({ dir, cleanup } = await tempDir());
    root = join(dir, 'db');
    const published = new Map<string, string>();
    for (const d of ['20240101', '20240102', '20240104', '20240105'])
      published.set(...(await snodasArchiveFile(dir, d)));
    published.set(...(await swannArchiveFile(dir, '20231231', 'early', 5)));
    published.set(...(await swannArchiveFile(dir, '20240101', 'early', 6)));
    published.set(...(await swannArchiveFile(dir, '20240101', 'provisional', 7)));
    for (const t of TILES) published.set(...(await spiresArchiveFile(dir, t, '20240110')));
    for (const t of TILES.slice(0, 3)) published.set(...(await spiresArchiveFile(dir, t, '20240111')));
    server = await FileServer.start(published);
    await ok('init', root);
    for (const [name, template] of [
      ['snodas', 'snodas'],
      ['swann', 'swann-800m'],
      ['spires', 'instarr'],
    ] as const)
      await ok('dataset', 'create', name, '--template', template);
  });
  after(async () => {
    await server.close();
    await cleanup();
  });

  it('--dry-run lists the URLs it would fetch and changes nothing', async () => {
    const before = await snapshotTree(root);
    const r = await ok('dataset', 'fetch', 'snodas', '--dates', '2024-01-01/2024-01-03', '--dry-run');
    assert.match(
      r.stdout,
      /2024-01-01\s+would-fetch\s+0\.0\s+http:\S+\/snodas\/2024\/01_Jan\/SNODAS_20240101\.tar/,
    );
    assert.match(r.stdout, /2024-01-03\s+would-fetch/);
    assert.equal(server.seen.length, 0);
    assert.deepEqual(await snapshotTree(root), before);
  });

  it('survives 503 bursts, resets, a body cut short, an HTML page and a stall; a 404 day is missing', async () => {
    const p = (d: string) => `/snodas/2024/01_Jan/SNODAS_${d}.tar`;
    server.fault(p('20240101'), { kind: 'status', status: 503 }, { kind: 'status', status: 503 });
    server.fault(p('20240102'), { kind: 'reset', after: 200_000 });
    server.fault(p('20240104'), { kind: 'html' }, { kind: 'short', after: 300_000 });
    server.fault(p('20240105'), { kind: 'slow', ms: 2500 });
    const r = await snowdb(
      ['dataset', 'fetch', 'snodas', '--dates', '2024-01-01/2024-01-05', '--format', 'json'],
      {
        env: env(),
      },
    );
    assert.equal(r.code, 0, r.stderr);
    const report = JSON.parse(r.stdout) as { results: { date: string; action: string; message?: string }[] };
    assert.deepEqual(
      report.results.map((x) => [x.date, x.action]),
      [
        ['2024-01-01', 'ingested'],
        ['2024-01-02', 'ingested'],
        ['2024-01-03', 'missing'],
        ['2024-01-04', 'ingested'],
        ['2024-01-05', 'ingested'],
      ],
    );
    assert.match(report.results[2]!.message!, /no SNODAS_20240103\.tar/);
    assert.deepEqual(await dateDirs('snodas'), ['20240101', '20240102', '20240104', '20240105']);
    // Each date holds its own day: a 10 × 10 block of the day of the month (mm).
    const n = SNODAS_BLOCK.n ** 2;
    assert.deepEqual(await Promise.all(['20240101', '20240102', '20240104', '20240105'].map(swe)), [
      1 * n,
      2 * n,
      4 * n,
      5 * n,
    ]);
    // The reset download resumed from its part file with a Range request.
    assert.ok(files(p('20240102')).some((s) => s.status === 206 && s.range?.startsWith('bytes=')));
    assert.equal(files(p('20240101')).length, 3);
    // Downloads are deleted once their dates are ingested.
    assert.deepEqual(await readdir(join(root, '.cache/sources/snodas')), []);

    const seen = server.seen.length;
    const again = await ok('dataset', 'fetch', 'snodas', '--dates', '2024-01-01/2024-01-05');
    assert.match(again.stderr, /ingested 0, upgraded 0, up-to-date 4, missing 1, failed 0; 0\.0 MB/);
    assert.deepEqual(
      server.seen.slice(seen).map((s) => [s.path, s.status]),
      [[p('20240103'), 404]],
    );
  });

  it('a file that stays an HTML page fails its date, names the problem and leaves the database as it was', async () => {
    const [p, file] = await snodasArchiveFile(dir, '20240106');
    server.files.set(p, file);
    server.fault(p, { kind: 'html' }, { kind: 'html' }, { kind: 'html' });
    const before = await snapshotTree(root);
    extra = { SNOWDB_FETCH_RETRIES: '2' };
    try {
      const r = await snowdb(['dataset', 'fetch', 'snodas', '--dates', '2024-01-06'], { env: env() });
      assert.equal(r.code, 1);
      assert.match(
        r.stderr,
        /failed: 2024-01-06: SNODAS_20240106\.tar: not a tar archive \(\d+ bytes, starts with '<!DOCTYPE html>.*\(gave up after 3 attempts\)/,
      );
      assert.equal(files(p).length, 3);
      assert.deepEqual(await snapshotTree(root), before);
    } finally {
      extra = {};
    }
    // The next run, with the archive healthy again, gets the date.
    await ok('dataset', 'fetch', 'snodas', '--dates', '2024-01-06');
    assert.equal(await swe('20240106'), 6 * SNODAS_BLOCK.n ** 2);
  });

  it('an upstream that drips, sends without end or announces more than the format allows is cut, named, and changes nothing', async () => {
    // The database as readers see it (a cut download keeps its part file in .cache/ to resume).
    const state = async () => [...(await snapshotTree(root))].filter(([k]) => !k.startsWith('.cache'));
    const before = await state();
    const [p, file] = await snodasArchiveFile(dir, '20240107');
    const [p8, file8] = await snodasArchiveFile(dir, '20240108');
    const [q, nc] = await swannArchiveFile(dir, '20230102', 'early', 4);
    for (const [k, v] of [
      [p, file],
      [p8, file8],
      [q, nc],
    ] as const)
      server.files.set(k, v);
    extra = { SNOWDB_FETCH_RETRIES: '0', SNOWDB_FETCH_FILE_S: '2' };
    try {
      // One byte every 50 ms: no stall, yet the whole file would take hours; cut after 2 s.
      server.fault(p, { kind: 'drip', everyMs: 50 });
      const t0 = Date.now();
      const drip = await snowdb(['dataset', 'fetch', 'snodas', '--dates', '2024-01-07'], { env: env() });
      assert.equal(drip.code, 1);
      assert.match(
        drip.stderr,
        /SNODAS_20240107\.tar: download interrupted after \d+ bytes \(the whole file took over 2 s\)/,
      );
      assert.ok(Date.now() - t0 < 15_000, `${Date.now() - t0} ms`);
      extra = { SNOWDB_FETCH_RETRIES: '0' }; // the size bound alone from here (a loaded machine streams slower)
      // 3 GB announced: refused before a byte is kept.
      server.fault(p8, { kind: 'announce', bytes: 3e9 });
      const huge = await snowdb(['dataset', 'fetch', 'snodas', '--dates', '2024-01-08'], { env: env() });
      assert.equal(huge.code, 1, huge.stderr);
      assert.match(
        huge.stderr,
        /SNODAS_20240108\.tar: the server announces 3000000000 bytes; a file of this archive holds at most 536870912/,
      );
      // No length, zeros without end: cut at the SWANN bound (128 MiB), the part file gone.
      server.fault(q, { kind: 'endless' });
      const endless = await snowdb(['dataset', 'fetch', 'swann', '--dates', '2023-01-02'], { env: env() });
      assert.equal(endless.code, 1, endless.stderr);
      assert.match(
        endless.stderr,
        /_20230102_early\.nc: the server sent over \d+ bytes; a file of this archive holds at most 134217728/,
      );
      assert.deepEqual(await state(), before);
    } finally {
      extra = {};
      for (const k of [p, p8, q]) server.files.delete(k);
    }
  });

  it('on a terminal a progress line shows dates, MB, rate and ETA', async () => {
    const [p, file] = await snodasArchiveFile(dir, '20240107');
    server.files.set(p, file);
    const r = await snowdbOnTty(['dataset', 'fetch', 'snodas', '--dates', '2024-01-07'], { env: env() });
    assert.equal(r.code, 0, r.stdout);
    assert.match(r.stdout, /snodas fetch \[#{24}\] 1\/1 dates, 1\.\d MB, [\d.]+ MB\/s, ETA 0s/);
    assert.match(r.stdout, /2024-01-07\s+ingested/);
  });

  it('SWANN: takes the most advanced stage the water-year listing names, and upgrades a date when a later one appears', async () => {
    const r = await ok('dataset', 'fetch', 'swann', '--dates', '2023-12-31/2024-01-02', '--keep-downloads');
    assert.match(r.stdout, /2023-12-31\s+ingested\s+\S+\s+UA_SWE_Depth_800m_v1_20231231_early\.nc/);
    assert.match(r.stdout, /2024-01-01\s+ingested\s+\S+\s+UA_SWE_Depth_800m_v1_20240101_provisional\.nc/);
    assert.match(r.stdout, /2024-01-02\s+missing/);
    // One listing per water-year folder; the early file of 2024-01-01 is never downloaded.
    assert.equal(files('/swann/WY2024/').length, 1);
    assert.equal(files('/swann/WY2024/UA_SWE_Depth_800m_v1_20240101_early.nc').length, 0);
    assert.deepEqual((await readdir(join(root, '.cache/sources/swann'))).sort(), [
      'UA_SWE_Depth_800m_v1_20231231_early.nc',
      'UA_SWE_Depth_800m_v1_20240101_provisional.nc',
    ]);
    const manifest = async (d: string) =>
      JSON.parse(await readFile(join(root, 'data/swann/cogs', d, 'manifest.json'), 'utf8')) as {
        fields: { SOURCE_STAGE: string };
      };
    assert.equal((await manifest('20240101')).fields.SOURCE_STAGE, 'provisional');

    const [path, file] = await swannArchiveFile(dir, '20231231', 'stable', 9);
    server.files.set(path, file);
    const up = await ok('dataset', 'fetch', 'swann', '--dates', '2023-12-31/2024-01-01');
    assert.match(up.stdout, /2023-12-31\s+upgraded\s+\S+\s+UA_SWE_Depth_800m_v1_20231231_stable\.nc/);
    assert.match(up.stdout, /2024-01-01\s+up-to-date/);
    assert.equal((await manifest('20231231')).fields.SOURCE_STAGE, 'stable');
  });

  it('SPIRES: a date is fetched only with all five tiles; a login the archive asks for is named', async () => {
    const r = await ok('dataset', 'fetch', 'spires', '--dates', '2024-01-10/2024-01-11');
    assert.match(r.stdout, /2024-01-10\s+ingested/);
    assert.match(r.stdout, /2024-01-11\s+missing/);
    assert.deepEqual(await dateDirs('spires'), ['20240110']);
    const spiresManifest = JSON.parse(
      await readFile(join(root, 'data/spires/cogs/20240110/manifest.json'), 'utf8'),
    ) as { fields: { SOURCE_TILES: string } };
    assert.equal(spiresManifest.fields.SOURCE_TILES, TILES.join(' '));
    const tile = '/spires/h08v04/2024/SPIRES_NRT_h08v04_MOD09GA061_20240112_V1.0.nc';
    server.files.set(tile, server.files.get(tile.replaceAll('20240112', '20240110'))!);
    server.fault(tile, { kind: 'status', status: 401 });
    const denied = await snowdb(['dataset', 'fetch', 'spires', '--dates', '2024-01-12'], { env: env() });
    assert.equal(denied.code, 1);
    assert.match(denied.stderr, /HTTP 401.*set EARTHDATA_TOKEN or add 'machine urs\.earthdata\.nasa\.gov/);
    // The token goes to the Earthdata archive as a bearer; the other archives never see it.
    extra = { EARTHDATA_TOKEN: 'tok-123' };
    try {
      server.fault(tile, { kind: 'status', status: 401 });
      const refused = await snowdb(['dataset', 'fetch', 'spires', '--dates', '2024-01-12'], { env: env() });
      assert.match(refused.stderr, /the credentials sent \(EARTHDATA_TOKEN or ~\/\.netrc\) were refused/);
      assert.equal(files(tile).at(-1)!.authorization, 'Bearer tok-123');
      await ok('dataset', 'fetch', 'snodas', '--dates', '2024-01-03', '--dry-run');
      await snowdb(['dataset', 'fetch', 'snodas', '--dates', '2024-01-03'], { env: env() });
      assert.equal(files('/snodas/2024/01_Jan/SNODAS_20240103.tar').at(-1)!.authorization, undefined);
    } finally {
      extra = {};
    }
  });

  it('bad input: an unknown dataset, a malformed range, an archive that is neither HTTP nor FTP', async () => {
    const before = await snapshotTree(root);
    const cases: [string[], RegExp, Record<string, string>][] = [
      [['dataset', 'fetch', 'nope', '--dates', '2024-01-01'], /dataset 'nope'/, {}],
      [['dataset', 'fetch', 'snodas', '--dates', '2024-13-01'], /'2024-13-01' is not a calendar date/, {}],
      [['dataset', 'fetch', 'snodas', '--dates', '2024-01-05/2024-01-01'], /the start is after the end/, {}],
      [['dataset', 'fetch', 'snodas', '--dates', '/2024-01-01'], /the start date is required/, {}],
      [['dataset', 'fetch', 'snodas', '--dates', '2024-01-01', '--concurrency', '0'], /--concurrency 0/, {}],
      [
        ['dataset', 'fetch', 'snodas', '--dates', '2024-01-01'],
        /is not http\(s\) or ftp/,
        { SNOWDB_SNODAS_URL: 'sftp://x/y' },
      ],
    ];
    for (const [args, message, e] of cases) {
      const r = await snowdb(args, { env: { ...env(), ...e } });
      assert.notEqual(r.code, 0, args.join(' '));
      assert.match(r.stderr, message, args.join(' '));
    }
    assert.deepEqual(await snapshotTree(root), before);
  });
});
