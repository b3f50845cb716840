import { SnowdbError } from '../errors.js';
import type { Source } from '../io/source.js';
import type { Crs } from './crs.js';
import { allocate, DTYPES, type DType, dtypeFromTiff, type TypedArray, viewAs } from './dtype.js';
import { type GdalMetadata, parseGdalMetadata } from './gdal.metadata.js';
import { type Grid, tilesOfWindow, type Window } from './grid.js';
import { decodeTile } from './tiff/codecs.js';
import { crsFromGeoKeys, parseGeoKeys } from './tiff/geokeys.js';
import { type Ifd, readIfds, type TagValue } from './tiff/ifd.reader.js';
import { decodeFloat, decodeHorizontal } from './tiff/predictor.js';
import { GeoKey, Tag } from './tiff/tags.js';
import { TileCache } from './tile.cache.js';

/** One resolution level of a COG: size, tiling and where its tiles are. */
export interface CogLevel {
  readonly width: number;
  readonly height: number;
  readonly tileWidth: number;
  readonly tileHeight: number;
  readonly compression: number;
  readonly predictor: number;
  /** True for a stripped image (tiles one image wide; the last strip may be short). */
  readonly stripped: boolean;
  /** Byte offset and length of each tile, row-major; length 0 = sparse (all nodata). */
  readonly offsets: readonly number[];
  readonly counts: readonly number[];
}

const nums = (v: TagValue | undefined): readonly number[] =>
  typeof v === 'string' || v === undefined ? [] : v;
const num = (ifd: Ifd, tag: number, fallback?: number): number => {
  const v = nums(ifd.get(tag))[0] ?? fallback;
  if (v === undefined) throw new SnowdbError('invalid-raster', `missing TIFF tag ${tag}`);
  return v;
};

/** A level's layout; a stripped TIFF is read as tiles one image wide and RowsPerStrip high. */
function levelOf(ifd: Ifd, url: string): CogLevel {
  if (num(ifd, Tag.SamplesPerPixel, 1) !== 1)
    throw new SnowdbError('invalid-raster', `${url}: more than one band`);
  const width = num(ifd, Tag.ImageWidth);
  const height = num(ifd, Tag.ImageLength);
  const tiled = ifd.has(Tag.TileWidth);
  return {
    width,
    height,
    tileWidth: tiled ? num(ifd, Tag.TileWidth) : width,
    tileHeight: tiled ? num(ifd, Tag.TileLength) : Math.min(num(ifd, Tag.RowsPerStrip, height), height),
    compression: num(ifd, Tag.Compression, 1),
    predictor: num(ifd, Tag.Predictor, 1),
    stripped: !tiled,
    offsets: nums(ifd.get(tiled ? Tag.TileOffsets : Tag.StripOffsets)),
    counts: nums(ifd.get(tiled ? Tag.TileByteCounts : Tag.StripByteCounts)),
  };
}

/** Grid of the main image from ModelPixelScale + ModelTiepoint and GeoKeys. */
function gridOf(ifd: Ifd, level: CogLevel, url: string): Grid {
  const scale = nums(ifd.get(Tag.ModelPixelScale));
  const tie = nums(ifd.get(Tag.ModelTiepoint));
  if (scale.length < 2 || tie.length < 6) {
    throw new SnowdbError('invalid-raster', `${url}: no georeferencing (ModelPixelScale/ModelTiepoint)`);
  }
  const keys = parseGeoKeys(
    nums(ifd.get(Tag.GeoKeyDirectory)),
    nums(ifd.get(Tag.GeoDoubleParams)),
    String(ifd.get(Tag.GeoAsciiParams) ?? ''),
  );
  const crs: Crs | null = crsFromGeoKeys(keys);
  if (crs === null)
    throw new SnowdbError(
      'unsupported-crs',
      `${url}: CRS not supported by snowdb (GeoKeys ${[...keys.entries()].map(([k, v]) => `${k}=${v}`).join(', ')})`,
    );
  const [sx, sy] = [scale[0]!, scale[1]!];
  const pointShift = keys.get(GeoKey.GTRasterType) === 2 ? 0.5 : 0;
  return {
    crs,
    originX: tie[3]! - (tie[0]! + pointShift) * sx,
    originY: tie[4]! + (tie[1]! + pointShift) * sy,
    cellWidth: sx,
    cellHeight: sy,
    width: level.width,
    height: level.height,
    tileSize: level.tileWidth,
  };
}

