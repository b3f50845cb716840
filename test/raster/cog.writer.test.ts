import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { encodeCog, encodeCogRows, writeCog } from '../../src/raster/cog.writer.js';
import { type Crs, crsFromEpsg, MODIS_SINUSOIDAL } from '../../src/raster/crs.js';
import { allocate, type DType, type TypedArray } from '../../src/raster/dtype.js';
import type { Grid } from '../../src/raster/grid.js';
import { zstdWritable } from '../../src/raster/tiff/codecs.js';
import { tempDir } from '../helpers/cli.js';
import { type OracleInfo, oracle } from '../helpers/gdal.js';
import { seeded, sha256Of } from '../helpers/raster.js';

interface Case {
  name: string;
  dtype: DType;
  crs: Crs;
  tileSize: number;
  width: number;
  height: number;
  originX: number;
  originY: number;
  cell: number;
  nodata?: number;
  overviews?: boolean;
  /** Tiles of one value, tiles equal to their left neighbour, and near misses of both. */
  blocks?: boolean;
  expectProj4: string;
}

const geo = '+proj=longlat +datum=WGS84 +no_defs';
/** Four and a bit tiles across, three down, in blocks of values (the dedupe cases). */
const BLOCKS = {
  crs: crsFromEpsg(4326)!,
  tileSize: 128,
  width: 4 * 128 + 10,
  height: 3 * 128,
  originX: -112,
  originY: 38,
  cell: 0.01,
  blocks: true,
  expectProj4: geo,
} as const;
const cases: Case[] = [
  {
    name: 'uint8-4326-t128',
    dtype: 'uint8',
    crs: crsFromEpsg(4326)!,
    tileSize: 128,
    width: 300,
    height: 200,
    originX: -120,
    originY: 45,
    cell: 0.01,
    nodata: 255,
    expectProj4: geo,
  },
  {
    name: 'int16-4326-t256-ovr',
    dtype: 'int16',
    crs: crsFromEpsg(4326)!,
    tileSize: 256,
    width: 700,
    height: 530,
    originX: -124.73333333333333,
    originY: 52.875,
    cell: 1 / 120,
    nodata: -9999,
    overviews: true,
    expectProj4: geo,
  },
  {
    name: 'int16-4269-t256',
    dtype: 'int16',
    crs: crsFromEpsg(4269)!,
    tileSize: 256,
    width: 257,
    height: 255,
    originX: -125.0208,
    originY: 49.9375,
    cell: 0.008333325394357,
    nodata: -999,
    expectProj4: '+proj=longlat +datum=NAD83 +no_defs',
  },
  {
    name: 'uint16-sinu-t512',
    dtype: 'uint16',
    crs: MODIS_SINUSOIDAL,
    tileSize: 512,
    width: 600,
    height: 520,
    originX: -11119505.196666665,
    originY: 5559752.598333333,
    cell: 463.3127165693847,
    nodata: 65535,
    expectProj4: '+proj=sinu +lon_0=0 +x_0=0 +y_0=0 +R=6371007.181 +units=m +no_defs',
  },
  {
    name: 'float32-32612-t128-ovr',
    dtype: 'float32',
    crs: crsFromEpsg(32612)!,
    tileSize: 128,
    width: 333,
    height: 129,
    originX: 300000,
    originY: 4200000,
    cell: 30,
    nodata: -9999,
    overviews: true,
    expectProj4: '+proj=utm +zone=12 +datum=WGS84 +units=m +no_defs',
  },
  {
    name: 'float64-5070-t256',
    dtype: 'float64',
    crs: crsFromEpsg(5070)!,
    tileSize: 256,
    width: 300,
    height: 300,
    originX: -2356125,
    originY: 3172605,
    cell: 30,
    expectProj4:
      '+proj=aea +lat_0=23 +lon_0=-96 +lat_1=29.5 +lat_2=45.5 +x_0=0 +y_0=0 +datum=NAD83 +units=m +no_defs',
  },
  {
    name: 'float32-26912-t512-nan',
    dtype: 'float32',
    crs: crsFromEpsg(26912)!,
    tileSize: 512,
    width: 520,
    height: 40,
    originX: 320000,
    originY: 4150000,
    cell: 31.5,
    nodata: Number.NaN,
    expectProj4: '+proj=utm +zone=12 +datum=NAD83 +units=m +no_defs',
  },
  {
    name: 'uint8-sinu-t256',
    dtype: 'uint8',
    crs: MODIS_SINUSOIDAL,
    tileSize: 256,
    width: 256,
    height: 256,
    originX: -10007554.677,
    originY: 5559752.598333333,
    cell: 463.3127165693847,
    nodata: 255,
    expectProj4: '+proj=sinu +lon_0=0 +x_0=0 +y_0=0 +R=6371007.181 +units=m +no_defs',
  },
  { name: 'float64-4326-t128-blocks', dtype: 'float64', nodata: Number.NaN, ...BLOCKS },
  { name: 'int16-4326-t128-blocks-ovr', dtype: 'int16', nodata: -9999, overviews: true, ...BLOCKS },
];

/**
 * Tile row 0: nodata, 0, 0 but for its last pixel, 0, then the padded edge tile; tile row 1: every
 * tile banded by row (each equals its left neighbour) but the fourth, one pixel off in its last
 * row; tile row 2: the random pattern.
 */
function blocks(c: Case, random: TypedArray): TypedArray {
  const t = c.tileSize;
  const a = random.slice();
  for (let r = 0; r < 2 * t; r++)
    for (let col = 0; col < c.width; col++) {
      const tx = Math.floor(col / t);
      const last = r % t === t - 1 && col % t === t - 1;
      a[r * c.width + col] =
        r < t ? (tx === 0 ? c.nodata! : tx === 2 && last ? 7 : 0) : tx === 3 && last ? -1 : r * 3;
    }
  return a;
}

