import { basename } from 'node:path';
import type { VariableSpec } from '../datasets/config.js';
import { SnowdbError } from '../errors.js';
import { Hdf5File } from '../formats/hdf5.js';
import { DTYPES, type DType, type TypedArray, viewAs } from '../raster/dtype.js';
import { withScratch } from '../util/scratch.js';
import type { DateSource, Ingester, ValidRange } from './types.js';

const NAME = /^SPIRES_NRT_h(\d{2})v(\d{2})_(MOD09GA\d+)_(\d{8})_(V[\d.]+)\.nc$/;
/** MODIS tile rows and columns the instarr grid holds. */
const H_RANGE = [8, 10] as const;
const V_RANGE = [4, 5] as const;
const TILE = 2400;

interface Tile {
  readonly file: string;
  readonly h: number;
  readonly v: number;
  readonly collection: string;
  readonly date: string;
  readonly version: string;
}

function parseTile(file: string): Tile {
  const m = NAME.exec(basename(file));
  if (m === null)
    throw new SnowdbError(
      'invalid-source',
      `${file}: not a SPIRES NRT tile name (SPIRES_NRT_h##v##_<collection>_<YYYYMMDD>_<version>.nc)`,
    );
  const t = { file, h: Number(m[1]), v: Number(m[2]), collection: m[3]!, date: m[4]!, version: m[5]! };
  if (t.h < H_RANGE[0] || t.h > H_RANGE[1] || t.v < V_RANGE[0] || t.v > V_RANGE[1]) {
    throw new SnowdbError(
      'invalid-source',
      `${file}: tile h${m[1]}v${m[2]} is outside the grid (h08-h10 x v04-v05)`,
    );
  }
  return t;
}

/** The narrowest `valid_range` the tiles declare for a variable (none when no tile declares one). */
function declaredRange(files: readonly Hdf5File[], name: string): ValidRange | undefined {
  let out: [number, number] | undefined;
  for (const f of files) {
    const r = f.range(name);
    if (r !== undefined) out = out === undefined ? [...r] : [Math.max(out[0], r[0]), Math.min(out[1], r[1])];
  }
  return out;
}

