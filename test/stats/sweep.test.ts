import assert from 'node:assert/strict';
import { rename, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { readOnto } from '../../src/datasets/read-onto.js';
import { openDataset } from '../../src/datasets/registry.js';
import { Database } from '../../src/db/database.js';
import { computeAllBasins, executeAllBasins, planAllBasins } from '../../src/stats/all-basins.js';
import { executeAllWaterYears, planAllWaterYears } from '../../src/stats/all-water-years.js';
import { datedReads } from '../../src/stats/dated-reads.js';
import { sweepLayout } from '../../src/stats/sweep.js';
import { cliOk, snowdb, tempDir } from '../helpers/cli.js';
import { shiftedRecord } from '../helpers/fs.js';
import { historyDb } from '../helpers/history-db.js';
import { fixturePath } from '../helpers/raster.js';
import { buildZionDb, ZION } from '../helpers/zion-db.js';

/**
 * Every basin in one pass (src/stats/sweep.ts) against the one-basin engine: basins that overlap
 * (they share grid blocks and pixels, so one pixel adds into several basins' sums), two zone axes
 * crossed, nodata pixels (the Zion fixture's hole), empty zones, and a basin that falls back to
 * its AOI raster.
 */
const SHIFTS: readonly [string, number, number][] = [
  ['EAST:UT:TEST', 0.04, 0],
  ['NORTH:UT:TEST', 0, 0.05],
  ['FAR:UT:TEST', 0.3, 0.15],
];

interface Basin {
  pourpoint: string;
  zones: { zone: unknown[]; area_m2: number }[];
  results: Record<string, (number | null)[][]>;
}

describe('every basin in one pass: the same bits as each basin alone', () => {
  let dir: string;
  let db: string;
  let cleanup: () => Promise<void>;
  let env: Record<string, string>;
  const ok = cliOk(() => env);
  const cli = async (...args: string[]) => (await ok(...args)).stdout;
  const triplets = [ZION, ...SHIFTS.map(([t]) => t)].sort();

  before(async () => {
    ({ dir, cleanup } = await tempDir());
    env = await buildZionDb(dir);
    db = env.SNOWDB_CONFIG!;
    for (const [t, dLon, dLat] of SHIFTS) {
      const record = join(dir, `${t.replaceAll(':', '_')}.geojson`);
      await writeFile(
        record,
        await shiftedRecord(fixturePath('zion/pourpoints/09406000_UT_USGS.geojson'), t, dLon, dLat),
      );
      await cli('pourpoint', 'import', record);
    }
    await cli('dataset', 'activate', 'snodas');
  });
  after(() => cleanup());

  const compareEach = async (args: string[]) => {
    const all = JSON.parse(await cli('stats-all', 'snodas', '--date', '2024-01-15/2024-01-16', ...args)) as {
      basins: Basin[];
    };
    assert.deepEqual(
      all.basins.map((b) => b.pourpoint),
      triplets,
    );
    for (const b of all.basins) {
      const one = JSON.parse(
        await cli('stats', 'snodas', b.pourpoint, '--dates', '2024-01-15/2024-01-16', ...args),
      ) as Basin;
      assert.deepEqual(b.zones, one.zones, b.pourpoint);
      assert.deepEqual(b.results, one.results, b.pourpoint);
    }
    return all.basins;
  };

  it('overlapping basins, two axes crossed, nodata and empty zones: every zone and value equal', async () => {
    const basins = await compareEach([
      '--zone',
      'terrain.elevation:band_step_ft=500',
      '--zone',
      'terrain.aspect',
      '--valid-fraction',
    ]);
    // Not vacuous: many cells, values that differ between basins, some cells partly without data.
    const cells = basins.reduce((n, b) => n + b.zones.length, 0);
    assert.ok(cells > 4 * 20, `${cells} cells`);
    assert.notDeepEqual(basins[0]!.results, basins[1]!.results);
    const valid = basins.flatMap((b) =>
      Object.values(b.results).flatMap((rows) => rows.map((r) => r.at(-1))),
    );
    assert.ok(
      valid.some((v) => typeof v === 'number' && v > 0 && v < 1),
      'a cell partly without data',
    );
    // The overlapping basins share pixels: one layout entry per (basin, pixel), so more entries than the union's pixels.
    const d = await Database.open(db);
    try {
      const plan = await planAllBasins(d, {
        dataset: 'snodas',
        dates: { type: 'DateRange', start_date: '2024-01-15', end_date: '2024-01-15' },
        variables: ['swe'],
      });
      const layout = await sweepLayout(plan.plans);
      assert.equal(layout.basins, 4);
      const distinct = new Set(layout.idx).size;
      assert.ok(layout.idx.length > distinct, `${layout.idx.length} entries over ${distinct} pixels`);
      // Each basin's area is the sum of its own weights: the same as its zones' areas in the answer.
      const whole = await computeAllBasins(d, {
        dataset: 'snodas',
        dates: { type: 'DateRange', start_date: '2024-01-15', end_date: '2024-01-15' },
        variables: ['swe'],
      });
      whole.basins.forEach((b, k) => {
        assert.equal(b.zones.length, 1);
        assert.equal(b.zones[0]!.area_m2, layout.area[k]);
      });
    } finally {
      await d.runtime.close();
    }
    await compareEach(['--zone', 'terrain.elevation', '--include-empty-zones']);
  });

  it('basins in several passes (a small budget for sums) answer the same as in one', async () => {
    const d = await Database.open(db);
    try {
      const q = {
        dataset: 'snodas',
        dates: { type: 'DateRange', start_date: '2024-01-15', end_date: '2024-01-16' },
        variables: ['swe', 'depth'],
        zones: ['terrain.elevation'],
      } as const;
      const plan = await planAllBasins(d, q);
      const one = await executeAllBasins(plan);
      // 2 dates × 2 variables × the cells × 16 bytes: a budget of one basin's sums runs four passes.
      const each = 16 * 2 * 2 * plan.plans[0]!.product;
      const layouts = () => d.runtime.report().caches.find((c) => c.name === 'sweeps')!.entries;
      const before = layouts();
      const passes = await executeAllBasins(plan, { sweepBytes: each });
      assert.equal(layouts() - before, 4, 'a layout per pass');
      assert.equal(passes.basins.length, 4);
      assert.deepEqual(passes, one);
      assert.ok(one.basins.every((b) => b.zones.length > 1));
    } finally {
      await d.runtime.close();
    }
  });

  it('without the coverage index every basin is read from its AOI raster, the same answer; a missing date raster is named', async () => {
    const args = [
      '--date',
      '2024-01-16',
      '--zone',
      'terrain.elevation',
      '--variable',
      'swe',
      '--variable',
      'depth',
    ];
    const before = await cli('stats-all', 'snodas', ...args);
    const idx = join(db, 'data/snodas/coverage.idx');
    await rename(idx, `${idx}.away`);
    try {
      assert.equal(await cli('stats-all', 'snodas', ...args), before);
    } finally {
      await rename(`${idx}.away`, idx);
    }
    const cog = join(db, 'data/snodas/cogs/20240116/depth.tif');
    await rename(cog, `${cog}.away`);
    try {
      const r = await snowdb(['stats-all', 'snodas', ...args], { env });
      assert.equal(r.code, 1);
      assert.match(r.stderr, /snodas 2024-01-16 has no 'depth' raster/);
    } finally {
      await rename(`${cog}.away`, cog);
    }
  });

  it("a run of dates is decoded on the compute pool: each date's pixels as read here; a missing or damaged raster is named", async () => {
    const d = await Database.open(db);
    try {
      const snodas = await openDataset(d, 'snodas');
      const window = { col: 1380, row: 1830, width: 100, height: 80 };
      const dates = ['2024-01-15', '2024-01-16', '2024-01-16', '2024-01-15', '2024-01-16'];
      const here = await Promise.all(
        dates.map(
          async (date) =>
            (await readOnto(snodas.store, snodas.paths.cog(date, 'swe'), null, window, -9999))!.data,
        ),
      );
      const jobs = d.runtime.report().workers.jobs;
      const pooled: number[][] = [];
      for await (const vals of datedReads(snodas, 'swe', dates, window, -9999)) pooled.push([...vals]);
      assert.equal(d.runtime.report().workers.jobs - jobs, dates.length, 'every date read by a worker');
      assert.deepEqual(
        pooled,
        here.map((a) => [...a]),
      );
      // The first day 100 mm, the second 20 + (7·row + 3·col) mod 41 (41 values); the nodata column both days.
      assert.deepEqual(new Set(pooled[0]), new Set([100, -9999]));
      assert.equal(new Set(pooled[1]).size, 41 + 1);
      const cog = snodas.paths.cog('2024-01-16', 'swe');
      const drain = async () => {
        for await (const _ of datedReads(snodas, 'swe', dates, window, -9999));
      };
      await rename(cog, `${cog}.away`);
      try {
        await assert.rejects(drain, /snodas 2024-01-16 has no 'swe' raster/);
        await writeFile(cog, 'II*\0 not a tiff at all');
        await assert.rejects(drain, (e: Error) => e.message.includes(cog));
      } finally {
        await rename(`${cog}.away`, cog);
      }
    } finally {
      await d.runtime.close();
    }
  });
});

describe('long ranges swept: water years and exports of every basin, the same as basin by basin', () => {
  it("every basin's water year (7,428 dates, with normals), and a month of every basin one basin a pass", async () => {
    const env = await historyDb();
    const d = await Database.open(env.SNOWDB_CONFIG!);
    try {
      const wy = await planAllWaterYears(d, {
        dataset: 'hist',
        year: 2011,
        variable: 'swe',
        zones: ['terrain.elevation'],
        normals: {},
      });
      const layouts = () => d.runtime.report().caches.find((c) => c.name === 'sweeps')!.entries;
      const before = layouts();
      const byBasin = await executeAllWaterYears(wy);
      assert.equal(layouts(), before, 'two basins over a long range: not swept by default');
      const swept = await executeAllWaterYears(wy, { sweepFrom: 1 });
      assert.equal(layouts(), before + 1, 'swept when told to');
      assert.deepEqual(swept, byBasin);
      assert.equal(swept.basins.length, 2);
      assert.ok(swept.basins.every((b) => Object.keys(b.results).length === 1 && b.zones.length > 1));
      // A month of every basin in one pass, and in a pass per basin.
      const month = await planAllBasins(d, {
        dataset: 'hist',
        dates: { type: 'DateRange', start_date: '2011-03-01', end_date: '2011-03-31' },
        variables: ['swe'],
        zones: ['terrain.elevation'],
      });
      const one = await executeAllBasins(month);
      const many = await executeAllBasins(month, { sweepBytes: 1 });
      assert.deepEqual(many, one);
    } finally {
      await d.runtime.close();
    }
  });
});
