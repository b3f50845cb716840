import { datesOf } from '../datasets/inventory.js';
import { openDataset } from '../datasets/registry.js';
import type { Database } from '../db/database.js';
import { SnowdbError } from '../errors.js';
import { FileSource } from '../io/source.js';
import { Cog } from '../raster/cog.reader.js';
import type { TypedArray } from '../raster/dtype.js';
import { repeats } from '../util/bytes.js';
import { dateOption, requireIngested } from './dates.js';

/** One variable of one date over the whole grid: min, max, mean in its unit (null when every cell is nodata). */
export interface VariableValues {
  readonly variable: string;
  readonly unit: string;
  readonly min: number | null;
  readonly max: number | null;
  readonly mean: number | null;
  /** Share of the grid's cells that are nodata, percent, 3 decimals. */
  readonly nodata_pct: number;
}

export interface ValuesReport {
  readonly dataset: string;
  readonly date: string;
  readonly variables: readonly VariableValues[];
}

/** Min, max, sum and count of the non-nodata (and non-NaN) cells of one tile's `w` × `h` cells in the grid. */
function tileStats(
  tile: TypedArray,
  tileWidth: number,
  w: number,
  h: number,
  nodata: number,
): { min: number; max: number; sum: number; n: number } {
  let [min, max, sum, n] = [Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY, 0, 0];
  for (let r = 0; r < h; r++)
    for (let i = r * tileWidth, end = i + w; i < end; i++) {
      const v = tile[i]!;
      if (v === nodata || Number.isNaN(v)) continue;
      if (v < min) min = v;
      if (v > max) max = v;
      sum += v;
      n++;
    }
  return { min, max, sum, n };
}

/**
 * Min, max, sum and count of the non-nodata (and non-NaN) cells of a COG, in stored units, tile by
 * tile. A whole tile of one value (most tiles of a CONUS grid are nodata or snow-free) is known
 * from one native compare of its bytes, not summed cell by cell.
 */
async function summarize(
  path: string,
  nodata: number,
): Promise<{ min: number; max: number; sum: number; n: number; cells: number }> {
  const src = new FileSource(path);
  try {
    const cog = await Cog.open(src);
    const { width, height } = cog.grid;
    const { tileWidth, tileHeight } = cog.levels[0]!;
    let [min, max, sum, n] = [Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY, 0, 0];
    for (let ty = 0; ty * tileHeight < height; ty++)
      for (let tx = 0; tx * tileWidth < width; tx++) {
        const tile = await cog.readTile(tx, ty);
        const w = Math.min(tileWidth, width - tx * tileWidth); // cells of the tile inside the grid
        const h = Math.min(tileHeight, height - ty * tileHeight);
        const bytes = new Uint8Array(tile.buffer, tile.byteOffset, tile.byteLength);
        const s =
          w === tileWidth && h === tileHeight && repeats(bytes, tile.BYTES_PER_ELEMENT)
            ? uniformStats(tile[0]!, w * h, nodata)
            : tileStats(tile, tileWidth, w, h, nodata);
        if (s.min < min) min = s.min;
        if (s.max > max) max = s.max;
        sum += s.sum;
        n += s.n;
      }
    return { min, max, sum, n, cells: width * height };
  } finally {
    await src.close();
  }
}

/** The stats of `count` cells of value `v`. */
function uniformStats(
  v: number,
  count: number,
  nodata: number,
): { min: number; max: number; sum: number; n: number } {
  if (v === nodata || Number.isNaN(v))
    return { min: Number.POSITIVE_INFINITY, max: Number.NEGATIVE_INFINITY, sum: 0, n: 0 };
  return { min: v, max: v, sum: v * count, n: count };
}

/**
 * `dataset values`: per variable (sorted) of one date (default: the last ingested), min, max and
 * mean of the valid cells of the whole grid in the variable's unit, and the nodata share.
 * @throws SnowdbError `dataset-not-found`, `malformed-query-parameter`, `date-not-found`, `date-incomplete`.
 */
export async function datasetValues(
  db: Database,
  name: string,
  opts: { date?: string | undefined } = {},
): Promise<ValuesReport> {
  const d = await openDataset(db, name);
  const dates = await datesOf(db, d);
  const date = dateOption(opts.date, 'date') ?? dates.at(-1);
  if (date === undefined) throw new SnowdbError('date-not-found', `${name} has no dates yet`);
  requireIngested(name, new Set(dates), [date]);
  const variables: VariableValues[] = [];
  for (const [variable, spec] of Object.entries(d.config.variables).sort(([a], [b]) => (a < b ? -1 : 1))) {
    const s = await summarize(d.paths.cog(date, variable), spec.nodata).catch((e: NodeJS.ErrnoException) => {
      if (e.code !== 'ENOENT') throw e;
      throw new SnowdbError(
        'date-incomplete',
        `${name} ${date} has no ${variable} raster (run 'snowdb doctor')`,
      );
    });
    const scaled = (v: number) => (s.n === 0 ? null : v / spec.scale_factor);
    variables.push({
      variable,
      unit: spec.unit,
      min: scaled(s.min),
      max: scaled(s.max),
      mean: scaled(s.sum / s.n),
      nodata_pct: Math.round((100_000 * (s.cells - s.n)) / s.cells) / 1000,
    });
  }
  return { dataset: name, date, variables };
}
