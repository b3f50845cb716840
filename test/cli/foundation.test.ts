import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { openSync } from 'node:fs';
import { mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { problemOf } from '../../src/api/problems.js';
import { operatorError } from '../../src/errors.js';
import { CLI, snowdb, snowdbProcess, tempDir } from '../helpers/cli.js';
import { snapshotTree } from '../helpers/fs.js';

const pkg = JSON.parse(await readFile(new URL('../../../package.json', import.meta.url), 'utf8')) as {
  version: string;
};

describe('snowdb CLI foundation', () => {
  let dir: string;
  let cleanup: () => Promise<void>;
  before(async () => ({ dir, cleanup } = await tempDir()));
  after(() => cleanup());

  it('prints the package version and describes every command', async () => {
    const v = await snowdb(['--version']);
    assert.equal(v.code, 0);
    assert.equal(v.stdout.trim(), pkg.version);
    const help = await snowdb(['--help']);
    assert.equal(help.code, 0);
    for (const cmd of ['init', 'status']) assert.match(help.stdout, new RegExp(`^  ${cmd}\\b`, 'm'));
    assert.match(help.stdout, /--config <path>/);
    const initHelp = await snowdb(['init', '--help']);
    assert.equal(initHelp.code, 0);
    assert.match(initHelp.stdout, /Usage: snowdb init \[options\] \[dir\]/);
  });

  it('init creates snowdb.json, pourpoints/ and data/ and a second init changes nothing', async () => {
    const root = join(dir, 'db1');
    const r = await snowdb(['init', root]);
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stdout.trim(), `initialized snowdb database at ${root}`);
    assert.deepEqual((await readdir(root)).sort(), ['data', 'pourpoints', 'snowdb.json']);
    const config = JSON.parse(await readFile(join(root, 'snowdb.json'), 'utf8'));
    assert.equal(config.resource, 'snowdb.database/v1');
    assert.deepEqual(config.datasets, {});
    assert.deepEqual(config.pourpoints, { records: 'pourpoints', index: 'pourpoints/index.geojson' });
    assert.ok(Math.abs(Date.parse(config.created_at) - Date.now()) < 60_000, config.created_at);

    const before = await snapshotTree(root);
    const again = await snowdb(['init', root]);
    assert.equal(again.code, 0);
    assert.match(again.stdout, /already at .*nothing changed/);
    assert.deepEqual(await snapshotTree(root), before);
  });

  it('refuses a non-empty directory that is not a database, and writes nothing there', async () => {
    const root = join(dir, 'busy');
    await mkdir(root);
    await writeFile(join(root, 'notes.txt'), 'mine');
    const r = await snowdb(['init', root]);
    assert.equal(r.code, 1);
    assert.match(r.stderr, /^Error: .*busy is not empty and is not a snowdb database/);
    assert.deepEqual(await readdir(root), ['notes.txt']);
  });

  it('refuses an existing snowdb.json that does not validate, naming the file', async () => {
    const root = join(dir, 'broken');
    await mkdir(root);
    await writeFile(join(root, 'snowdb.json'), '{"resource": "something/else"}');
    for (const args of [
      ['init', root],
      ['status', '--config', root],
    ]) {
      const r = await snowdb(args);
      assert.equal(r.code, 1, args.join(' '));
      assert.match(r.stderr, /^Error: .*broken\/snowdb\.json is not a snowdb root config at resource/);
    }
  });

  it('resolves the database from --config or SNOWDB_CONFIG, as a directory or its snowdb.json', async () => {
    const root = join(dir, 'db2');
    assert.equal((await snowdb(['init', '--config', root])).code, 0);
    const forms: [string[], Record<string, string>][] = [
      [['status', '--config', root], {}],
      [['--config', join(root, 'snowdb.json'), 'status'], {}],
      [['status'], { SNOWDB_CONFIG: root }],
      [['status'], { SNOWDB_CONFIG: join(root, 'snowdb.json') }],
      // --config wins over the environment
      [['status', '--config', root], { SNOWDB_CONFIG: join(dir, 'nowhere') }],
    ];
    for (const [args, env] of forms) {
      const r = await snowdb([...args, '--format', 'json'], { env });
      assert.equal(r.code, 0, `${args.join(' ')} ${JSON.stringify(env)}: ${r.stderr}`);
      assert.deepEqual(JSON.parse(r.stdout), { root, datasets: [], pourpoints: 0 });
    }
  });

  it('status on an empty database says there are no datasets and no pourpoints yet', async () => {
    const root = join(dir, 'db3');
    await snowdb(['init', root]);
    const r = await snowdb(['status'], { env: { SNOWDB_CONFIG: root } });
    assert.equal(r.code, 0);
    assert.match(r.stdout, /^database: .*db3$/m);
    assert.match(r.stdout, /^datasets: none yet/m);
    assert.match(r.stdout, /^pourpoints: none yet/m);
    assert.equal(r.stderr, '');
  });

  it('a command needing a database fails with exit 1 naming both ways to set it', async () => {
    const r = await snowdb(['status']);
    assert.equal(r.code, 1);
    assert.equal(
      r.stderr,
      'Error: no database configured: pass --config <dir|snowdb.json> or set SNOWDB_CONFIG\n',
    );
    assert.equal(r.stdout, '');
  });

  it('names a missing database and a directory without snowdb.json', async () => {
    const missing = await snowdb(['status', '--config', join(dir, 'absent')]);
    assert.equal(missing.code, 1);
    assert.match(missing.stderr, /^Error: .*absent \(from --config\) does not exist\n$/);
    await mkdir(join(dir, 'plain'));
    const plain = await snowdb(['status'], { env: { SNOWDB_CONFIG: join(dir, 'plain') } });
    assert.equal(plain.code, 1);
    assert.match(
      plain.stderr,
      /plain \(from SNOWDB_CONFIG\) is not a snowdb database: it has no snowdb\.json/,
    );
  });

  it('usage errors exit 2', async () => {
    for (const args of [
      ['no-such-command'],
      ['status', '--format', 'xml'],
      ['status', '--bogus'],
      ['init', 'a', 'b'],
    ]) {
      const r = await snowdb(args);
      assert.equal(r.code, 2, `${args.join(' ')}: ${r.stderr}`);
      assert.match(r.stderr, /error: /);
    }
  });

  it('the real process (smoke): exit 0 with the version, 1 with a domain error, 2 with a usage error', async () => {
    const v = await snowdbProcess(['--version']);
    assert.deepEqual([v.code, v.stdout.trim(), v.stderr], [0, pkg.version, '']);
    const domain = await snowdbProcess(['status']);
    assert.equal(domain.code, 1);
    assert.equal(
      domain.stderr,
      'Error: no database configured: pass --config <dir|snowdb.json> or set SNOWDB_CONFIG\n',
    );
    const usage = await snowdbProcess(['status', '--bogus']);
    assert.equal(usage.code, 2);
    assert.match(usage.stderr, /error: unknown option '--bogus'/);
    const root = join(dir, 'db-process');
    const init = await snowdbProcess(['init'], { env: { SNOWDB_CONFIG: root } });
    assert.equal(init.code, 0, init.stderr);
    assert.equal(init.stdout.trim(), `initialized snowdb database at ${root}`);
    // Output to a full device (/dev/full answers every write with ENOSPC): one line naming it, exit 1.
    const full = spawn(process.execPath, [CLI, 'dataset', 'list'], {
      env: { ...process.env, SNOWDB_CONFIG: root },
      stdio: ['ignore', openSync('/dev/full', 'w'), 'pipe'],
    });
    let err = '';
    full.stderr!.setEncoding('utf8').on('data', (d: string) => (err += d));
    const [code] = (await once(full, 'close')) as [number];
    assert.equal(code, 1);
    assert.equal(err, 'Error: cannot write the output (ENOSPC): ENOSPC: no space left on device, write\n');
  });

  it('a full disk is an operator error (disk-full: exit 1, HTTP 507) naming the file, not a bug', async () => {
    // A real ENOSPC (/dev/full answers every write so), named as the atomic writes name it.
    const e = (await writeFile('/dev/full', 'x').catch((x: unknown) => x)) as NodeJS.ErrnoException;
    assert.equal(e.code, 'ENOSPC');
    e.path = '/db/data/snodas/dataset.json';
    const known = operatorError(e);
    assert.equal(known?.key, 'disk-full');
    assert.equal(known?.kind.exit, 1);
    assert.equal(
      known?.message,
      'no space left on the device writing /db/data/snodas/dataset.json (ENOSPC): free some space, then run the same command again (what was being written is not in use; the rest is as it was)',
    );
    assert.deepEqual([problemOf(e).status, problemOf(e).type], [507, '/problems/disk-full']);
    assert.equal(operatorError(new Error('other')), null);
  });
});
