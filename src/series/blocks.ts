/**
 * The block set of a dataset's series store: every BLOCK × BLOCK grid block holding a pixel of
 * some basin (AOI weight > 0), ids `row × blocksAcross + col`, ascending. A pixel shared by nested
 * basins lies in one block, stored once. File `series/blocks.bin`: "SDBSBL01" · u32 count · ids, in
 * stored order: ascending after a rebuild, blocks added by a later import after them.
 */

import { join } from 'node:path';
import type { Dataset } from '../datasets/registry.js';
import { SnowdbError } from '../errors.js';
import { writeFileAtomic } from '../io/atomic.js';
import { namesIn, readFileIfExists } from '../io/fs.js';
import { FileSource } from '../io/source.js';
import { Cog } from '../raster/cog.reader.js';
import { type Grid, parseWindowTag } from '../raster/grid.js';
import { mapPool } from '../util/pool.js';
import { BLOCK } from './page.js';

const MAGIC = 'SDBSBL01';

export interface BlockSet {
  /** Block ids in stored order (a page's streams follow it). */
  readonly ids: Uint32Array;
  /** FNV-1a of the ids: pages record it, so a page of another block set is never misread. */
  readonly id: number;
  readonly across: number;
  /** Block id → ordinal in `ids` (−1 = not stored), over every block of the grid. */
  readonly ordinal: Int32Array;
}

export const blocksAcross = (g: Grid): number => Math.ceil(g.width / BLOCK);
const blocksDown = (g: Grid): number => Math.ceil(g.height / BLOCK);

/** A block set from its ids (unique). */
export function blockSetOf(g: Grid, ids: Uint32Array): BlockSet {
  let h = 0x811c9dc5;
  for (const v of ids) {
    h ^= v;
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  const ordinal = new Int32Array(blocksAcross(g) * blocksDown(g)).fill(-1);
  ids.forEach((b, k) => {
    ordinal[b] = k;
  });
  return { ids, id: h >>> 0, across: blocksAcross(g), ordinal };
}

/** The blocks under every AOI raster's nonzero weights (reads each AOI raster once). */
export async function basinBlocks(d: Dataset): Promise<Uint32Array> {
  const across = blocksAcross(d.grid);
  const hit = new Uint8Array(across * blocksDown(d.grid));
  const files = (await namesIn(d.store, d.paths.aoiDir)).filter((n) => n.endsWith('.tif'));
  await mapPool(files, 4, async (f) => {
    const src = new FileSource(join(d.paths.aoiDir, f));
    try {
      const cog = await Cog.open(src);
      const w = parseWindowTag(cog.metadata.items.SNOWDB_AOI_WINDOW ?? null);
      if (w === null) throw new SnowdbError('invalid-raster', `${f}: no SNOWDB_AOI_WINDOW tag`);
      const weights = await cog.readWindow({ col: 0, row: 0, width: w.width, height: w.height });
      for (let r = 0; r < w.height; r++)
        for (let c = 0; c < w.width; c++)
          if (weights[r * w.width + c]! > 0)
            hit[Math.floor((w.row + r) / BLOCK) * across + Math.floor((w.col + c) / BLOCK)] = 1;
    } finally {
      await src.close();
    }
  });
  const ids: number[] = [];
  hit.forEach((h, b) => {
    if (h) ids.push(b);
  });
  return Uint32Array.from(ids);
}

export async function readBlockSet(d: Dataset): Promise<BlockSet | null> {
  const b = await readFileIfExists(d.store, d.paths.seriesBlocks);
  if (b === null) return null;
  if (b.length < 12 || b.toString('latin1', 0, 8) !== MAGIC || b.length !== 12 + 4 * b.readUInt32LE(8))
    throw new SnowdbError('invalid-series', `${d.paths.seriesBlocks}: damaged block list`);
  const ids = new Uint32Array(b.readUInt32LE(8));
  for (let i = 0; i < ids.length; i++) ids[i] = b.readUInt32LE(12 + 4 * i);
  return blockSetOf(d.grid, ids);
}

export async function writeBlockSet(d: Dataset, ids: Uint32Array): Promise<void> {
  const b = Buffer.alloc(12 + 4 * ids.length);
  b.write(MAGIC, 0, 'latin1');
  b.writeUInt32LE(ids.length, 8);
  ids.forEach((v, i) => {
    b.writeUInt32LE(v, 12 + 4 * i);
  });
  await writeFileAtomic(d.paths.seriesBlocks, b);
}
