/**
 * A dataset's coverage index (`coverage.idx`): every basin's AOI weights in one file, so a query
 * reads a basin's weights with one ranged read of a file every basin shares, and an every-basin
 * answer reads the header once: no AOI raster is opened or decoded per basin. The AOI rasters stay
 * (the GDAL-openable form the spec describes); the index is derived from the same coverage, is
 * rewritten atomically whenever AOI rasters are built or removed, and is only trusted for a basin
 * whose AOI hash (format, geometry hash, grid) it records as current: anything else falls back
 * to the AOI raster.
 *
 * Layout, little-endian: magic `SNOWCIX1`; u32 header length; the header (UTF-8 JSON: the grid
 * hash and, per basin in triplet order, `[triplet, aoi hash, col, row, width, height, pixels]`);
 * zero padding to a multiple of 8; then per basin in header order its pixels' offsets in its
 * window (int32, ascending, padded to 8 bytes) and their weights (float64, m²).
 */
import type { Database } from '../db/database.js';
import { SnowdbError } from '../errors.js';
import { writeFileAtomicBy } from '../io/atomic.js';
import type { Store } from '../io/store.js';
import type { TypedArray } from '../raster/dtype.js';
import type { Window } from '../raster/grid.js';

const MAGIC = 'SNOWCIX1';
/** Largest header read: ~70 bytes a basin, so 256 MiB holds millions. */
const MAX_HEADER_BYTES = 256 * 1024 * 1024;
/** Largest basin window, pixels (a whole SNODAS grid is 23 M). */
const MAX_WINDOW_PIXELS = 1 << 28;

/** A basin's weights, sparse: the offsets (row-major in `window`) of its pixels with weight > 0. */
export interface SparseWeights {
  /** The AOI raster's window on the grid (tile-aligned). */
  readonly window: Window;
  /** Pixel offsets in the window, ascending. */
  readonly at: Int32Array;
  /** Covered fraction × cell area of each, m². */
  readonly weight: Float64Array;
}

/** One basin of an index: where its pixels lie in the file. */
export interface IndexedBasin {
  readonly aoiHash: string;
  readonly window: Window;
  readonly pixels: number;
  /** Byte offset of its offsets; its weights follow them (8-aligned). */
  readonly offset: number;
}

export interface CoverageIndex {
  readonly path: string;
  readonly gridHash: string;
  /** By triplet, in triplet order. */
  readonly basins: ReadonlyMap<string, IndexedBasin>;
}

const pad8 = (n: number) => (n + 7) & ~7;
/** Bytes of one basin's block: offsets padded to 8, then weights. */
const blockBytes = (pixels: number) => pad8(4 * pixels) + 8 * pixels;

/** The pixels of a dense window of weights that weigh anything. */
export function sparseOf(data: TypedArray, window: Window): SparseWeights {
  let n = 0;
  for (let i = 0; i < data.length; i++) if (data[i]! > 0) n++;
  const at = new Int32Array(n);
  const weight = new Float64Array(n);
  let k = 0;
  for (let i = 0; i < data.length; i++) {
    const w = data[i]!;
    if (w > 0) {
      at[k] = i;
      weight[k++] = w;
    }
  }
  return { window, at, weight };
}

const corrupt = (path: string, why: string) =>
  new SnowdbError(
    'invalid-raster',
    `${path}: not a coverage index (${why}); run 'snowdb pourpoint rasterize' to rebuild it`,
  );

type HeaderRow = [string, string, number, number, number, number, number];

/** The index's header (no weights read), or null when the file is absent. */
export async function readCoverageIndex(store: Store, path: string): Promise<CoverageIndex | null> {
  if (store.stat(path).signature === 'absent') return null;
  const head = await store.readAt(path, 0, 12);
  if (head.length < 12 || Buffer.from(head.subarray(0, 8)).toString('latin1') !== MAGIC)
    throw corrupt(path, 'no SNOWCIX1 magic');
  const length = Buffer.from(head).readUInt32LE(8);
  if (length > MAX_HEADER_BYTES) throw corrupt(path, `a header of ${length} bytes`);
  const text = await store.readAt(path, 12, length);
  if (text.length !== length) throw corrupt(path, 'cut short');
  let header: { grid: string; basins: HeaderRow[] };
  try {
    header = JSON.parse(Buffer.from(text).toString('utf8')) as typeof header;
  } catch (e) {
    throw corrupt(path, (e as Error).message);
  }
  const basins = new Map<string, IndexedBasin>();
  let offset = pad8(12 + length);
  if (typeof header?.grid !== 'string' || !Array.isArray(header.basins))
    throw corrupt(path, 'no grid or basins');
  for (const r of header.basins) {
    // Every row as written: a basin's pixels lie in its window, so no row asks for more bytes.
    const ok =
      Array.isArray(r) &&
      typeof r[0] === 'string' &&
      typeof r[1] === 'string' &&
      r.slice(2).every((x) => Number.isSafeInteger(x) && (x as number) >= 0) &&
      r[6] <= r[4] * r[5] &&
      r[4] * r[5] <= MAX_WINDOW_PIXELS;
    if (!ok) throw corrupt(path, `a malformed basin row ${JSON.stringify(r).slice(0, 80)}`);
  }
  for (const [triplet, aoiHash, col, row, width, height, pixels] of header.basins) {
    basins.set(triplet, { aoiHash, window: { col, row, width, height }, pixels, offset });
    offset += blockBytes(pixels);
  }
  return { path, gridHash: header.grid, basins };
}

