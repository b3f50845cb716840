/**
 * Where the series store's values come from: the date COGs, read block by block. Hard-linked
 * date files (one inode) are decoded once per build.
 */
import { stat } from 'node:fs/promises';
import { dateIncomplete } from '../datasets/read-onto.js';
import type { Dataset } from '../datasets/registry.js';
import { FileSource } from '../io/source.js';
import { Cog } from '../raster/cog.reader.js';
import { allocate, type TypedArray } from '../raster/dtype.js';
import { TileCache } from '../raster/tile.cache.js';
import { AsyncLru } from '../util/lru.js';
import type { BlockSet } from './blocks.js';
import { BLOCK, BLOCK_PIXELS } from './page.js';

/** The variables a dataset keeps in its series store (config `series.variables`, default all). */
export function seriesVariables(d: Dataset): string[] {
  return [...(d.config.series?.variables ?? Object.keys(d.config.variables))].sort();
}

/** Decoded block values by file identity (device, inode, size, mtime), for one build. */
export class BlockValuesCache {
  private readonly values: AsyncLru<TypedArray>;

  /** `maxBytes`: decoded values held, least recently used dropped first. */
  constructor(maxBytes = 256 * 1024 * 1024) {
    this.values = new AsyncLru<TypedArray>(maxBytes, (v) => v.byteLength);
  }

  /**
   * Every stored block's values of a date's COG, block-set order: block k's stored pixels
   * (row-major) at `set.starts[k]` … `set.starts[k + 1]`, nodata outside the grid.
   * @throws SnowdbError `date-incomplete` when the COG is absent.
   */
  async of(d: Dataset, date: string, variable: string, set: BlockSet): Promise<TypedArray> {
    const path = d.paths.cog(date, variable);
    const s = await stat(path, { bigint: true }).catch(() => null);
    if (s === null) throw dateIncomplete(d.name, date, variable);
    return this.values.get(`${s.dev}:${s.ino}:${s.size}:${s.mtimeNs}`, () =>
      readBlocks(d, path, variable, set),
    );
  }
}

async function readBlocks(d: Dataset, path: string, variable: string, set: BlockSet): Promise<TypedArray> {
  const spec = d.config.variables[variable]!;
  const out = allocate(spec.dtype, set.starts[set.ids.length]!);
  const whole = allocate(spec.dtype, BLOCK_PIXELS); // one block, row-major, before its mask is applied
  const src = new FileSource(path);
  try {
    const cog = await Cog.open(src, new TileCache(512 * 1024 * 1024));
    const { width: W, height: H } = d.grid;
    for (let k = 0; k < set.ids.length; k++) {
      const id = set.ids[k]!;
      const col = (id % set.across) * BLOCK;
      const row = Math.floor(id / set.across) * BLOCK;
      const w = { col, row, width: Math.min(BLOCK, W - col), height: Math.min(BLOCK, H - row) };
      const part = await cog.readWindow(w);
      if (w.width < BLOCK || w.height < BLOCK) whole.fill(spec.nodata);
      for (let r = 0; r < w.height; r++)
        whole.set(part.subarray(r * w.width, (r + 1) * w.width) as never, r * BLOCK);
      const base = set.starts[k]!;
      if (set.counts[k] === BLOCK_PIXELS) {
        out.set(whole as never, base);
        continue;
      }
      const rank = set.rank(k); // pixel → its sample's index, −1 when not stored
      for (let p = 0; p < BLOCK_PIXELS; p++) if (rank[p]! >= 0) out[base + rank[p]!] = whole[p]!;
    }
  } finally {
    await src.close();
  }
  return out;
}
