import { writeFileAtomic } from '../io/atomic.js';
import { allocate, DTYPES, type DType, dtypeOf, isFloat, type TypedArray } from './dtype.js';
import type { Grid } from './grid.js';
import { type Compression, CompressionCode, encodeTile } from './tiff/codecs.js';
import { geoKeysFor } from './tiff/geokeys.js';
import {
  asciiEntry,
  doubleEntry,
  type IfdEntry,
  ifdSize,
  longEntry,
  shortEntry,
  writeIfd,
} from './tiff/ifd.writer.js';
import { encodeFloat, encodeHorizontal } from './tiff/predictor.js';
import { Tag } from './tiff/tags.js';
import { uniformImage, uniformKey, uniformSquare } from './uniform.js';

export interface CogWriteOptions {
  /** Tile compression; default deflate. */
  readonly compression?: Compression;
  /** Compression level; default 6 for deflate, 9 for zstd. */
  readonly level?: number;
  /** Predictor: default 2 for integers, 3 for floats; 1 turns it off. */
  readonly predictor?: 1 | 2 | 3;
  /** Nodata value (GDAL_NODATA); also fills the padding of edge tiles. */
  readonly nodata?: number;
  /** Dataset-level GDAL_METADATA items (provenance tags). */
  readonly metadata?: Readonly<Record<string, string>>;
  /** Band 1 description. */
  readonly description?: string;
  /** Add overviews (nearest, halving) until the image fits one tile; default false. */
  readonly overviews?: boolean;
}

interface Image {
  readonly width: number;
  readonly height: number;
  readonly data: TypedArray;
}

/** Writes samples of row `row` from column `col` into `out` (out.length of them). */
export type RowSource = (row: number, col: number, out: TypedArray) => void;

/** An image's pixels: a whole row-major array (`data`), or rows made on demand (no whole array in memory). */
type Pixels = Image | { readonly width: number; readonly height: number; readonly row: RowSource };

/** GDAL_METADATA XML for dataset items and an optional band description. */
export function gdalMetadataXml(items: Readonly<Record<string, string>>, description?: string): string {
  const esc = (s: string) =>
    s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
  // GDAL escapes item values twice (and unescapes them twice on read); names once.
  const lines = Object.entries(items).map(([k, v]) => `  <Item name="${esc(k)}">${esc(esc(v))}</Item>`);
  if (description !== undefined) {
    lines.push(`  <Item name="DESCRIPTION" sample="0" role="description">${esc(esc(description))}</Item>`);
  }
  return `<GDALMetadata>\n${lines.join('\n')}\n</GDALMetadata>`;
}

/** GDAL_NODATA text: integers plainly, floats with full round-trip precision, NaN as `nan`. */
export function nodataText(v: number): string {
  return Number.isNaN(v) ? 'nan' : String(v);
}

/** Halve an image by nearest (top-left pixel of each 2×2 block). */
function halve(img: Image, dtype: DType): Image {
  const width = Math.ceil(img.width / 2);
  const height = Math.ceil(img.height / 2);
  const data = allocate(dtype, width * height);
  for (let r = 0; r < height; r++) {
    const src = r * 2 * img.width;
    const dst = r * width;
    for (let c = 0; c < width; c++) data[dst + c] = img.data[src + c * 2]!;
  }
  return { width, height, data };
}