/**
 * A dataset's index header, read again only when the file changes (one stat); null when absent
 * or not an index (queries then read the AOI rasters; doctor names the problem). A storage
 * failure is thrown, as any read's.
 */
export function coverageIndexOf(
  db: Database,
  d: { store: Store; paths: { coverageIndex: string } },
): Promise<CoverageIndex | null> {
  return db.memo(d.paths.coverageIndex, (p) =>
    readCoverageIndex(d.store, p).catch((e: unknown) => {
      if (SnowdbError.is(e) && e.key === 'invalid-raster') return null;
      throw e;
    }),
  );
}

/** One basin's weights from the index (one ranged read). */
export async function indexedWeights(
  store: Store,
  index: CoverageIndex,
  b: IndexedBasin,
): Promise<SparseWeights> {
  const bytes = await store.readAt(index.path, b.offset, blockBytes(b.pixels));
  if (bytes.length !== blockBytes(b.pixels)) throw corrupt(index.path, 'cut short');
  // A copy at an 8-aligned address: typed views need aligned offsets.
  const buf = new ArrayBuffer(bytes.length);
  new Uint8Array(buf).set(bytes);
  return {
    window: b.window,
    at: new Int32Array(buf, 0, b.pixels),
    weight: new Float64Array(buf, pad8(4 * b.pixels), b.pixels),
  };
}

/**
 * Many basins' weights from the index in one read (the span from the first to the last of them),
 * in the order given: what an every-basin answer reads instead of a ranged read per basin.
 */
export async function indexedWeightsOf(
  store: Store,
  index: CoverageIndex,
  basins: readonly IndexedBasin[],
): Promise<SparseWeights[]> {
  if (basins.length === 0) return [];
  let start = Number.POSITIVE_INFINITY;
  let end = 0;
  for (const b of basins) {
    start = Math.min(start, b.offset);
    end = Math.max(end, b.offset + blockBytes(b.pixels));
  }
  const bytes = await store.readAt(index.path, start, end - start);
  if (bytes.length !== end - start) throw corrupt(index.path, 'cut short');
  // Typed views need 8-aligned offsets (every basin's block starts 8-aligned in the file): the
  // bytes as read when they sit so (a large read has a buffer of its own), else one aligned copy.
  let buf = bytes.buffer;
  let base = bytes.byteOffset;
  if (base % 8 !== 0) {
    buf = new ArrayBuffer(bytes.length);
    new Uint8Array(buf).set(bytes);
    base = 0;
  }
  return basins.map((b) => ({
    window: b.window,
    at: new Int32Array(buf, base + b.offset - start, b.pixels),
    weight: new Float64Array(buf, base + b.offset - start + pad8(4 * b.pixels), b.pixels),
  }));
}

/** A basin to write: its triplet, AOI hash and weights (made when the writer reaches it). */
export interface IndexRow {
  readonly triplet: string;
  readonly aoiHash: string;
  readonly window: Window;
  readonly pixels: number;
  readonly weights: () => Promise<SparseWeights>;
}

/** Write an index of `rows` (any order; written in triplet order) atomically at `path`. */
export async function writeCoverageIndex(
  path: string,
  gridHash: string,
  rows: readonly IndexRow[],
): Promise<void> {
  const sorted = [...rows].sort((a, b) => (a.triplet < b.triplet ? -1 : a.triplet > b.triplet ? 1 : 0));
  const header = Buffer.from(
    JSON.stringify({
      grid: gridHash,
      basins: sorted.map((r) => [
        r.triplet,
        r.aoiHash,
        r.window.col,
        r.window.row,
        r.window.width,
        r.window.height,
        r.pixels,
      ]),
    }),
  );
  const head = Buffer.alloc(pad8(12 + header.length));
  head.write(MAGIC, 0, 'latin1');
  head.writeUInt32LE(header.length, 8);
  header.copy(head, 12);
  await writeFileAtomicBy(path, async (write) => {
    await write([head]);
    for (const r of sorted) {
      const w = await r.weights();
      if (w.at.length !== r.pixels)
        throw new Error(`coverage index: ${r.triplet} has ${w.at.length} pixels, not ${r.pixels}`);
      const block = new Uint8Array(blockBytes(r.pixels));
      block.set(new Uint8Array(w.at.buffer, w.at.byteOffset, w.at.byteLength), 0);
      block.set(
        new Uint8Array(w.weight.buffer, w.weight.byteOffset, w.weight.byteLength),
        pad8(4 * r.pixels),
      );
      await write([block]);
    }
  });
}
