import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { deflateSync } from 'node:zlib';
import { SnowdbError } from '../../src/errors.js';
import { CountingSource, FileSource } from '../../src/io/source.js';
import { Cog } from '../../src/raster/cog.reader.js';
import { writeCog } from '../../src/raster/cog.writer.js';
import { crsFromEpsg, MODIS_SINUSOIDAL } from '../../src/raster/crs.js';
import type { TypedArray } from '../../src/raster/dtype.js';
import type { Grid, Window } from '../../src/raster/grid.js';
import { CompressionCode, decodeTile } from '../../src/raster/tiff/codecs.js';
import { HEAD_BYTES } from '../../src/raster/tiff/ifd.reader.js';
import { TileCache } from '../../src/raster/tile.cache.js';
import { tempDir } from '../helpers/cli.js';
import { gdalTool, oracle } from '../helpers/gdal.js';
import { fixturePath, seeded } from '../helpers/raster.js';

const bytesOf = (a: TypedArray) => Buffer.from(a.buffer, a.byteOffset, a.byteLength);

describe('COG reader against GDAL', () => {
  let dir: string;
  let cleanup: () => Promise<void>;
  const files: { path: string; what: string; width: number; height: number }[] = [];
  const int16Grid: Grid = {
    crs: crsFromEpsg(4326)!,
    originX: -111,
    originY: 41,
    cellWidth: 1 / 120,
    cellHeight: 1 / 120,
    width: 700,
    height: 530,
    tileSize: 256,
  };
  const floatGrid: Grid = {
    crs: MODIS_SINUSOIDAL,
    originX: -11119505.196666665,
    originY: 5559752.598333333,
    cellWidth: 463.3127165693847,
    cellHeight: 463.3127165693847,
    width: 611,
    height: 389,
    tileSize: 128,
  };

  before(async () => {
    ({ dir, cleanup } = await tempDir('snowdb-reader-'));
    const rnd = seeded(7);
    const ints = Int16Array.from({ length: 700 * 530 }, (_, i) =>
      rnd() < 0.1 ? -9999 : Math.round(2000 * Math.sin(i / 97) + 1000 * rnd()),
    );
    const floats = Float32Array.from({ length: 611 * 389 }, (_, i) =>
      rnd() < 0.1 ? -9999 : Math.cos(i / 31) * 1234.5 + rnd(),
    );
    const ours16 = join(dir, 'ours-int16.tif');
    const oursF = join(dir, 'ours-float32.tif');
    await writeCog(ours16, int16Grid, ints, { nodata: -9999 });
    await writeCog(oursF, floatGrid, floats, { nodata: -9999, overviews: true });
    files.push({ path: ours16, what: 'ours int16 deflate+pred2', width: 700, height: 530 });
    files.push({ path: oursF, what: 'ours float32 deflate+pred3', width: 611, height: 389 });
    const variants: [string, string, string[]][] = [
      [
        'gdal-deflate-int16.tif',
        ours16,
        ['-co', 'COMPRESS=DEFLATE', '-co', 'PREDICTOR=YES', '-co', 'BLOCKSIZE=256'],
      ],
      [
        'gdal-zstd-int16.tif',
        ours16,
        ['-co', 'COMPRESS=ZSTD', '-co', 'PREDICTOR=YES', '-co', 'BLOCKSIZE=512'],
      ],
      ['gdal-lzw-int16.tif', ours16, ['-co', 'COMPRESS=LZW', '-co', 'BLOCKSIZE=128']],
      ['gdal-lzw-float32.tif', oursF, ['-co', 'COMPRESS=LZW', '-co', 'PREDICTOR=YES']],
      [
        'gdal-zstd-float32.tif',
        oursF,
        ['-co', 'COMPRESS=ZSTD', '-co', 'PREDICTOR=YES', '-co', 'BLOCKSIZE=256'],
      ],
      ['gdal-deflate-float32.tif', oursF, ['-co', 'COMPRESS=DEFLATE']],
    ];
    for (const [name, src, co] of variants) {
      const path = join(dir, name);
      await gdalTool('gdal_translate', ['-q', '-of', 'COG', ...co, src, path]);
      const f = files.find((x) => x.path === src)!;
      files.push({ path, what: name, width: f.width, height: f.height });
    }
  });
  after(() => cleanup());

  it('reads the same values as GDAL for windows of our COGs and of gdal_translate -of COG ones', async () => {
    const cache = new TileCache();
    for (const f of files) {
      const cog = await Cog.open(new FileSource(f.path), cache);
      const windows: Window[] = [
        { col: 0, row: 0, width: f.width, height: f.height },
        { col: 5, row: 7, width: 1, height: 1 },
        { col: 100, row: 90, width: 300, height: 200 },
        { col: f.width - 13, row: f.height - 9, width: 13, height: 9 },
      ];
      for (const w of windows) {
        const ours = await cog.readWindow(w);
        const out = join(dir, 'window.bin');
        await oracle('window', f.path, String(w.col), String(w.row), String(w.width), String(w.height), out);
        const theirs = await readFile(out);
        assert.ok(bytesOf(ours).equals(theirs), `${f.what} window ${JSON.stringify(w)} differs from GDAL`);
      }
      await cog.close();
    }
  });

  it('georeferencing and metadata of GDAL-written COGs', async () => {
    const cog = await Cog.open(new FileSource(files.find((f) => f.what === 'gdal-zstd-float32.tif')!.path));
    assert.equal(cog.grid.crs.id, 'MODIS:SINUSOIDAL');
    assert.equal(cog.grid.originX, floatGrid.originX);
    assert.equal(cog.grid.originY, floatGrid.originY);
    assert.equal(cog.grid.cellWidth, floatGrid.cellWidth);
    assert.equal(cog.dtype, 'float32');
    assert.equal(cog.nodata, -9999);
    assert.equal(cog.levels[0]!.compression, 50000);
    assert.equal(cog.levels[0]!.predictor, 3);
    await cog.close();
  });

  it('fetches and decodes only the tiles a window touches, each once, adjacent tiles in one read', async () => {
    const src = new CountingSource(new FileSource(files[0]!.path));
    const cog = await Cog.open(src);
    assert.equal(src.fetches.length, 1, 'opening reads only the header');
    assert.equal(cog.tilesFetched, 0);
    // Inside tile (0,0): one tile.
    await cog.readWindow({ col: 10, row: 10, width: 100, height: 100 });
    assert.equal(cog.tilesFetched, 1);
    assert.equal(src.fetches.length, 2);
    // Crossing tiles (0..1, 0..1): 4 tiles, tile (0,0) already cached; row 0 needs tile (1,0),
    // row 1 needs (0,1) and (1,1), which are adjacent on disk: 2 more reads, 3 more tiles.
    await cog.readWindow({ col: 200, row: 200, width: 100, height: 100 });
    assert.equal(cog.tilesFetched, 4);
    assert.equal(src.fetches.length, 4);
    // The same window again: everything from the cache.
    await cog.readWindow({ col: 200, row: 200, width: 100, height: 100 });
    assert.equal(cog.tilesFetched, 4);
    assert.equal(src.fetches.length, 4);
    await cog.close();
  });

  it('reads metadata tags without reading pixels', async () => {
    const path = join(dir, 'tagged.tif');
    const g: Grid = { ...int16Grid, width: 600, height: 600 };
    await writeCog(path, g, new Int16Array(600 * 600), {
      metadata: { SOURCE_HASH: 'v1:abc', SOURCE_DATE: '2024-01-15' },
    });
    const src = new CountingSource(new FileSource(path));
    const cog = await Cog.open(src);
    assert.deepEqual(cog.metadata.items, { SOURCE_HASH: 'v1:abc', SOURCE_DATE: '2024-01-15' });
    // One read, the header's first bytes (16 KiB): the IFD and its tags lie in them, no tile is read.
    assert.deepEqual(src.fetches, [{ offset: 0, length: HEAD_BYTES }]);
    assert.equal(cog.tilesFetched, 0);
    await cog.close();
  });

  it('bounds the decoded-tile cache by bytes', async () => {
    const tile = 256 * 256 * 2; // bytes of one decoded tile
    const tiles = new TileCache(3.5 * tile); // three tiles with their keys and entries, not four
    const a = await Cog.open(new FileSource(files[0]!.path), tiles);
    await a.readWindow({ col: 0, row: 0, width: 700, height: 530 }); // 3 × 3 tiles of 128 KiB
    const s = tiles.stats();
    // Nine tiles decoded (misses), three kept: their counted bytes (tile, key, entry) within the budget.
    assert.deepEqual([s.entries, s.misses, s.hits], [3, 9, 0]);
    assert.ok(s.bytes > 3 * tile && s.bytes < 3 * tile + 3 * 2048, String(s.bytes));
    assert.ok(s.bytes <= s.maxBytes);
    await a.readWindow({ col: 600, row: 520, width: 100, height: 10 }); // tile (2, 2): decoded last, held
    assert.deepEqual([tiles.stats().hits, tiles.stats().misses], [1, 9]);
    await a.close();
  });

  it('names the file and the problem for a file that is not a TIFF', async () => {
    const path = join(dir, 'not-a-tiff.tif');
    await writeCog(
      join(dir, 'x.tif'),
      { ...int16Grid, width: 16, height: 16, tileSize: 16 },
      new Int16Array(256),
    );
    await import('node:fs/promises').then((fs) => fs.writeFile(path, 'hello, I am text'));
    const src = new FileSource(path);
    try {
      await assert.rejects(Cog.open(src), /not-a-tiff\.tif: not a TIFF file/);
    } finally {
      await src.close(); // Node.js 26 fails a process whose file handle the GC closes
    }
  });
});

