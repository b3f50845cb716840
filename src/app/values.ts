import { datesOf } from '../datasets/inventory.js';
import { openDataset } from '../datasets/registry.js';
import type { Database } from '../db/database.js';
import { SnowdbError } from '../errors.js';
import { FileSource } from '../io/source.js';
import { Cog } from '../raster/cog.reader.js';
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

/** Rows of the grid read at a time (a band of tiles). */
const BAND_ROWS = 512;

/** Min, max, sum and count of the non-nodata (and non-NaN) cells of a COG, in stored units. */
async function summarize(
  path: string,
  nodata: number,
): Promise<{ min: number; max: number; sum: number; n: number; cells: number }> {
  const src = new FileSource(path);
  try {
    const cog = await Cog.open(src);
    const { width, height } = cog.grid;
    let [min, max, sum, n] = [Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY, 0, 0];
    for (let row = 0; row < height; row += BAND_ROWS) {
      const band = await cog.readWindow({ col: 0, row, width, height: Math.min(BAND_ROWS, height - row) });
      for (let i = 0; i < band.length; i++) {
        const v = band[i]!;
        if (v === nodata || Number.isNaN(v)) continue;
        if (v < min) min = v;
        if (v > max) max = v;
        sum += v;
        n++;
      }
    }
    return { min, max, sum, n, cells: width * height };
  } finally {
    await src.close();
  }
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
