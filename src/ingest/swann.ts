import { basename } from 'node:path';
import { SnowdbError } from '../errors.js';
import { Hdf5File } from '../formats/hdf5.js';
import { withScratch } from '../util/scratch.js';
import type { DateSource, Ingester } from './types.js';

const NAME = /^UA_SWE_Depth_800m_v1_(\d{8})_(early|provisional|stable)\.nc$/;
/** Stage precedence: a later stage replaces an earlier one, never the reverse. */
export const STAGES = ['early', 'provisional', 'stable'] as const;

/** NetCDF variable of each dataset variable. */
const VARIABLES: Readonly<Record<string, string>> = { swe: 'SWE', depth: 'DEPTH' };

/** Row-major 2-D values as int16, flipped north-up when the file runs south to north; `values` itself when no change is needed. */
function northUp(
  values: ArrayLike<number>,
  rows: number,
  cols: number,
  flip: boolean,
  fill: number,
  nodata: number,
): Int16Array {
  // Already north-up int16 with nodata as fill: the decoder's own array (the common int16 file).
  if (values instanceof Int16Array && !flip && fill === nodata) return values;
  const out = new Int16Array(rows * cols);
  if (values instanceof Int16Array) {
    // Native row copies, then one monomorphic pass for the fill (the common int16 file).
    for (let r = 0; r < rows; r++) {
      const src = (flip ? rows - 1 - r : r) * cols;
      out.set(values.subarray(src, src + cols), r * cols);
    }
    if (fill !== nodata) for (let i = 0; i < out.length; i++) if (out[i] === fill) out[i] = nodata;
    return out;
  }
  for (let r = 0; r < rows; r++) {
    const src = (flip ? rows - 1 - r : r) * cols;
    for (let c = 0; c < cols; c++) {
      const v = values[src + c]!;
      out[r * cols + c] = v === fill ? nodata : v;
    }
  }
  return out;
}

/** UA SWANN 800 m daily NetCDF: one date per file, stage from the name. */
export const swannIngester: Ingester = {
  filePattern: /\.nc$/i,
  recursive: false,
  filesPerDate: 'one',
  async plan(files) {
    return files.map((f) => {
      const m = NAME.exec(basename(f));
      if (m === null)
        throw new SnowdbError(
          'invalid-source',
          `${f}: not a SWANN file name (UA_SWE_Depth_800m_v1_<YYYYMMDD>_<early|provisional|stable>.nc)`,
        );
      const stage = m[2] as (typeof STAGES)[number];
      return {
        date: m[1]!,
        files: [f],
        fields: { SOURCE_STAGE: stage },
        rank: STAGES.indexOf(stage) + 1,
      } satisfies DateSource;
    });
  },
  async decode(d, src, emit) {
    const path = src.files[0]!;
    const f = await Hdf5File.open(path);
    try {
      const { width: W, height: H } = d.grid;
      const lat = f.read('lat').values;
      const lon = f.read('lon').values;
      if (lat.length !== H || lon.length !== W) {
        throw new SnowdbError(
          'invalid-source',
          `${path}: lat x lon is ${lat.length} x ${lon.length}; the SWANN grid is ${H} x ${W}`,
        );
      }
      const cell = d.grid.cellWidth;
      const flip = lat[0]! < lat[H - 1]!;
      const north = flip ? lat[H - 1]! : lat[0]!;
      // Coordinates are cell centres; allow float32 rounding (~1e-5°), far below a cell.
      if (
        Math.abs(lon[0]! - (d.grid.originX + cell / 2)) > 1e-4 ||
        Math.abs(north - (d.grid.originY - cell / 2)) > 1e-4 ||
        lon[0]! > lon[W - 1]!
      ) {
        throw new SnowdbError(
          'invalid-source',
          `${path}: first cell centre (${lon[0]}, ${north}) is not on the SWANN grid`,
        );
      }
      for (const [key, name] of Object.entries(VARIABLES)) {
        const spec = d.config.variables[key];
        if (spec === undefined) continue;
        const shape = f.shape(name).filter((n) => n !== 1);
        if (shape.length !== 2 || shape[0] !== H || shape[1] !== W) {
          throw new SnowdbError(
            'invalid-source',
            `${path}: variable ${name} has shape ${f.shape(name).join(' x ')}; expected ${H} x ${W}`,
          );
        }
        // SWANN stores plain integers (mm); packed values would be read as other numbers.
        f.requireUnpacked(name);
        // Values are copied into a borrowed buffer: emit writes the COG and keeps nothing.
        await withScratch(W * H * 2, async (buf) => {
          const { values, fill } = f.read(name, buf);
          await emit(
            key,
            northUp(values, H, W, flip, fill ?? spec.nodata, spec.nodata),
            {
              SOURCE_FILES: basename(path),
              SOURCE_VARIABLE_NAME: name,
              SOURCE_ROW_ORDER: flip ? 'south-up (flipped)' : 'north-up',
            },
            f.range(name),
          );
        });
      }
    } finally {
      f.close();
    }
  },
};
