import assert from 'node:assert/strict';
import { readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { deflateRawSync, inflateRawSync } from 'node:zlib';
import { ingestedDates } from '../../src/datasets/inventory.js';
import { openDataset } from '../../src/datasets/registry.js';
import { Database } from '../../src/db/database.js';
import { SnowdbError } from '../../src/errors.js';
import { ingestDate } from '../../src/ingest/date.js';
import { ingesterFor } from '../../src/ingest/ingesters.js';
import { ingestSources } from '../../src/ingest/run.js';
import { basinBlocks, MASK_BYTES, readBlockSet } from '../../src/series/blocks.js';
import { rebuildSeries, refreshSeries, writeRebuildPage } from '../../src/series/build.js';
import { seriesFacts } from '../../src/series/inspect.js';
import {
  datesByPage,
  decodeBlock,
  encodePage,
  type PageHeader,
  parsePageHeader,
  streamIn,
  streamRange,
} from '../../src/series/page.js';
import { readPackIndex, seriesView } from '../../src/series/read.js';
import { markSeriesStale, staleSeriesDates } from '../../src/series/stale.js';
import { preparedBasin } from '../../src/stats/basin.js';
import { executeStats } from '../../src/stats/engine.js';
import { openStatsPlan, type StatsQuery } from '../../src/stats/plan.js';
import { planReads, storeInputs } from '../../src/stats/reads.js';
import { reduceFromSeries } from '../../src/stats/series-path.js';
import { cliOk, snowdb, tempDir } from '../helpers/cli.js';
import { shiftedRecord, snapshotTree } from '../helpers/fs.js';
import { fixturePath, seeded } from '../helpers/raster.js';
import { buildZionDb, ZION, zionTar } from '../helpers/zion-db.js';

/** Dates ingested after the store exists: one joins the page of 2024-01-15/16, two open new pages. */
const LATER: readonly [string, (row: number, col: number) => number][] = [
  ['20240110', (row, col) => ((row * 13 + col * 5) % 97) - 3], // some −3…−1: kept as values, not nodata
  ['20240120', (row, col) => ((row + col) % 7 === 0 ? -9999 : 300 + ((row * col) % 211))],
  ['20240203', (row) => 40 + (row % 17)],
];
const LATER_BASIN = 'LATER:UT:TEST';
/** Zion shifted by ~2 SNODAS pixels: mostly Zion's blocks, with pixels they do not hold yet. */
const NEAR_BASIN = 'NEAR:UT:TEST';
const ZONES = [
  [],
  ['terrain.elevation'],
  ['terrain.elevation:band_step_ft=500'],
  ['terrain.aspect'],
  ['terrain.aspect', 'landcover.forest_cover:threshold_pct=30'],
  ['landcover.forest_cover'],
];

describe('series store: the fast path gives the straightforward engine’s numbers, bit for bit', () => {
  let dir: string;
  let cleanup: () => Promise<void>;
  let env: Record<string, string>;
  const root = () => join(dir, 'db');
  const cli = cliOk(() => env);

  before(async () => {
    ({ dir, cleanup } = await tempDir());
    env = await buildZionDb(dir);
  });
  after(() => cleanup());

  it('keeps the store through later ingests and a later import, and agrees on seeded random queries', async () => {
    const tars = [];
    for (const [date, swe] of LATER) tars.push(await zionTar(dir, date, swe));
    await cli('dataset', 'ingest', 'snodas', ...tars);
    const record = join(dir, 'LATER_UT_TEST.geojson');
    await writeFile(
      record,
      await shiftedRecord(fixturePath('zion/pourpoints/09406000_UT_USGS.geojson'), LATER_BASIN, 0.35, 0.2),
    );
    await cli('pourpoint', 'import', record);
    await cli('dataset', 'activate', 'snodas');
    const db = await Database.open(root());
    const d = await openDataset(db, 'snodas');
    // A basin beside Zion grows the masks of Zion's blocks: those blocks' streams are written again.
    const before = (await readBlockSet(d))!;
    const near = join(dir, 'NEAR_UT_TEST.geojson');
    await writeFile(
      near,
      await shiftedRecord(fixturePath('zion/pourpoints/09406000_UT_USGS.geojson'), NEAR_BASIN, 0.02, 0.015),
    );
    await cli('pourpoint', 'import', near);
    const grown = (await readBlockSet(d))!;
    assert.deepEqual(
      [...grown.ids.subarray(0, before.ids.length)],
      [...before.ids],
      'old blocks keep their places',
    );
    const gained = [...before.ids].filter((_b, k) => grown.counts[k]! > before.counts[k]!);
    assert.ok(gained.length > 0, 'some of Zion’s blocks gained pixels');
    // The masks are exactly the basins' pixels (a rebuild would write the same).
    const want = await basinBlocks(d);
    const maskOf = (set: { ids: Uint32Array; masks: Uint8Array }, id: number) => {
      const k = set.ids.indexOf(id);
      return [...set.masks.subarray(k * MASK_BYTES, (k + 1) * MASK_BYTES)];
    };
    assert.deepEqual(
      [...grown.ids].sort((a, b) => a - b),
      [...want.ids],
    );
    for (const id of want.ids) assert.deepEqual(maskOf(grown, id), maskOf(want, id), `block ${id}`);
    assert.ok(
      grown.counts.some((n) => n < 1024),
      'blocks store only basin pixels',
    );
    const doctor = await snowdb(['doctor', '--include-inactive', '--format', 'json'], { env });
    assert.doesNotMatch(doctor.stdout, /"check": ?"series"/, doctor.stdout);

    const view = await seriesView(d);
    assert.ok(view !== null, 'the ingest built a store');
    assert.deepEqual(view.variables, ['depth', 'swe']);
    const all = ['2024-01-10', '2024-01-15', '2024-01-16', '2024-01-20', '2024-02-03'];
    const rand = seeded(17);
    const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rand() * xs.length)]!;
    let fromStore = 0;
    for (let k = 0; k < 40; k++) {
      const a = pick(all);
      const b = pick(all.filter((x) => x >= a));
      const q: StatsQuery = {
        dataset: 'snodas',
        pourpoint: pick([ZION, LATER_BASIN, NEAR_BASIN]),
        dates: { type: 'DateRange', start_date: a, end_date: b },
        zones: pick(ZONES),
        variables: pick([['swe'], ['depth', 'swe'], ['swe', 'precip_solid'], []]),
        includeEmptyZones: rand() < 0.3,
        validFraction: rand() < 0.5,
      };
      const plan = await openStatsPlan(db, q);
      const fast = await executeStats(plan);
      const plain = await executeStats(plan, { series: false });
      assert.deepEqual(fast, plain, JSON.stringify(q));
      // Long scans run in worker threads: the same bits.
      assert.deepEqual(await executeStats(plan, { threadsAbove: 0 }), plain, JSON.stringify(q));
      // The fast path really answered every date of the stored variables.
      const basin = await preparedBasin(plan);
      const size = plan.dates.length * plan.product;
      const sums = { sw: new Float64Array(size), sv: new Float64Array(size) };
      const stored: readonly string[] = plan.variables.filter((x) => view.variables.includes(x));
      // The reads were decided from the page headers: every date of a stored variable on a page.
      const reads = planReads(plan, await storeInputs(plan.dataset, view, plan));
      for (const r of reads) {
        const held = stored.includes(r.variable);
        assert.deepEqual(r.cogs.length, held ? 0 : plan.dates.length, r.variable);
        assert.equal(r.pages.flatMap((p) => p.rows).length, held ? plan.dates.length : 0, r.variable);
      }
      for (const v of stored)
        for (const threadsAbove of [undefined, 0]) {
          const r = reads[plan.variables.indexOf(v)]!;
          const done = await reduceFromSeries(plan, basin, view, r, sums, { threadsAbove });
          assert.equal(done.size, plan.dates.length, JSON.stringify(q));
          fromStore++;
        }
    }
    assert.ok(fromStore > 20, `${fromStore} variable reads went through the store`);
    // A closed water year's streams damaged (its pack): its dates come from the COGs, on either thread.
    const pagePath = d.paths.seriesPack('swe', 2024);
    const good = await readFile(pagePath);
    const bad = Buffer.from(good);
    bad.fill(0xff, bad.readUInt32LE(8)); // every stream starts with a reserved block type
    await writeFile(pagePath, bad);
    const q16 = await openStatsPlan(db, {
      dataset: 'snodas',
      pourpoint: ZION,
      dates: { type: 'DateRange', start_date: '2024-01-10', end_date: '2024-01-20' },
      zones: ['terrain.elevation'],
      variables: ['swe'],
    });
    const plain16 = await executeStats(q16, { series: false });
    assert.deepEqual(await executeStats(q16, { threadsAbove: 0 }), plain16);
    await writeFile(pagePath, good);
    // The later basin is not all nulls: its values come from new blocks.
    const later = await executeStats(
      await openStatsPlan(db, {
        dataset: 'snodas',
        pourpoint: LATER_BASIN,
        dates: { type: 'DateRange', start_date: '2024-01-16', end_date: '2024-01-16' },
        variables: ['swe'],
      }),
    );
    assert.ok((later.results['2024-01-16']![0]![0] as number) > 20);
  });

  it('is rebuilt exactly after deletion, and doctor flags it stale until then', async () => {
    const series = join(root(), 'data/snodas/series');
    await cli('dataset', 'rebuild-series', 'snodas');
    const first = await snapshotTree(series);
    await rm(series, { recursive: true, force: true });
    const missing = await snowdb(['doctor', '--include-inactive'], { env });
    assert.equal(missing.code, 1);
    assert.match(
      missing.stdout + missing.stderr,
      /no series store \(run 'snowdb dataset rebuild-series snodas'/,
    );
    await cli('dataset', 'rebuild-series', 'snodas');
    assert.deepEqual(await snapshotTree(series), first);

    // A date marked stale (an ingest that died between its COG swap and the store update) …
    const d = await openDataset(await Database.open(root()), 'snodas');
    await markSeriesStale(d, '2024-01-16');
    const stale = await snowdb(['doctor', '--include-inactive'], { env });
    assert.equal(stale.code, 1);
    assert.match(stale.stdout + stale.stderr, /1 date\(s\) wait for an update: 2024-01-16/);
    // … a pack whose index is damaged, and a year's pack that was lost, are failures; a rebuild clears all.
    const depthPack = join(series, 'depth/wy2024.pack');
    const good = await readFile(depthPack);
    await writeFile(depthPack, Buffer.concat([good.subarray(0, 24), Buffer.from([0xff, 0xff, 0, 0])]));
    const damaged = await snowdb(['doctor', '--include-inactive'], { env });
    assert.match(damaged.stdout + damaged.stderr, /series\/depth\/wy2024\.pack.*damaged series pack/);
    await rm(join(series, 'swe/wy2024.pack'));
    const lost = await snowdb(['doctor', '--include-inactive'], { env });
    assert.match(lost.stdout + lost.stderr, /series\/swe\/202402-0\.page.*missing \(1 ingested dates\)/);
    await cli('dataset', 'rebuild-series', 'snodas');
    const fixed = await snowdb(['doctor', '--include-inactive'], { env });
    assert.doesNotMatch(fixed.stdout + fixed.stderr, /series/);
    assert.equal((await readFile(join(series, 'blocks.bin'))).subarray(0, 8).toString(), 'SDBSBL02');
  });

  it('the open water year stays in 8-day pages; once closed, each variable’s year is one pack of the same streams', async () => {
    const db = await Database.open(root());
    const d = await openDataset(db, 'snodas');
    const names = async (v: string) =>
      (await readdir(d.paths.seriesVariable(v))).filter((n) => !n.startsWith('.')).sort();
    // Water year 2024 still open on 2024-02-10: pages only.
    await rebuildSeries(d, () => {}, undefined, '2024-02-10');
    // A daily ingest of a later date of a page continues each of its streams: the old bytes (but
    // the 2-byte final block) stay as they are, and the answers stay the COG path's.
    const page = d.paths.seriesPage('swe', '202402-0');
    for (const [date, swe] of [
      ['20240204', (row: number) => 30 + (row % 11)],
      ['20240205', (row: number, col: number) => ((row + col) % 5 === 0 ? -9999 : 60 + (col % 13))],
    ] as const) {
      const before = await readFile(page).catch(() => null);
      const r = await ingestSources(db, 'snodas', [await zionTar(dir, date, swe)]);
      assert.deepEqual(
        r.results.map((x) => x.action),
        ['ingested'],
      );
      if (before === null) continue;
      const [was, now] = [before, await readFile(page)].map((b) => ({ b, h: parsePageHeader(b, page) }));
      assert.ok(now!.h.appendable && now!.h.days.length === was!.h.days.length + 1);
      for (let k = 0; k < now!.h.blocks; k++) {
        const stream = (x: typeof was) => streamIn(x!.h, x!.b, k);
        const old = stream(was);
        assert.ok(
          Buffer.from(stream(now).subarray(0, old.length - 2)).equals(old.subarray(0, -2)),
          `block ${k}`,
        );
      }
      const feb: StatsQuery = {
        dataset: 'snodas',
        pourpoint: ZION,
        dates: { type: 'DateRange', start_date: '2024-02-01', end_date: '2024-02-08' },
        zones: ['terrain.aspect'],
        variables: ['swe'],
      };
      const plan = await openStatsPlan(db, feb);
      assert.deepEqual(await executeStats(plan), await executeStats(plan, { series: false }));
    }
    await rebuildSeries(d, () => {}, undefined, '2024-02-10'); // whole streams again, for what follows
    const held = await ingestedDates(d); // the fixture's dates, and the later ones when the first test ran
    const pages = [...datesByPage(held).keys()];
    assert.deepEqual(
      await names('swe'),
      pages.map((p) => `${p}.page`),
    );
    const q: StatsQuery = {
      dataset: 'snodas',
      pourpoint: ZION,
      dates: { type: 'DateRange', start_date: '2024-01-01', end_date: '2024-02-28' },
      zones: ['terrain.elevation'],
      variables: ['swe', 'depth'],
    };
    const plain = await executeStats(await openStatsPlan(db, q), { series: false });
    assert.deepEqual(await executeStats(await openStatsPlan(db, q)), plain);
    const pageBytes = await Promise.all(pages.map((p) => readFile(d.paths.seriesPage('swe', p))));

    // After 2024-09-30 the year is closed: the first refresh that leaves it alone packs it (a
    // refresh writing into it, as a backfill does batch after batch, leaves it in pages).
    await markSeriesStale(d, '2024-01-16');
    assert.equal(await refreshSeries(d, '2024-10-02'), 2);
    assert.deepEqual(
      await names('swe'),
      pages.map((p) => `${p}.page`),
    );
    await markSeriesStale(d, '2023-05-01'); // a date of another water year, not held (a removal)
    await refreshSeries(d, '2024-10-02');
    for (const v of ['depth', 'swe']) assert.deepEqual(await names(v), ['wy2024.pack'], v);
    const index = await readPackIndex(d.store, d.paths.seriesPack('swe', 2024));
    assert.ok(index !== null);
    assert.deepEqual(index.pages, pages);
    const pack = await readFile(index.path);
    let previousEnd = index.header(0).dataStart; // block k of every page, then block k + 1
    index.pages.forEach((p, i) => {
      const h = index.header(i);
      const page = parsePageHeader(pageBytes[i]!, p);
      assert.deepEqual([...h.days], [...page.days], p);
      for (let k = 0; k < h.blocks; k++) {
        const [at, end] = streamRange(h, k);
        const was = streamIn(page, pageBytes[i]!, k);
        assert.ok(Buffer.from(pack.subarray(at, end)).equals(was), `${p} block ${k}`);
        if (i === 0 && k === 0) assert.equal(at, previousEnd);
        if (i > 0) assert.equal(at, streamRange(index.header(i - 1), k)[1]);
      }
      previousEnd = streamRange(h, h.blocks - 1)[1];
    });
    assert.equal(previousEnd, pack.length, 'the last page’s last block ends the file');
    // A query over the packed year reads the pack alone, and gives the same bits on either thread.
    const plan = await openStatsPlan(db, q);
    const reads = planReads(plan, await storeInputs(d, (await seriesView(d))!, plan));
    assert.deepEqual(
      new Set(reads.flatMap((r) => r.pages.map((p) => basename(p.header.path)))),
      new Set(['wy2024.pack']),
    );
    assert.deepEqual(
      reads.map((r) => r.cogs.length),
      [0, 0],
    );
    assert.deepEqual(await executeStats(plan), plain);
    assert.deepEqual(await executeStats(plan, { threadsAbove: 0 }), plain);
    // Rebuilding from the COGs after the year closed writes the same pack, byte for byte.
    await rebuildSeries(d, () => {}, undefined, '2024-10-02');
    assert.ok((await readFile(index.path)).equals(pack));
    // A date ingested again into the packed year opens it and rewrites that page; the next
    // refresh that leaves the year alone packs it again.
    await markSeriesStale(d, held.at(-1)!);
    assert.equal(await refreshSeries(d, '2024-10-02'), 2);
    assert.deepEqual(
      await names('swe'),
      pages.map((p) => `${p}.page`),
    );
    assert.deepEqual(await executeStats(await openStatsPlan(db, q)), plain);
    await markSeriesStale(d, '2023-05-01');
    await refreshSeries(d, '2024-10-02');
    assert.deepEqual(await names('swe'), ['wy2024.pack']);
    assert.ok((await readFile(index.path)).equals(pack), 'the same COGs: the same pack');
    assert.deepEqual(await executeStats(await openStatsPlan(db, q)), plain);
    // A page file left beside the current pack (a kill between packing and removing the pages)
    // goes at the next refresh; the pack stays as it is.
    await writeFile(join(dirname(index.path), `${pages[0]}.page`), 'left by a kill');
    await markSeriesStale(d, '2023-05-01');
    await refreshSeries(d, '2024-10-02');
    assert.deepEqual(await names('swe'), ['wy2024.pack']);
    assert.ok((await readFile(index.path)).equals(pack));
    // A pack of another block list beside current pages (a rebuild killed before it removed the
    // old pack): readers skip it for the COGs, and the next packing replaces it from the pages.
    await rebuildSeries(d, () => {}, undefined, '2024-02-10');
    const other = Buffer.from(pack);
    other.writeUInt32LE((other.readUInt32LE(12) + 1) >>> 0, 12);
    await writeFile(index.path, other);
    const stalePlan = await openStatsPlan(db, q);
    const skipped = planReads(stalePlan, await storeInputs(d, (await seriesView(d))!, stalePlan));
    assert.deepEqual(skipped.find((r) => r.variable === 'swe')!.pages, [], 'swe from the COGs');
    assert.deepEqual(await executeStats(stalePlan), plain);
    await markSeriesStale(d, '2023-05-01');
    await refreshSeries(d, '2024-10-02');
    assert.ok((await readFile(index.path)).equals(pack), 'packed again from the pages');
  });

  it('a page of an older release (streams compressed whole, no flag) is read as it is, and rewritten whole when a date joins it', async () => {
    const db = await Database.open(root());
    const d = await openDataset(db, 'snodas');
    await rebuildSeries(d, () => {}, undefined, '2024-02-10');
    await ingestSources(db, 'snodas', [await zionTar(dir, '20240206', (row) => 20 + (row % 7))]);
    const path = d.paths.seriesPage('swe', '202402-0');
    const h = parsePageHeader(await readFile(path), path);
    const bytes = await readFile(path);
    const stream = (x: PageHeader, b: Buffer, k: number) => streamIn(x, b, k);
    // As an older release wrote it: each block one deflate stream ending in its final block.
    const old = Array.from({ length: h.blocks }, (_l, k) =>
      deflateRawSync(inflateRawSync(stream(h, bytes, k)), { level: 1 }),
    );
    await writeFile(path, encodePage(h.blockSet, h.dtype, [...h.days], old, false));
    const feb: StatsQuery = {
      dataset: 'snodas',
      pourpoint: ZION,
      dates: { type: 'DateRange', start_date: '2024-02-01', end_date: '2024-02-08' },
      zones: ['terrain.elevation'],
      variables: ['swe'],
    };
    const plain = async () => executeStats(await openStatsPlan(db, feb), { series: false });
    const fromStore = async () => {
      const plan = await openStatsPlan(db, feb);
      const view = (await seriesView(d))!;
      const [r] = planReads(plan, await storeInputs(d, view, plan));
      assert.deepEqual(r!.cogs, [], 'every date from the store');
      return executeStats(plan);
    };
    assert.deepEqual(await fromStore(), await plain());
    // A later date joins the page: not appended to streams that cannot take it, but written whole.
    await ingestSources(db, 'snodas', [await zionTar(dir, '20240207', (row, col) => 50 + ((row * col) % 9))]);
    const now = await readFile(path);
    const nh = parsePageHeader(now, path);
    assert.ok(nh.appendable);
    assert.equal(nh.days.length, h.days.length + 1);
    const set = (await readBlockSet(d))!;
    for (let k = 0; k < nh.blocks; k++)
      assert.equal(
        decodeBlock(stream(nh, now, k), nh.dtype, nh.days.length, set.counts[k]!).length,
        nh.days.length * set.counts[k]!,
        `block ${k}`,
      );
    assert.deepEqual(await fromStore(), await plain());
  });

  it('a replacing ingest that lands while the store is rebuilt stays stale: readers get its new values, then a refresh writes them', async () => {
    const db = await Database.open(root());
    const d = await openDataset(db, 'snodas');
    const tar = await zionTar(dir, '20240116', () => 500); // 2024-01-16 again: 500 mm everywhere
    const [src] = await ingesterFor(d).plan([tar]);
    // The rebuild writes every page (reading 2024-01-16's old COGs), then, before it ends, the
    // date is replaced: the order two processes can take.
    await rebuildSeries(
      d,
      () => {},
      async (ds, tasks) => {
        const sizes: number[] = [];
        for (const t of tasks) sizes.push(await writeRebuildPage(ds, t));
        const r = await ingestDate(ds, src!, { force: true });
        assert.equal(r.action, 'ingested');
        return sizes;
      },
    );
    assert.deepEqual(await staleSeriesDates(d), ['2024-01-16'], 'the swap’s mark outlives the rebuild');
    const plan = await openStatsPlan(db, {
      dataset: 'snodas',
      pourpoint: ZION,
      dates: { type: 'DateRange', start_date: '2024-01-16', end_date: '2024-01-16' },
      variables: ['swe'],
    });
    const plain = await executeStats(plan, { series: false });
    const mean = plain.results['2024-01-16']![0]![0] as number;
    assert.ok(Math.abs(mean - 500) < 1e-9 * 500, String(mean)); // Σ 500·w / Σ w, to rounding
    assert.deepEqual(await executeStats(plan), plain, 'the store path reads the new COGs');
    assert.equal(await refreshSeries(d), 2, 'swe and depth: the page of 2024-01-16 written again');
    assert.deepEqual(await staleSeriesDates(d), []);
    assert.deepEqual(await executeStats(plan), plain);
  });

  it('a date whose COG is gone is the same date-incomplete error from the store path as from the COG path', async () => {
    const db = await Database.open(root());
    const q: StatsQuery = {
      dataset: 'snodas',
      pourpoint: ZION,
      dates: { type: 'DateRange', start_date: '2024-01-10', end_date: '2024-02-03' },
      variables: ['swe', 'depth'],
    };
    const plan = await openStatsPlan(db, q);
    const whole = await executeStats(plan);
    const depthPlan = await openStatsPlan(db, { ...q, variables: ['depth'] });
    const depthWhole = await executeStats(depthPlan);
    assert.ok(
      planReads(plan, await storeInputs(plan.dataset, (await seriesView(plan.dataset))!, plan))[0]!.pages
        .length > 0,
    );
    const cog = join(root(), 'data/snodas/cogs/20240120/swe.tif');
    const bytes = await readFile(cog);
    await rm(cog);
    try {
      const message = "snodas 2024-01-20 has no 'swe' raster (re-ingest that date)";
      for (const series of [true, false])
        await assert.rejects(
          executeStats(plan, { series }),
          (e: unknown) => SnowdbError.is(e) && e.key === 'date-incomplete' && e.message === message,
          `series: ${series}`,
        );
      assert.deepEqual(await executeStats(depthPlan), depthWhole, 'the other variable still answers');
    } finally {
      await writeFile(cog, bytes);
    }
    assert.deepEqual(await executeStats(plan), whole);
  });

  it('doctor finds a page whose values are not its COG’s by content (no stale mark), and judges a newer but equal COG by content too', async () => {
    await cli('dataset', 'rebuild-series', 'snodas');
    const series = async () => {
      const r = await snowdb(['doctor', '--include-inactive'], { env });
      return (r.stdout + r.stderr).split('\n').filter((l) => /series/.test(l));
    };
    assert.deepEqual(await series(), []);
    // 2024-01-16's swe COG replaced behind snowdb's back (a lost invalidation): 2024-01-20's values.
    const cog = (date: string) => join(root(), `data/snodas/cogs/${date}/swe.tif`);
    const original = await readFile(cog('20240116'));
    await writeFile(cog('20240116'), await readFile(cog('20240120')));
    const found = await series();
    assert.equal(found.length, 1, found.join('\n'));
    assert.match(
      found[0]!,
      /series\/swe\/wy2024\.pack \(page 202401-1\).*holds other values for 2024-01-16 than its COG \(\d+ of \d+ blocks differ\): the COG changed after the page was written/,
    );
    // The original bytes back: the COG is newer than its page, but equal to it: nothing to report.
    await writeFile(cog('20240116'), original);
    assert.deepEqual(await series(), []);
  });

  it('a store of an older release (block list of ids only, every block whole) is read as such, never misread', async () => {
    const db = await Database.open(root());
    const d = await openDataset(db, 'snodas');
    await rebuildSeries(d, () => {}, undefined, '2024-02-10');
    const masked = (await readBlockSet(d))!;
    // As an older release wrote it: "SDBSBL01", the ids, no masks; its pages hold every pixel.
    const v1 = Buffer.alloc(12 + 4 * masked.ids.length);
    v1.write('SDBSBL01', 0, 'latin1');
    v1.writeUInt32LE(masked.ids.length, 8);
    masked.ids.forEach((id, i) => {
      v1.writeUInt32LE(id, 12 + 4 * i);
    });
    await writeFile(d.paths.seriesBlocks, v1);
    const whole = (await readBlockSet(d))!;
    assert.deepEqual([...new Set(whole.counts)], [1024]);
    // doctor's facts: every stored pixel outside the masks is space a rebuild gives back.
    const dates = await ingestedDates(d);
    const basinPixels = masked.starts[masked.ids.length]!;
    assert.equal((await seriesFacts(d, dates)).unusedPixels, 1024 * masked.ids.length - basinPixels);
    assert.notEqual(whole.id, masked.id, 'the masked pages are of another block set');
    const q: StatsQuery = {
      dataset: 'snodas',
      pourpoint: ZION,
      dates: { type: 'DateRange', start_date: '2024-01-10', end_date: '2024-02-08' },
      zones: ['terrain.elevation'],
      variables: ['swe', 'depth'],
    };
    const plain = await executeStats(await openStatsPlan(db, q), { series: false });
    // Pages of the masked set are not read against the whole one: the COGs answer.
    let plan = await openStatsPlan(db, q);
    let reads = planReads(plan, await storeInputs(d, (await seriesView(d))!, plan));
    assert.deepEqual(
      reads.map((r) => r.pages.length),
      [0, 0],
    );
    assert.deepEqual(await executeStats(plan), plain);
    // Every date refreshed on the old list: whole blocks, as the older release wrote them.
    for (const date of dates) await markSeriesStale(d, date);
    await refreshSeries(d, '2024-02-10');
    const path = d.paths.seriesPage('swe', '202401-1');
    const bytes = await readFile(path);
    const h = parsePageHeader(bytes, path);
    assert.equal(h.blockSet, whole.id);
    assert.equal(
      decodeBlock(streamIn(h, bytes, 0), h.dtype, h.days.length, 1024).length,
      h.days.length * 1024,
    );
    plan = await openStatsPlan(db, q);
    reads = planReads(plan, await storeInputs(d, (await seriesView(d))!, plan));
    assert.ok(reads.every((r) => r.cogs.length === 0));
    assert.deepEqual(await executeStats(plan), plain);
    assert.deepEqual(await executeStats(plan, { threadsAbove: 0 }), plain);
    // A rebuild writes the masked layout again: no pixel outside a basin.
    await rebuildSeries(d, () => {}, undefined, '2024-02-10');
    assert.equal((await readBlockSet(d))!.id, masked.id);
    const rebuilt = await seriesFacts(d, dates);
    assert.deepEqual([rebuilt.unusedPixels, rebuilt.storedPixels], [0, basinPixels]);
    assert.deepEqual(await executeStats(await openStatsPlan(db, q)), plain);
  });
});
