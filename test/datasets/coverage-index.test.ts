import assert from 'node:assert/strict';
import { mkdir, readFile, rename, rm, truncate, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { currentAoiHashes } from '../../src/datasets/artifacts.js';
import { indexedWeights, readCoverageIndex } from '../../src/datasets/coverage-index.js';
import { openDataset } from '../../src/datasets/registry.js';
import { Database } from '../../src/db/database.js';
import { localStore } from '../../src/io/store.js';
import { indexOf } from '../../src/pourpoints/store.js';
import { basinBlocks } from '../../src/series/blocks.js';
import { cliOk, snowdb, tempDir } from '../helpers/cli.js';
import { shiftedRecord } from '../helpers/fs.js';
import { oracle } from '../helpers/gdal.js';
import { fixturePath } from '../helpers/raster.js';
import { buildZionDb, ZION } from '../helpers/zion-db.js';

/** A second covered basin: the Virgin River record moved 0.3° east and 0.15° north. */
const MOVED = 'MOVED:UT:TEST';
const stem = (t: string) => t.replaceAll(':', '_');

interface Positive {
  metadata: Record<string, string>;
  size: [number, number];
  offsets: number[];
  values: number[];
}

describe("a dataset's coverage index: every basin's AOI weights in one file", () => {
  let dir: string;
  let db: string;
  let cleanup: () => Promise<void>;
  let env: Record<string, string>;
  const ok = cliOk(() => env);
  const cli = async (...args: string[]) => (await ok(...args)).stdout;
  const indexPath = () => join(db, 'data/snodas/coverage.idx');
  const aoiDir = () => join(db, 'data/snodas/aoi');
  const query = ['--variable', 'swe', '--zone', 'terrain.elevation', '--zone', 'terrain.aspect'];
  const statsAll = () => cli('stats-all', 'snodas', '--date', '2024-01-15/2024-01-16', ...query);

  before(async () => {
    ({ dir, cleanup } = await tempDir());
    env = await buildZionDb(dir);
    db = env.SNOWDB_CONFIG!;
    await cli('dataset', 'activate', 'snodas');
  });
  after(() => cleanup());

  it("holds each covered basin's AOI pixels and weights exactly as GDAL reads the AOI raster", async () => {
    const record = join(dir, `${stem(MOVED)}.geojson`);
    await writeFile(
      record,
      await shiftedRecord(fixturePath('zion/pourpoints/09406000_UT_USGS.geojson'), MOVED, 0.3, 0.15),
    );
    // An import extends the index the dataset create wrote.
    const before = (await readCoverageIndex(localStore, indexPath()))!;
    assert.deepEqual([...before.basins.keys()], [ZION]);
    await cli('pourpoint', 'import', record);
    const index = (await readCoverageIndex(localStore, indexPath()))!;
    assert.deepEqual([...index.basins.keys()], [ZION, MOVED]);
    for (const t of [ZION, MOVED]) {
      const b = index.basins.get(t)!;
      const w = await indexedWeights(localStore, index, b);
      const gdal = await oracle<Positive>('positive-pixels', join(aoiDir(), `${stem(t)}.tif`));
      assert.equal(gdal.metadata.SNOWDB_AOI_HASH, b.aoiHash, t);
      assert.equal(
        gdal.metadata.SNOWDB_AOI_WINDOW,
        `${b.window.col} ${b.window.row} ${b.window.width} ${b.window.height}`,
      );
      assert.deepEqual(gdal.size, [b.window.width, b.window.height]);
      // The same pixel set and the same float64 weights, bit for bit.
      assert.ok(gdal.offsets.length > 1000, `${t}: ${gdal.offsets.length} pixels`);
      assert.deepEqual([...w.at], gdal.offsets, t);
      assert.deepEqual([...w.weight], gdal.values, t);
    }
  });

  it('answers without opening an AOI raster, the same bits as from the AOI rasters', async () => {
    const fromIndex = await statsAll();
    const one = await cli('stats', 'snodas', MOVED, '--dates', '2024-01-16', ...query);
    // Without AOI rasters the index alone answers (no basin file is opened).
    await rename(aoiDir(), `${aoiDir()}.away`);
    try {
      assert.equal(await statsAll(), fromIndex);
      assert.equal(await cli('stats', 'snodas', MOVED, '--dates', '2024-01-16', ...query), one);
    } finally {
      await rename(`${aoiDir()}.away`, aoiDir());
    }
    // Without the index the AOI rasters answer: the same bytes.
    await rename(indexPath(), `${indexPath()}.away`);
    try {
      assert.equal(await statsAll(), fromIndex);
    } finally {
      await rename(`${indexPath()}.away`, indexPath());
    }
    const body = JSON.parse(fromIndex) as { basins: { pourpoint: string; zones: unknown[] }[] };
    assert.deepEqual(
      body.basins.map((b) => b.pourpoint),
      [ZION, MOVED],
    );
    assert.ok(body.basins.every((b) => b.zones.length > 3));
  });

  it("the series store's block list from the index equals the one from the AOI rasters; a stale entry is read from its raster", async () => {
    const database = await Database.open(db);
    try {
      const d = await openDataset(database, 'snodas');
      const current = currentAoiHashes(d, (await indexOf(database)).values());
      const fromRasters = await basinBlocks(d);
      assert.ok(fromRasters.ids.length > 4, `${fromRasters.ids.length} blocks`);
      assert.deepEqual(await basinBlocks(d, current), fromRasters);
      // Without the AOI rasters, the index alone gives the same blocks and pixels.
      await rename(aoiDir(), `${aoiDir()}.away`);
      await mkdir(aoiDir());
      for (const t of [ZION, MOVED]) await writeFile(join(aoiDir(), `${stem(t)}.tif`), 'not read');
      try {
        assert.deepEqual(await basinBlocks(d, current), fromRasters);
        // A hash the index does not hold sends that basin to its raster (here unreadable: an error).
        await assert.rejects(basinBlocks(d, new Map([...current, [MOVED, 'v9:other']])));
      } finally {
        await rm(aoiDir(), { recursive: true });
        await rename(`${aoiDir()}.away`, aoiDir());
      }
    } finally {
      await database.runtime.close();
    }
  });

  it('a hostile index (a 4 GiB header length, a basin asking for more pixels than its window) is refused by name, nothing allocated', async () => {
    const good = await readFile(indexPath());
    try {
      const huge = Buffer.from(good);
      huge.writeUInt32LE(0xffffffff, 8);
      await writeFile(indexPath(), huge);
      await assert.rejects(
        readCoverageIndex(localStore, indexPath()),
        /not a coverage index \(a header of 4294967295 bytes\)/,
      );
      // One basin asking for more pixels than its window holds (the header rewritten so).
      const length = good.readUInt32LE(8);
      const header = JSON.parse(good.subarray(12, 12 + length).toString('utf8')) as { basins: number[][] };
      const row = header.basins[0]!;
      row[6] = row[4]! * row[5]! + 1;
      const text = Buffer.from(JSON.stringify(header));
      const head = Buffer.alloc(12);
      head.write('SNOWCIX1', 0, 'latin1');
      head.writeUInt32LE(text.length, 8);
      await writeFile(indexPath(), Buffer.concat([head, text, good.subarray(12 + length)]));
      await assert.rejects(
        readCoverageIndex(localStore, indexPath()),
        /not a coverage index \(a malformed basin row/,
      );
      // Queries fall back to the AOI rasters meanwhile.
      assert.equal(
        (await snowdb(['stats-all', 'snodas', '--date', '2024-01-16', ...query], { env })).code,
        0,
      );
    } finally {
      await writeFile(indexPath(), good);
    }
  });

  it('doctor names a cut index and a missing basin; queries fall back; rasterize --all rebuilds it', async () => {
    const good = await readFile(indexPath());
    const answer = await statsAll();
    await truncate(indexPath(), 40);
    const cut = await snowdb(['doctor', '--check', 'pourpoints'], { env });
    assert.equal(cut.code, 1, cut.stdout);
    assert.match(cut.stdout, /coverage\.idx\s+.*not a coverage index/);
    assert.equal(await statsAll(), answer);
    await cli('pourpoint', 'rasterize', '--all');
    assert.deepEqual(await readFile(indexPath()), good);
    const fine = await snowdb(['doctor', '--check', 'pourpoints'], { env });
    assert.doesNotMatch(fine.stdout, /coverage\.idx/);

    // An index written before a basin was added: doctor names the basin it lacks.
    await cli('pourpoint', 'remove', MOVED);
    const without = (await readCoverageIndex(localStore, indexPath()))!;
    assert.deepEqual([...without.basins.keys()], [ZION]);
    const short = await readFile(indexPath());
    const record = join(dir, `${stem(MOVED)}.geojson`);
    await cli('pourpoint', 'import', record);
    await writeFile(indexPath(), short);
    const lacks = await snowdb(['doctor', '--check', 'pourpoints'], { env });
    assert.equal(lacks.code, 1);
    assert.match(lacks.stdout, /coverage\.idx\s+lacks 1 basin\(s\) \(MOVED:UT:TEST\)/);
    await cli('pourpoint', 'rasterize', '--all');
    assert.deepEqual(await readFile(indexPath()), good);
  });
});