/** Compress every tile of an image, row-major; edge tiles padded with `fill`. */
function encodeTiles(
  img: Pixels,
  dtype: DType,
  tileSize: number,
  opts: Required<Pick<CogWriteOptions, 'compression' | 'level' | 'predictor'>>,
  fill: number,
): Uint8Array[] {
  const bps = DTYPES[dtype].bytes;
  const tile = allocate(dtype, tileSize * tileSize);
  const tileBytes = new Uint8Array(tile.buffer);
  const scratch = new Uint8Array(tileSize * bps);
  const out: Uint8Array[] = [];
  const uniform = new Map<string, Uint8Array>(); // a uniform tile's key → its encoded bytes
  const left = Buffer.alloc(tileBytes.length); // the previous tile of this tile row, unencoded
  const across = Math.ceil(img.width / tileSize);
  const down = Math.ceil(img.height / tileSize);
  const image = 'data' in img ? uniformImage(img.data) : undefined;
  for (let ty = 0; ty < down; ty++) {
    for (let tx = 0; tx < across; tx++) {
      const c0 = tx * tileSize;
      const r0 = ty * tileSize;
      const w = Math.min(tileSize, img.width - c0);
      const h = Math.min(tileSize, img.height - r0);
      // A whole tile of one value already encoded is known in the image itself, without a copy
      // (most tiles of a CONUS grid are nodata or snow-free); other tiles are judged once copied.
      const inPlace = image !== undefined && w === tileSize && h === tileSize;
      let key: string | undefined;
      if (inPlace) {
        const at = r0 * img.width + c0;
        if (uniformSquare(image, at, img.width, tileSize)) {
          key = image.bytes.toString('hex', at * bps, (at + 1) * bps);
          const same = uniform.get(key);
          if (same !== undefined) {
            out.push(same);
            continue;
          }
        }
      }
      if (w < tileSize || h < tileSize) tile.fill(fill);
      if ('data' in img)
        for (let r = 0; r < h; r++) {
          const src = (r0 + r) * img.width + c0;
          tile.set(img.data.subarray(src, src + w), r * tileSize);
        }
      else for (let r = 0; r < h; r++) img.row(r0 + r, c0, tile.subarray(r * tileSize, r * tileSize + w));
      // A tile of one value (ocean, snow-free land) encodes to the same bytes every time, and so
      // does a tile equal to its left neighbour (rows of an area raster, of a latitude band).
      if (!inPlace) {
        key = uniformKey(tileBytes, bps, tileSize);
        const known = key === undefined ? undefined : uniform.get(key);
        if (known !== undefined) {
          out.push(known);
          continue;
        }
      }
      const raw = Buffer.from(tileBytes.buffer, tileBytes.byteOffset, tileBytes.length);
      if (tx > 0 && left.equals(raw)) {
        out.push(out.at(-1)!);
        continue;
      }
      left.set(raw);
      if (opts.predictor === 2) encodeHorizontal(tileBytes, tileSize, tileSize, bps);
      else if (opts.predictor === 3) encodeFloat(tileBytes, tileSize, tileSize, bps, scratch);
      const encoded = encodeTile(opts.compression, tileBytes, opts.level);
      const kept = encoded === tileBytes ? tileBytes.slice() : encoded;
      if (key !== undefined) uniform.set(key, kept);
      out.push(kept);
    }
  }
  return out;
}

/**
 * Encode a single-band COG as byte chunks: header, all IFDs (main first, then overviews, largest
 * first) with their values, then tile data (smallest overview first, main image last).
 */
export function encodeCog(grid: Grid, data: TypedArray, options: CogWriteOptions = {}): Uint8Array[] {
  if (data.length !== grid.width * grid.height) {
    throw new Error(`encodeCog: ${data.length} samples for a ${grid.width}×${grid.height} grid`);
  }
  return encodeImages(grid, dtypeOf(data), { width: grid.width, height: grid.height, data }, options);
}

/**
 * `encodeCog` of an image given row by row (`row(r, col, out)`), never whole in memory: for
 * rasters that are cheap to compute and large to hold, such as a grid's cell areas. No overviews.
 */
export function encodeCogRows(
  grid: Grid,
  dtype: DType,
  row: RowSource,
  options: Omit<CogWriteOptions, 'overviews'> = {},
): Uint8Array[] {
  return encodeImages(grid, dtype, { width: grid.width, height: grid.height, row }, options);
}