/** SPIRES NRT tiles: a date is the mosaic of all its tiles (missing tiles stay nodata). */
export const spiresIngester: Ingester = {
  filePattern: /^SPIRES_NRT_.*\.nc$/,
  recursive: true,
  filesPerDate: 'several',
  async plan(files) {
    const byDate = new Map<string, Tile[]>();
    for (const f of files) {
      const t = parseTile(f);
      byDate.set(t.date, [...(byDate.get(t.date) ?? []), t]);
    }
    return [...byDate].map(([date, tiles]) => {
      const first = tiles[0]!;
      const odd = tiles.find((t) => t.collection !== first.collection || t.version !== first.version);
      if (odd !== undefined) {
        throw new SnowdbError(
          'invalid-source',
          `${odd.file}: ${odd.collection} ${odd.version} differs from ${basename(first.file)} (${first.collection} ${first.version}); tiles of a date must agree`,
        );
      }
      const seen = new Set<string>();
      for (const t of tiles) {
        const key = `h${t.h}v${t.v}`;
        if (seen.has(key))
          throw new SnowdbError('invalid-source', `${t.file}: a second file for tile ${key} on ${date}`);
        seen.add(key);
      }
      return {
        date,
        files: tiles.map((t) => t.file).sort(),
        fields: {
          SOURCE_COLLECTION: first.collection,
          SOURCE_VERSION: first.version,
          SOURCE_TILES: tiles
            .map((t) => `h${String(t.h).padStart(2, '0')}v${String(t.v).padStart(2, '0')}`)
            .sort()
            .join(' '),
        },
        rank: 0,
      } satisfies DateSource;
    });
  },
  async decode(d, src, emit) {
    const tiles = src.files.map(parseTile);
    const opened = await Promise.all(tiles.map((t) => Hdf5File.open(t.file)));
    try {
      const { width: W, cellWidth: cell } = d.grid;
      // Place each tile by its own coordinates (cell centres), checked against its name.
      const offsets = tiles.map((t, i) => {
        const f = opened[i]!;
        const x = f.read('x').values;
        const y = f.read('y').values;
        if (x.length !== TILE || y.length !== TILE)
          throw new SnowdbError(
            'invalid-source',
            `${t.file}: x/y have ${x.length}/${y.length} cells; a tile has 2400`,
          );
        const flip = y[0]! < y[TILE - 1]!;
        const col = (x[0]! - cell / 2 - d.grid.originX) / cell;
        const row = (d.grid.originY - ((flip ? y[TILE - 1]! : y[0]!) + cell / 2)) / cell;
        const expect = [(t.h - H_RANGE[0]) * TILE, (t.v - V_RANGE[0]) * TILE];
        if (Math.abs(col - expect[0]!) > 1e-3 || Math.abs(row - expect[1]!) > 1e-3) {
          throw new SnowdbError(
            'invalid-source',
            `${t.file}: its coordinates place it at column ${col.toFixed(3)}, row ${row.toFixed(3)}, not where tile h${t.h}v${t.v} lies (${expect.join(', ')})`,
          );
        }
        return { col: expect[0]!, row: expect[1]!, flip };
      });
      // One mosaic per dtype in a borrowed buffer, reused by the next variable (and date) once
      // `emit` has written it: a fresh 35 M-cell array cost more in first-touch page faults than
      // the copies.
      const byDtype = new Map<DType, [string, VariableSpec][]>();
      for (const [key, spec] of Object.entries(d.config.variables))
        byDtype.set(spec.dtype, [...(byDtype.get(spec.dtype) ?? []), [key, spec]]);
      // Every dtype's mosaic uses the start of one buffer, sized for the widest; each tile's
      // variable is read into a second one (2 bytes a cell: the producer's u8 and u16; a wider
      // type is copied out by h5wasm instead). Two buffers, reused date after date.
      const cells = W * d.grid.height;
      const widest = Math.max(...[...byDtype.keys()].map((t) => DTYPES[t].bytes));
      await withScratch(cells * widest, (buf) =>
        withScratch(TILE * TILE * 2, async (tileBuf) => {
          for (const [dtype, variables] of byDtype)
            await mosaic(viewAs(dtype, buf.subarray(0, cells * DTYPES[dtype].bytes)), tileBuf, variables);
        }),
      );
      async function mosaic(out: TypedArray, tileBuf: Buffer, variables: readonly [string, VariableSpec][]) {
        for (const [key, spec] of variables) {
          out.fill(spec.nodata);
          tiles.forEach((t, i) => {
            const f = opened[i]!;
            const shape = f.shape(key).filter((n) => n !== 1);
            if (shape.length !== 2 || shape[0] !== TILE || shape[1] !== TILE) {
              throw new SnowdbError(
                'invalid-source',
                `${t.file}: variable ${key} has shape ${f.shape(key).join(' x ')}; expected 2400 x 2400`,
              );
            }
            f.requireUnpacked(key);
            const { values, fill } = f.read(key, tileBuf);
            const { col, row, flip } = offsets[i]!;
            // The usual file: the variable's own type, its fill the nodata: native row copies.
            const plain =
              values.constructor === out.constructor && (fill === undefined || fill === spec.nodata);
            for (let r = 0; r < TILE; r++) {
              const src0 = (flip ? TILE - 1 - r : r) * TILE;
              const dst0 = (row + r) * W + col;
              if (plain) out.set((values as typeof out).subarray(src0, src0 + TILE), dst0);
              else
                for (let c = 0; c < TILE; c++) {
                  const v = values[src0 + c]!;
                  out[dst0 + c] = v === fill ? spec.nodata : v;
                }
            }
          });
          await emit(
            key,
            out,
            { SOURCE_FILES: src.files.map((f) => basename(f)).join(' ') },
            declaredRange(opened, key),
          );
        }
      }
    } finally {
      for (const f of opened) f.close();
    }
  },
};