/** A single-band tiled GeoTIFF opened for windowed reads through a Source and a tile cache. */
export class Cog {
  /** Tiles decoded from the source by this reader (not served from cache). */
  tilesFetched = 0;

  private constructor(
    readonly source: Source,
    readonly grid: Grid,
    readonly dtype: DType,
    readonly nodata: number | undefined,
    readonly metadata: GdalMetadata,
    /** Level 0 = full resolution, then overviews, largest first. */
    readonly levels: readonly CogLevel[],
    private readonly cache: TileCache,
  ) {}

  /**
   * Read the header (IFDs, GeoKeys, metadata) of a COG; no pixel is read.
   * @throws SnowdbError `invalid-raster` / `unsupported-crs`.
   */
  static async open(source: Source, cache: TileCache = new TileCache()): Promise<Cog> {
    const ifds = await readIfds(source);
    const main = ifds.find((i) => (nums(i.get(Tag.NewSubfileType))[0] ?? 0) === 0) ?? ifds[0];
    if (main === undefined) throw new SnowdbError('invalid-raster', `${source.url}: no image`);
    const levels = [
      main,
      ...ifds.filter((i) => i !== main && ((nums(i.get(Tag.NewSubfileType))[0] ?? 0) & 1) === 1),
    ].map((i) => levelOf(i, source.url));
    const dtype = dtypeFromTiff(num(main, Tag.BitsPerSample), num(main, Tag.SampleFormat, 1));
    if (dtype === null) throw new SnowdbError('invalid-raster', `${source.url}: unsupported sample type`);
    const nodataText = main.get(Tag.GdalNodata);
    const nodata =
      typeof nodataText === 'string' && nodataText.trim() !== '' ? Number(nodataText.trim()) : undefined;
    const md = parseGdalMetadata(
      typeof main.get(Tag.GdalMetadata) === 'string' ? (main.get(Tag.GdalMetadata) as string) : undefined,
    );
    return new Cog(source, gridOf(main, levels[0]!, source.url), dtype, nodata, md, levels, cache);
  }

  private level(i: number): CogLevel {
    const l = this.levels[i];
    if (l === undefined) throw new RangeError(`${this.source.url}: no overview level ${i}`);
    return l;
  }

  /** Decoded tile (tx, ty) of a level, through the cache. */
  readTile(tx: number, ty: number, level = 0): Promise<TypedArray> {
    return this.readTiles(level, [
      ty * Math.ceil(this.level(level).width / this.level(level).tileWidth) + tx,
    ]).then((t) => t[0]!);
  }

  /** Decoded tiles by row-major index; misses whose bytes are adjacent are fetched in one read. */
  private async readTiles(levelIndex: number, indices: readonly number[]): Promise<TypedArray[]> {
    const lvl = this.level(levelIndex);
    const out: (Promise<TypedArray> | undefined)[] = indices.map((i) =>
      this.cache.peek(this.key(levelIndex, i)),
    );
    const position = new Map(indices.map((i, k) => [i, k]));
    const missing = indices.filter((_, k) => out[k] === undefined);
    // Plan: group missing tiles into runs of contiguous bytes, then fetch each run once.
    const runs: number[][] = [];
    for (const i of missing) {
      const run = runs.at(-1);
      const last = run?.at(-1);
      if (
        run &&
        last !== undefined &&
        lvl.counts[last]! > 0 &&
        lvl.offsets[last]! + lvl.counts[last]! === lvl.offsets[i]
      )
        run.push(i);
      else runs.push([i]);
    }
    for (const run of runs) {
      const first = run[0]!;
      const start = lvl.offsets[first] ?? 0;
      const total = run.reduce((s, i) => s + (lvl.counts[i] ?? 0), 0);
      const bytes = total > 0 ? this.source.fetch(start, total) : Promise.resolve(new Uint8Array(0));
      for (const i of run) {
        const rel = (lvl.offsets[i] ?? 0) - start;
        const p = bytes.then((b) => this.decode(lvl, i, b.subarray(rel, rel + (lvl.counts[i] ?? 0))));
        this.tilesFetched++;
        out[position.get(i)!] = this.cache.put(this.key(levelIndex, i), p);
      }
    }
    return Promise.all(out as Promise<TypedArray>[]);
  }