/** The COG of a whole image (with overviews as asked) or of rows made on demand (no overviews). */
function encodeImages(grid: Grid, dtype: DType, img: Pixels, options: CogWriteOptions): Uint8Array[] {
  if (grid.tileSize % 16 !== 0)
    throw new Error(`encodeCog: tile size ${grid.tileSize} is not a multiple of 16`);
  const compression = options.compression ?? 'deflate';
  const opts = {
    compression,
    level: options.level ?? (compression === 'zstd' ? 9 : 6),
    predictor: options.predictor ?? (isFloat(dtype) ? 3 : 2),
  } as const;
  const images: Pixels[] = [img];
  // Overviews (nearest, halving) until the image fits one tile: of a whole image only.
  for (
    let last = img;
    options.overviews && 'data' in last && Math.max(last.width, last.height) > grid.tileSize;
  ) {
    last = halve(last, dtype);
    images.push(last);
  }
  const fill = options.nodata !== undefined && Number.isFinite(options.nodata) ? options.nodata : 0;
  const tiles = images.map((level) => encodeTiles(level, dtype, grid.tileSize, opts, fill));

  const geo = geoKeysFor(grid.crs);
  const ifdEntries = (i: number, offsets: ArrayLike<number>): IfdEntry[] => {
    const img = images[i]!;
    const counts = tiles[i]!.map((t) => t.length);
    const e: IfdEntry[] = [
      longEntry(Tag.NewSubfileType, [i === 0 ? 0 : 1]),
      longEntry(Tag.ImageWidth, [img.width]),
      longEntry(Tag.ImageLength, [img.height]),
      shortEntry(Tag.BitsPerSample, DTYPES[dtype].bytes * 8),
      shortEntry(Tag.Compression, CompressionCode[compression]),
      shortEntry(Tag.Photometric, 1),
      shortEntry(Tag.SamplesPerPixel, 1),
      shortEntry(Tag.PlanarConfiguration, 1),
      shortEntry(Tag.TileWidth, grid.tileSize),
      shortEntry(Tag.TileLength, grid.tileSize),
      longEntry(Tag.TileOffsets, offsets),
      longEntry(Tag.TileByteCounts, counts),
      shortEntry(Tag.SampleFormat, DTYPES[dtype].sampleFormat),
    ];
    if (opts.predictor !== 1) e.push(shortEntry(Tag.Predictor, opts.predictor));
    if (options.nodata !== undefined) e.push(asciiEntry(Tag.GdalNodata, nodataText(options.nodata)));
    if (i > 0) return e;
    e.push(doubleEntry(Tag.ModelPixelScale, [grid.cellWidth, grid.cellHeight, 0]));
    e.push(doubleEntry(Tag.ModelTiepoint, [0, 0, 0, grid.originX, grid.originY, 0]));
    e.push({ tag: Tag.GeoKeyDirectory, type: 3, values: geo.directory });
    if (geo.doubles.length > 0) e.push(doubleEntry(Tag.GeoDoubleParams, geo.doubles));
    if (geo.ascii.length > 0) e.push(asciiEntry(Tag.GeoAsciiParams, geo.ascii));
    if ((options.metadata && Object.keys(options.metadata).length > 0) || options.description !== undefined) {
      e.push(asciiEntry(Tag.GdalMetadata, gdalMetadataXml(options.metadata ?? {}, options.description)));
    }
    return e;
  };

  // Plan: IFD sizes do not depend on offset values, so lay out IFDs, then data.
  const ifdOffsets: number[] = [];
  let pos = 8;
  for (let i = 0; i < images.length; i++) {
    ifdOffsets.push(pos);
    pos += ifdSize(ifdEntries(i, new Array<number>(tiles[i]!.length).fill(0)));
  }
  const ifdEnd = pos;
  const dataOffsets: number[][] = images.map(() => []);
  for (let i = images.length - 1; i >= 0; i--) {
    for (const t of tiles[i]!) {
      dataOffsets[i]!.push(pos);
      pos += t.length;
    }
  }
  if (pos > 0xffffffff) throw new Error(`encodeCog: ${pos} bytes exceed classic TIFF's 4 GiB`);

  const head = Buffer.alloc(ifdEnd);
  head.write('II', 0, 'latin1');
  head.writeUInt16LE(42, 2);
  head.writeUInt32LE(8, 4);
  for (let i = 0; i < images.length; i++) {
    writeIfd(head, ifdOffsets[i]!, ifdEntries(i, dataOffsets[i]!), ifdOffsets[i + 1] ?? 0);
  }
  const chunks: Uint8Array[] = [head];
  for (let i = images.length - 1; i >= 0; i--) chunks.push(...tiles[i]!);
  return chunks;
}

/** Write a COG atomically (temp file beside `path`, fsync, rename). Returns the file size in bytes. */
export async function writeCog(
  path: string,
  grid: Grid,
  data: TypedArray,
  options: CogWriteOptions = {},
): Promise<number> {
  return writeFileAtomic(path, encodeCog(grid, data, options));
}

/** `writeCog` of an image given row by row (`encodeCogRows`). */
export async function writeCogRows(
  path: string,
  grid: Grid,
  dtype: DType,
  row: RowSource,
  options: Omit<CogWriteOptions, 'overviews'> = {},
): Promise<number> {
  return writeFileAtomic(path, encodeCogRows(grid, dtype, row, options));
}
