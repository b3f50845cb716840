import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdir, readFile, rm, utimes, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { FileSource } from '../../src/io/source.js';
import { Cog } from '../../src/raster/cog.reader.js';
import { writeCog } from '../../src/raster/cog.writer.js';
import { snowdb, tempDir } from '../helpers/cli.js';
import { logicalTree } from '../helpers/fs.js';
import { buildZionDb, importOffGrid } from '../helpers/zion-db.js';

/** The pid of a process that has ended. */
function deadPid(): number {
  return spawnSync(process.execPath, ['-e', '0']).pid!;
}

describe('status and doctor', () => {
  let dir: string;
  let cleanup: () => Promise<void>;
  let env: Record<string, string>;
  const cli = (...args: string[]) => snowdb(args, { env });
  const ds = () => join(dir, 'db/data/snodas');

  before(async () => {
    ({ dir, cleanup } = await tempDir());
    env = await buildZionDb(dir);
    await importOffGrid(dir, env);
  });
  after(() => cleanup());

  it('a healthy database: status counts every artifact; doctor passes and reports an off-grid basin as information', async () => {
    const s = await cli('status', '--format', 'json');
    assert.equal(s.code, 0, s.stderr);
    const [d] = (JSON.parse(s.stdout) as { datasets: Record<string, unknown>[] }).datasets;
    assert.deepEqual(d, {
      name: 'snodas',
      active: false,
      area_raster: true,
      aoi_rasters: 1,
      covered_basins: 1,
      zone_layers: 6,
      zone_layers_enabled: 6,
      dates: 2,
      first_date: '2024-01-15',
      last_date: '2024-01-16',
      health: 'ok',
    });
    const table = await cli('status');
    assert.match(table.stdout, /^snodas +no +yes +1 of 1 +6 of 6 +2 +2024-01-15 +2024-01-16 +ok$/m);
    const doc = await cli('doctor', '--include-inactive');
    assert.equal(doc.code, 0, doc.stdout + doc.stderr);
    assert.match(doc.stdout, /^info +pourpoints +snodas +OFFGRID:UT:TEST +outside the dataset's domain/m);
    assert.match(doc.stdout, /^doctor: every check passed$/m);
  });

  it("status takes a current AOI raster's tags from the coverage index (no file read per basin); doctor opens each", async () => {
    const aoi = join(ds(), 'aoi/09406000_UT_USGS.tif');
    const kept = await readFile(aoi);
    await writeFile(aoi, 'not a raster any more');
    try {
      const s = JSON.parse((await cli('status', '--format', 'json')).stdout) as {
        datasets: { health: string }[];
      };
      assert.equal(s.datasets[0]!.health, 'ok', 'the index records the raster as current: not opened');
      const doc = await cli('doctor', '--include-inactive', '--check', 'pourpoints');
      assert.equal(doc.code, 1);
      assert.match(
        doc.stdout,
        /09406000:UT:USGS +no AOI raster \(run 'snowdb pourpoint rasterize 09406000:UT:USGS'\)/,
      );
      // Without the index the raster is read: status counts it failed.
      const idx = join(ds(), 'coverage.idx');
      const index = await readFile(idx);
      await rm(idx);
      try {
        const r = await cli('status', '--format', 'json');
        assert.equal(r.code, 0, r.stderr);
        const t = JSON.parse(r.stdout) as { datasets: { health: string }[] };
        assert.equal(t.datasets[0]!.health, '1 failed', 'its AOI raster unreadable');
        const all = await cli('doctor', '--include-inactive', '--check', 'pourpoints');
        assert.match(all.stdout, /09406000:UT:USGS +no AOI raster/);
      } finally {
        await writeFile(idx, index);
      }
    } finally {
      await writeFile(aoi, kept);
    }
  });

  it('--check and --dataset run a subset; an inactive dataset is checked only with --include-inactive or by name', async () => {
    await rm(join(ds(), 'cogs/20240115/swe.tif'));
    try {
      const rows = async (...args: string[]) => {
        const r = await cli('doctor', '--format', 'json', ...args);
        const rep = JSON.parse(r.stdout) as {
          findings: { check: string; dataset: string; target: string }[];
        };
        return { code: r.code, found: rep.findings.map((f) => `${f.check} ${f.dataset} ${f.target}`).sort() };
      };
      // Inactive and not named: only the database-wide checks run.
      assert.deepEqual(await rows(), { code: 0, found: [] });
      const broken = { code: 1, found: ['dates snodas 2024-01-15'] };
      assert.deepEqual(await rows('--include-inactive', '--check', 'dates'), broken);
      assert.deepEqual(await rows('--dataset', 'snodas', '--check', 'dates'), broken);
      assert.deepEqual(await rows('--dataset', 'snodas', '--check', 'pourpoints'), {
        code: 0,
        found: ['pourpoints snodas OFFGRID:UT:TEST'],
      });
      for (const [args, message] of [
        [
          ['--check', 'nope'],
          /Unknown check\(s\): nope\. Known checks: grid, dates, files, pourpoints, zones, index, series, debris, freshness\./,
        ],
        [['--dataset', 'nope'], /dataset 'nope'/],
      ] as const) {
        const r = await cli('doctor', ...args);
        assert.equal(r.code, 1);
        assert.match(r.stderr, message);
      }
    } finally {
      // Put the date back: re-ingest its tar (beside the database).
      await cli('dataset', 'ingest', 'snodas', '--force', join(dir, 'SNODAS_20240115.tar'));
    }
  });

  it('debris of dead writers is named; doctor --fix removes it and nothing else; a live writer is left alone', async () => {
    const before = await logicalTree(join(dir, 'db'));
    const dead = deadPid();
    const tag = (pid: number) => `${pid}-0123456789ab`;
    const cogs = join(ds(), 'cogs');
    await mkdir(join(cogs, `.20240116.${tag(dead)}.v`));
    await writeFile(join(cogs, `.20240116.${tag(dead)}.v`, 'swe.tif'), 'half a COG');
    await writeFile(join(cogs, '.20240115.lock'), String(dead));
    await utimes(join(cogs, '.20240115.lock'), new Date(0), new Date(0));
    await writeFile(join(dir, 'db/pourpoints', `.index.geojson.${tag(dead)}.tmp`), '{');
    await mkdir(join(ds(), 'zones', `.staging-terrain-${tag(dead)}`));
    // A live writer's temp file (this process) is work in progress, not debris.
    await writeFile(join(ds(), 'aoi', `.x.tif.${tag(process.pid)}.tmp`), 'mine');
    const fails = async (...args: string[]) => {
      const r = await cli('doctor', '--include-inactive', '--format', 'json', ...args);
      const rep = JSON.parse(r.stdout) as {
        removed: string[];
        findings: { check: string; target: string; issue: string }[];
      };
      return {
        code: r.code,
        removed: rep.removed,
        debris: rep.findings
          .filter((f) => f.check === 'debris')
          .map((f) => `${f.target}: ${f.issue.split(',')[0]}`),
      };
    };
    const seen = await fails();
    assert.equal(seen.code, 1);
    assert.deepEqual(seen.debris.sort(), [
      `data/snodas/cogs/.20240115.lock: stale lock of 20240115`,
      `data/snodas/cogs/.20240116.${tag(dead)}.v: interrupted ingest of 20240116`,
      `data/snodas/zones/.staging-terrain-${tag(dead)}: temporary folder`,
      `pourpoints/.index.geojson.${tag(dead)}.tmp: temporary file`,
    ]);
    const fixed = await fails('--fix');
    assert.equal(fixed.code, 0);
    assert.equal(fixed.removed.length, 4);
    assert.deepEqual(fixed.debris, []);
    await rm(join(ds(), 'aoi', `.x.tif.${tag(process.pid)}.tmp`));
    assert.deepEqual(await logicalTree(join(dir, 'db')), before);
  });

  it('an AOI raster from the older coverage (a phantom cell outside the basin) is named; pourpoint rasterize --all converges', async () => {
    const aoi = join(ds(), 'aoi/09406000_UT_USGS.tif');
    const good = await readFile(aoi);
    const src = new FileSource(aoi);
    const cog = await Cog.open(src);
    const data = (await cog.readWindow({
      col: 0,
      row: 0,
      width: cog.grid.width,
      height: cog.grid.height,
    })) as Float64Array;
    await src.close();
    const phantom = data.indexOf(0);
    assert.ok(phantom >= 0, 'the window has a cell outside the basin');
    data[phantom] = 3e-10; // what the v2 coverage's carry drift left on cells beyond the basin
    const items = {
      ...cog.metadata.items,
      SNOWDB_AOI_HASH: cog.metadata.items.SNOWDB_AOI_HASH!.replace(/^v3:/, 'v2:'),
    };
    await writeCog(aoi, cog.grid, data, {
      predictor: 3,
      description: 'basin area in cell (m2)',
      metadata: items,
    });
    const doc = await cli('doctor', '--include-inactive', '--check', 'pourpoints');
    assert.equal(doc.code, 1, doc.stdout);
    assert.match(
      doc.stdout,
      /^fail +pourpoints +snodas +1 AOI raster\(s\) +built by an older coverage that weighted cells outside the basin \(09406000:UT:USGS\); run 'snowdb pourpoint rasterize --all'/m,
    );
    const r = await cli('pourpoint', 'rasterize', '--all');
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /^09406000:UT:USGS +snodas +\S+ +built$/m);
    assert.deepEqual(await readFile(aoi), good, 'the rebuilt raster is the current coverage, byte for byte');
    assert.equal((await cli('doctor', '--include-inactive', '--check', 'pourpoints')).code, 0);
  });

  it('each broken artifact is a named failure, doctor exits 1, and status shows the count', async () => {
    await rm(join(ds(), 'cogs/20240116/depth.tif'));
    await rm(join(ds(), 'aoi/09406000_UT_USGS.tif'));
    await rm(join(ds(), 'zones/terrain/northness.tif'));
    await rm(join(dir, 'db/pourpoints/OFFGRID_UT_TEST.geojson'));
    const doc = await cli('doctor', '--include-inactive', '--format', 'json');
    assert.equal(doc.code, 1);
    assert.match(doc.stderr, /4 health check\(s\) failed/);
    const report = JSON.parse(doc.stdout) as {
      failures: number;
      findings: { check: string; target: string; issue: string; severity: string }[];
    };
    const fails = report.findings
      .filter((f) => f.severity === 'fail')
      .map((f) => `${f.check} ${f.target}: ${f.issue}`);
    assert.deepEqual(fails.sort(), [
      'dates 2024-01-16: incomplete: missing depth.tif (re-ingest it)',
      "files terrain.northness: zone layer missing (run 'snowdb dataset generate-zones snodas')",
      "index OFFGRID:UT:TEST: indexed without a record (run 'snowdb pourpoint reindex')",
      "pourpoints 09406000:UT:USGS: no AOI raster (run 'snowdb pourpoint rasterize 09406000:UT:USGS')",
    ]);
    const s = JSON.parse((await cli('status', '--format', 'json')).stdout) as {
      datasets: { health: string }[];
    };
    assert.equal(s.datasets[0]!.health, '3 failed');
  });
});