/** Values spanning the dtype's range, with nodata sprinkled in. */
function pattern(c: Case, n: number): TypedArray {
  const rnd = seeded(n + c.tileSize);
  const a = allocate(c.dtype, n);
  const span: Record<DType, [number, number]> = {
    uint8: [0, 254],
    int8: [-128, 127],
    uint16: [0, 65534],
    int16: [-32768, 32767],
    uint32: [0, 2 ** 32 - 1],
    int32: [-(2 ** 31), 2 ** 31 - 1],
    float32: [-1e6, 1e6],
    float64: [-1e12, 1e12],
  };
  const [lo, hi] = span[c.dtype];
  for (let i = 0; i < n; i++) {
    const r = rnd();
    a[i] =
      c.nodata !== undefined && r < 0.05
        ? c.nodata
        : c.dtype.startsWith('float')
          ? lo + (hi - lo) * rnd()
          : Math.floor(lo + (hi - lo + 1) * rnd());
  }
  if (!c.dtype.startsWith('float')) {
    a[0] = lo;
    a[n - 1] = hi;
  }
  return a;
}

describe('COG writer against GDAL', () => {
  let dir: string;
  let cleanup: () => Promise<void>;
  const written = new Map<string, { grid: Grid; data: TypedArray; c: Case }>();
  let infos: Map<string, OracleInfo>;

  before(async () => {
    ({ dir, cleanup } = await tempDir('snowdb-cog-'));
    for (const c of cases) {
      const grid: Grid = {
        crs: c.crs,
        originX: c.originX,
        originY: c.originY,
        cellWidth: c.cell,
        cellHeight: c.cell,
        width: c.width,
        height: c.height,
        tileSize: c.tileSize,
      };
      const random = pattern(c, c.width * c.height);
      const data = c.blocks ? blocks(c, random) : random;
      const path = join(dir, `${c.name}.tif`);
      await writeCog(path, grid, data, {
        nodata: c.nodata,
        overviews: c.overviews,
        metadata: { SOURCE_DATASET: 'test', SOURCE_HASH: `v1:${c.name}`, NOTE: 'a < b & "c"' },
        description: `${c.name} band`,
      });
      written.set(path, { grid, data, c });
    }
    infos = new Map((await oracle<OracleInfo[]>('info', ...written.keys())).map((i) => [i.path, i]));
  });
  after(() => cleanup());

  for (const c of cases) {
    it(`${c.name}: valid COG, same georeferencing, metadata and bit-identical pixels`, () => {
      const path = join(dir, `${c.name}.tif`);
      const { grid, data } = written.get(path)!;
      const info = infos.get(path)!;
      assert.deepEqual(info.cog_errors, []);
      assert.deepEqual(info.size, [grid.width, grid.height]);
      assert.deepEqual(info.geotransform, [
        grid.originX,
        grid.cellWidth,
        0,
        grid.originY,
        0,
        -grid.cellHeight,
      ]);
      assert.equal(info.proj4, c.expectProj4);
      if (c.crs.epsg !== undefined) assert.equal(info.epsg, String(c.crs.epsg));
      if (c.nodata === undefined) assert.equal(info.nodata, null);
      else if (Number.isNaN(c.nodata)) assert.equal(info.nodata, 'nan');
      else assert.equal(info.nodata, c.nodata);
      assert.equal(info.metadata.SOURCE_DATASET, 'test');
      assert.equal(info.metadata.SOURCE_HASH, `v1:${c.name}`);
      assert.equal(info.metadata.NOTE, 'a < b & "c"');
      assert.equal(info.description, `${c.name} band`);
      assert.deepEqual(info.block, [c.tileSize, c.tileSize]);
      assert.equal(info.dtype, c.dtype);
      const levels = c.overviews ? Math.ceil(Math.log2(Math.max(c.width, c.height) / c.tileSize)) : 0;
      assert.equal(info.overviews, levels);
      assert.equal(info.sha256, sha256Of(data));
    });
  }

  it('a COG given row by row is byte for byte the COG of the same pixels given whole (no overviews)', () => {
    for (const [path, { grid, data, c }] of written) {
      if (c.overviews) continue;
      const opts = { nodata: c.nodata, metadata: { SOURCE_HASH: `v1:${c.name}` }, description: path };
      const rows = encodeCogRows(
        grid,
        c.dtype,
        (r, col, out) => out.set(data.subarray(r * grid.width + col, r * grid.width + col + out.length)),
        opts,
      );
      assert.ok(Buffer.concat(rows).equals(Buffer.concat(encodeCog(grid, data, opts))), c.name);
    }
  });

  it('zstd is written where node:zlib has it, and refused with a clear message where not', async () => {
    const grid: Grid = {
      crs: crsFromEpsg(4326)!,
      originX: 0,
      originY: 10,
      cellWidth: 0.1,
      cellHeight: 0.1,
      width: 64,
      height: 48,
      tileSize: 32,
    };
    const data = Int16Array.from({ length: 64 * 48 }, (_, i) => i - 1500);
    const path = join(dir, 'zstd.tif');
    if (zstdWritable) {
      await writeCog(path, grid, data, { compression: 'zstd', nodata: -9999 });
      const [info] = await oracle<OracleInfo[]>('info', path);
      assert.deepEqual(info?.cog_errors, []);
      assert.equal(info?.sha256, sha256Of(data));
    } else {
      await assert.rejects(
        writeCog(path, grid, data, { compression: 'zstd' }),
        /zstd compression needs Node\.js ≥ 22\.15/,
      );
    }
  });
});