  private key(level: number, index: number): string {
    return `${this.source.url}#${level}:${index}`;
  }

  private decode(lvl: CogLevel, index: number, raw: Uint8Array): TypedArray {
    const n = lvl.tileWidth * lvl.tileHeight;
    // A stripped image's last strip holds only the rows left; pad it to a full strip.
    const across = Math.ceil(lvl.width / lvl.tileWidth);
    const rows = Math.min(lvl.tileHeight, lvl.height - Math.floor(index / across) * lvl.tileHeight);
    const needed = (lvl.stripped ? rows * lvl.tileWidth : n) * DTYPES[this.dtype].bytes;
    const bps = DTYPES[this.dtype].bytes;
    if (raw.length === 0) {
      const t = allocate(this.dtype, n);
      if (this.nodata !== undefined) t.fill(this.nodata);
      return t;
    }
    let bytes = decodeTile(lvl.compression, raw, n * bps);
    if (bytes.length < needed)
      throw new SnowdbError(
        'invalid-raster',
        `${this.source.url}: tile decodes to ${bytes.length} bytes, expected ${needed}`,
      );
    if (bytes === raw || bytes.length < n * bps) {
      const full = new Uint8Array(n * bps);
      full.set(bytes.subarray(0, Math.min(bytes.length, n * bps)));
      bytes = full;
    }
    if (lvl.predictor === 2) decodeHorizontal(bytes, lvl.tileWidth, lvl.tileHeight, bps);
    else if (lvl.predictor === 3)
      decodeFloat(bytes, lvl.tileWidth, lvl.tileHeight, bps, new Uint8Array(lvl.tileWidth * bps));
    return viewAs(this.dtype, bytes.subarray(0, n * bps));
  }

  /**
   * Read a window (inside the level) into a new typed array, row-major, or into `into` when it is
   * of the raster's type and the window's size (a reused buffer: no fresh pages per read).
   * @throws RangeError when the window leaves the image.
   */
  async readWindow(w: Window, level = 0, into?: TypedArray): Promise<TypedArray> {
    const lvl = this.level(level);
    if (
      w.col < 0 ||
      w.row < 0 ||
      w.width <= 0 ||
      w.height <= 0 ||
      w.col + w.width > lvl.width ||
      w.row + w.height > lvl.height
    ) {
      throw new RangeError(
        `${this.source.url}: window ${JSON.stringify(w)} outside ${lvl.width}×${lvl.height}`,
      );
    }
    const n = w.width * w.height;
    const out =
      into !== undefined && into.length === n && into instanceof DTYPES[this.dtype].ctor
        ? into
        : allocate(this.dtype, n);
    const t = tilesOfWindow(lvl.tileWidth, w, lvl.tileHeight);
    const across = Math.ceil(lvl.width / lvl.tileWidth);
    const indices: number[] = [];
    for (let ty = t.ty0; ty <= t.ty1; ty++)
      for (let tx = t.tx0; tx <= t.tx1; tx++) indices.push(ty * across + tx);
    const tiles = await this.readTiles(level, indices);
    let k = 0;
    for (let ty = t.ty0; ty <= t.ty1; ty++) {
      for (let tx = t.tx0; tx <= t.tx1; tx++) {
        const tile = tiles[k++]!;
        const c0 = Math.max(w.col, tx * lvl.tileWidth);
        const c1 = Math.min(w.col + w.width, (tx + 1) * lvl.tileWidth);
        const r0 = Math.max(w.row, ty * lvl.tileHeight);
        const r1 = Math.min(w.row + w.height, (ty + 1) * lvl.tileHeight);
        for (let r = r0; r < r1; r++) {
          const src = (r - ty * lvl.tileHeight) * lvl.tileWidth + (c0 - tx * lvl.tileWidth);
          out.set(tile.subarray(src, src + (c1 - c0)), (r - w.row) * w.width + (c0 - w.col));
        }
      }
    }
    return out;
  }

  close(): Promise<void> {
    return this.source.close();
  }
}
