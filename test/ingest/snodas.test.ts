import assert from 'node:assert/strict';
import {
  copyFile,
  mkdir,
  readdir,
  readFile,
  readlink,
  rm,
  stat,
  truncate,
  writeFile,
} from 'node:fs/promises';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { TEMPLATES } from '../../src/datasets/templates.js';
import { SnowdbError } from '../../src/errors.js';
import { toStoredUnits } from '../../src/ingest/snodas.js';
import { snowdb, tempDir } from '../helpers/cli.js';
import { snapshotTree } from '../helpers/fs.js';
import { type OracleInfo, oracle } from '../helpers/gdal.js';
import { memberNames, PRODUCTS, tarOf, writeMembers } from '../helpers/snodas.js';

describe('dataset ingest: SNODAS daily tars', () => {
  let dir: string;
  let cleanup: () => Promise<void>;
  let root: string;
  let gen: string;
  let tarNow: string;
  let tarOld: string;
  let stemsNow: Map<string, string>;
  const env = () => ({ SNOWDB_CONFIG: root });
  const cogs = (date: string) => join(root, 'data/snodas/cogs', date);

  before(async () => {
    ({ dir, cleanup } = await tempDir());
    root = join(dir, 'db');
    gen = join(dir, 'gen');
    assert.equal((await snowdb(['init', root])).code, 0);
    assert.equal(
      (await snowdb(['dataset', 'create', 'snodas', '--template', 'snodas'], { env: env() })).code,
      0,
    );
    stemsNow = await writeMembers(join(gen, 'now'), '20240115', 'current', 'txt');
    const stemsOld = await writeMembers(join(gen, 'old'), '20100616', 'pre2013', 'Hdr');
    tarNow = await tarOf(join(dir, 'SNODAS_20240115.tar'), join(gen, 'now'), memberNames(stemsNow, 'txt'));
    tarOld = await tarOf(join(dir, 'SNODAS_20100616.tar'), join(gen, 'old'), memberNames(stemsOld, 'Hdr'));
  });
  after(() => cleanup());

  it('ingests two tars in parallel (current grid, .txt headers; pre-2013 lattice, .Hdr headers)', async () => {
    const r = await snowdb(['dataset', 'ingest', 'snodas', tarNow, tarOld], { env: env() });
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /^snodas\s+2010-06-16\s+ingested\s+SNODAS_20100616\.tar$/m);
    assert.match(r.stdout, /^snodas\s+2024-01-15\s+ingested\s+SNODAS_20240115\.tar$/m);
    assert.match(r.stderr, /ingested 2, up-to-date 0, kept later stage 0, failed 0/);
    assert.deepEqual(
      (await readdir(cogs('20240115'))).sort(),
      [...PRODUCTS.map((p) => `${p.variable}.tif`), 'manifest.json'].sort(),
    );
    const info = JSON.parse(
      (await snowdb(['dataset', 'info', 'snodas', '--format', 'json'], { env: env() })).stdout,
    );
    assert.deepEqual(info.date_list, ['2010-06-16', '2024-01-15']);
  });

  it("every COG holds what GDAL's SNODAS driver reads from the source, on the dataset grid", async () => {
    for (const p of PRODUCTS) {
      const stem = stemsNow.get(p.variable)!;
      const [src, cog] = await oracle<OracleInfo[]>(
        'info',
        join(gen, 'now', `${stem}.hdr`),
        join(cogs('20240115'), `${p.variable}.tif`),
      );
      assert.equal(cog!.sha256, src!.sha256, p.variable);
      assert.deepEqual(cog!.cog_errors, []);
      assert.equal(cog!.nodata, -9999);
      assert.deepEqual(cog!.size, [6935, 3351]);
      for (let i = 0; i < 6; i++)
        assert.ok(Math.abs(cog!.geotransform[i]! - src!.geotransform[i]!) < 1e-9, `${p.variable} gt[${i}]`);
      assert.equal(cog!.metadata.SOURCE_STEM, stem);
      assert.equal(cog!.metadata.SOURCE_DATE, '2024-01-15');
      assert.match(cog!.metadata.SOURCE_HASH!, /^v1:[0-9a-f]{64}$/);
    }
    const [temp] = await oracle<OracleInfo[]>('info', join(cogs('20240115'), 'average_temp.tif'));
    assert.match(temp!.metadata.SOURCE_UNITS_RULE!, /median raw value 26\d\d → divisor 10/);
  });

  it('the pre-2013 lattice is aligned to the dataset grid with its own bounds recorded', async () => {
    const [cog] = await oracle<OracleInfo[]>('info', join(cogs('20100616'), 'swe.tif'));
    assert.deepEqual(
      cog!.geotransform,
      [-124.73333333333333, 0.008333333333333, 0, 52.875, 0, -0.008333333333333],
    );
    assert.equal(cog!.metadata.SOURCE_LATTICE, 'pre-2013-10-01');
    assert.equal(
      cog!.metadata.SOURCE_BOUNDS,
      '-124.733749999995 24.9495833333324 -66.9420833333302 52.8745833333313',
    );
  });

  it('an up-to-date date is skipped without rewriting; --force rebuilds; changed bytes rebuild', async () => {
    const before = await snapshotTree(join(root, 'data'));
    const again = await snowdb(['dataset', 'ingest', 'snodas', tarNow], { env: env() });
    assert.equal(again.code, 0, again.stderr);
    assert.match(again.stdout, /2024-01-15\s+up-to-date/);
    assert.deepEqual(await snapshotTree(join(root, 'data')), before);
    const forced = await snowdb(['dataset', 'ingest', 'snodas', tarNow, '--force'], { env: env() });
    assert.match(forced.stdout, /2024-01-15\s+ingested/);
    // A re-release: same products, a tar with the members in another order (other bytes).
    await mkdir(join(dir, 'rerelease'));
    const rerelease = await tarOf(
      join(dir, 'rerelease/SNODAS_20240115.tar'),
      join(gen, 'now'),
      memberNames(stemsNow, 'txt').reverse(),
    );
    const r = await snowdb(['dataset', 'ingest', 'snodas', rerelease], { env: env() });
    assert.match(r.stdout, /2024-01-15\s+ingested/);
  });

  it('two concurrent ingests of the same date both finish and leave one complete, correct date', async () => {
    const [a, b] = await Promise.all([
      snowdb(['dataset', 'ingest', 'snodas', tarNow, '--force'], { env: env() }),
      snowdb(['dataset', 'ingest', 'snodas', tarNow, '--force'], { env: env() }),
    ]);
    assert.equal(a.code, 0, a.stderr);
    assert.equal(b.code, 0, b.stderr);
    assert.deepEqual(
      (await readdir(cogs('20240115'))).sort(),
      [...PRODUCTS.map((p) => `${p.variable}.tif`), 'manifest.json'].sort(),
    );
    // Nothing left beside the date links but the versions they point to (no lock, no staging).
    const names = await readdir(join(root, 'data/snodas/cogs'));
    const dates = names.filter((n) => !n.startsWith('.'));
    assert.deepEqual(
      names.filter((n) => n.startsWith('.')).sort(),
      (await Promise.all(dates.map((n) => readlink(join(root, 'data/snodas/cogs', n))))).sort(),
    );
    const [src, cog] = await oracle<OracleInfo[]>(
      'info',
      join(gen, 'now', `${stemsNow.get('swe')}.hdr`),
      join(cogs('20240115'), 'swe.tif'),
    );
    assert.equal(cog!.sha256, src!.sha256);
  });

  it('bad input: each gets a message naming the file and the problem; the dataset is unchanged', async () => {
    const now = join(gen, 'now');
    const names = memberNames(stemsNow, 'txt');
    const bad = join(dir, 'bad');
    await mkdir(bad);
    const cases: [string, () => Promise<string>, RegExp][] = [
      [
        'truncated',
        async () => {
          const p = join(bad, 'SNODAS_truncated.tar');
          await copyFile(tarNow, p);
          await truncate(p, Math.floor((await stat(p)).size / 2));
          return p;
        },
        /SNODAS_truncated\.tar: truncated tar: member .* needs \d+ bytes/,
      ],
      [
        'missing',
        () => tarOf(join(bad, 'SNODAS_missing.tar'), now, memberNames(stemsNow, 'txt', 'runoff')),
        /SNODAS_missing\.tar: missing product\(s\) runoff/,
      ],
      [
        'bad gzip',
        async () => {
          const d = join(bad, 'gz');
          await mkdir(d);
          for (const n of names) await copyFile(join(now, n), join(d, n));
          await writeFile(join(d, `${stemsNow.get('swe')}.dat.gz`), 'not gzip at all');
          return tarOf(join(bad, 'SNODAS_badgzip.tar'), d, names);
        },
        /SNODAS_badgzip\.tar: member us_ssmv11034tS__T0001TTNATS2024011505HP001\.dat\.gz is not valid gzip/,
      ],
      [
        'duplicate',
        async () => {
          const d = join(bad, 'dup');
          await mkdir(d);
          for (const n of names) await copyFile(join(now, n), join(d, n));
          const swe = stemsNow.get('swe')!;
          const other = swe.replace('HP001', 'HP000');
          await copyFile(join(now, `${swe}.dat.gz`), join(d, `${other}.dat.gz`));
          await copyFile(join(now, `${swe}.txt.gz`), join(d, `${other}.txt.gz`));
          return tarOf(join(bad, 'SNODAS_dup.tar'), d, [...names, `${other}.dat.gz`, `${other}.txt.gz`]);
        },
        /SNODAS_dup\.tar: product swe appears twice/,
      ],
      [
        'unmasked',
        async () => {
          const d = join(bad, 'zz');
          await mkdir(d);
          const zz = names.map((n) => n.replace(/^us_/, 'zz_'));
          for (let i = 0; i < names.length; i++) await copyFile(join(now, names[i]!), join(d, zz[i]!));
          return tarOf(join(bad, 'SNODAS_zz.tar'), d, zz);
        },
        /SNODAS_zz\.tar: .* is on the 'zz' grid; only the masked 'us' grid is supported/,
      ],
      [
        'not a tar',
        async () => {
          const p = join(bad, 'SNODAS_20240116.tar');
          await writeFile(p, 'hello, this is a text file and not a tar archive\n'.repeat(40));
          return p;
        },
        /SNODAS_20240116\.tar: not a tar archive, or damaged at byte 0/,
      ],
    ];
    const before = await snapshotTree(join(root, 'data'));
    for (const [what, make, msg] of cases) {
      const file = await make();
      const r = await snowdb(['dataset', 'ingest', 'snodas', file], { env: env() });
      assert.equal(r.code, 1, what);
      assert.match(r.stderr, msg, what);
      assert.deepEqual(await snapshotTree(join(root, 'data')), before, what);
    }
    // A good and a bad source in one call: the good date is ingested, the exit code is 1.
    await rm(cogs('20100616'), { recursive: true });
    const mixed = await snowdb(['dataset', 'ingest', 'snodas', tarOld, join(bad, 'SNODAS_missing.tar')], {
      env: env(),
    });
    assert.equal(mixed.code, 1);
    assert.match(mixed.stdout, /2010-06-16\s+ingested/);
    assert.match(mixed.stderr, /failed: .*SNODAS_missing\.tar: missing product/);
  });

  it('a header with other dimensions is refused by name', async () => {
    const d = join(dir, 'dims');
    await mkdir(d);
    const names = memberNames(stemsNow, 'txt');
    for (const n of names) await copyFile(join(gen, 'now', n), join(d, n));
    const swe = stemsNow.get('swe')!;
    const text = (await readFile(join(gen, 'now', `${swe}.txt`), 'latin1')).replace(
      /^Number of columns: .*$/m,
      'Number of columns: 7000',
    );
    await writeFile(join(d, `${swe}.txt`), text);
    await rm(join(d, `${swe}.txt.gz`));
    const { execFileSync } = await import('node:child_process');
    execFileSync('gzip', ['-1', join(d, `${swe}.txt`)]);
    const tar = await tarOf(join(dir, 'SNODAS_dims.tar'), d, names);
    const r = await snowdb(['dataset', 'ingest', 'snodas', tar], { env: env() });
    assert.equal(r.code, 1);
    assert.match(
      r.stderr,
      new RegExp(
        `SNODAS_dims\\.tar: ${swe}\\.txt\\.gz: grid is 7000 x 3351; the masked SNODAS grid is 6935 x 3351`,
      ),
    );
  });

  it('header units other than the stored ones convert the decoded grid in place; nodata stays; overflow is refused', () => {
    const swe = TEMPLATES.snodas!.variables.swe!; // mm × 1, nodata -9999
    const raw = Int16Array.from([-9999, 1, 25, 100]);
    // metres / 100 → mm: × 1000 / 100 = × 10
    const { data, rule } = toStoredUnits(raw, 'Meters / 100.000000', 100, swe, 'x');
    assert.equal(data, raw, 'the same array');
    assert.deepEqual([...data], [-9999, 10, 250, 1000]);
    assert.match(rule, /stored = raw × 10$/);
    const same = Int16Array.from([7]);
    assert.equal(toStoredUnits(same, 'Meters / 1000.000000', 1000, swe, 'x').data, same);
    assert.throws(
      () => toStoredUnits(Int16Array.from([4000]), 'Meters / 100.000000', 100, swe, 'x'),
      (e: unknown) => SnowdbError.is(e) && /value 4000 × 10 does not fit int16/.test(e.message),
    );
  });
});
