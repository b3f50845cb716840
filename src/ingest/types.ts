import type { Dataset } from '../datasets/registry.js';
import type { TypedArray } from '../raster/dtype.js';

/** One date's worth of source files, planned from names (nothing decoded yet). */
export interface DateSource {
  /** `YYYYMMDD`. */
  readonly date: string;
  /** Absolute paths, sorted. */
  readonly files: readonly string[];
  /** The source's own fields recorded with the date (stage, collection, version…). */
  readonly fields: Readonly<Record<string, string>>;
  /** Precedence among sources of one date (SWANN stages); a lower rank never replaces a higher one. */
  readonly rank: number;
}

/** Inclusive [min, max] of valid values, in stored units (nodata aside). */
export type ValidRange = readonly [number, number];

/**
 * Hands a decoded variable (full dataset grid, row-major) and its extra metadata to the writer,
 * with the range the file itself declares (e.g. NetCDF `valid_range`), checked with the dataset's.
 */
export type Emit = (
  variable: string,
  data: TypedArray,
  metadata: Readonly<Record<string, string>>,
  declared?: ValidRange,
) => Promise<void>;

/** A source format: group files into dates (names only), then decode one date. */
export interface Ingester {
  /** What a directory source expands to (e.g. `*.tar`); matched on file names. */
  readonly filePattern: RegExp;
  /** Whether directories are searched recursively (SPIRES: `<tile>/<year>/<month>/`). */
  readonly recursive: boolean;
  /** Whether a date is several files (SPIRES tiles) that may come from different sources: all
   * sources' files are then planned together, else each source on its own. */
  readonly filesPerDate: 'one' | 'several';
  plan(files: readonly string[]): Promise<DateSource[]>;
  decode(d: Dataset, src: DateSource, emit: Emit): Promise<void>;
}