describe('tile decompression is bounded by the tile size', () => {
  it('a deflate or zstd tile that inflates past width × height × sample size is refused, not inflated', async () => {
    const tile = 256 * 256 * 4; // a float32 tile, bytes
    const deflateBomb = deflateSync(Buffer.alloc(100_000_000)); // ~97 kB on disk
    const zstdBomb = await readFile(fixturePath('bombs/zeros-50MB.zst')); // 1.5 kB on disk
    for (const [code, bomb] of [
      [CompressionCode.deflate, deflateBomb],
      [CompressionCode.adobeDeflate, deflateBomb],
      [CompressionCode.zstd, zstdBomb],
    ] as const) {
      const before = process.memoryUsage().arrayBuffers;
      assert.throws(
        () => decodeTile(code, bomb, tile),
        (e: unknown) =>
          e instanceof SnowdbError &&
          e.key === 'invalid-raster' &&
          /a tile inflates past its 262144 bytes/.test(e.message),
      );
      assert.ok(
        process.memoryUsage().arrayBuffers - before < 20_000_000,
        'nothing near the bomb size was held',
      );
    }
    // A tile of exactly its size decodes, byte for byte.
    const ok = Buffer.alloc(tile, 7);
    assert.deepEqual(Buffer.from(decodeTile(CompressionCode.deflate, deflateSync(ok), tile)), ok);
  });
});
