/**
 * The block set of a dataset's series store: every BLOCK × BLOCK grid block holding a pixel of
 * some basin (AOI weight > 0), ids `row × blocksAcross + col`, and per block the mask of those
 * pixels: a page stores only them (a block's samples per date are its mask's pixels, row-major).
 * A pixel shared by nested basins is stored once.
 *
 * File `series/blocks.bin` (little-endian): "SDBSBL02" · u32 count · count × u32 id · count ×
 * MASK_BYTES mask (bit p % 8 of byte p >> 3: pixel p = row × BLOCK + column), in stored order:
 * ascending after a rebuild, blocks added by a later import after them. "SDBSBL01" (older
 * releases: ids only) is read as every mask full, which is what its pages hold.
 */

import { join } from 'node:path';
import { indexedWeightsOf, readCoverageIndex, sparseOf } from '../datasets/coverage-index.js';
import type { Dataset } from '../datasets/registry.js';
import { stemOf } from '../db/layout.js';
import { SnowdbError } from '../errors.js';
import { writeFileAtomic } from '../io/atomic.js';
import { namesIn, readFileIfExists } from '../io/fs.js';
import { FileSource } from '../io/source.js';
import { Cog } from '../raster/cog.reader.js';
import { type Grid, parseWindowTag, type Window } from '../raster/grid.js';
import { mapPool } from '../util/pool.js';
import { BLOCK, BLOCK_PIXELS } from './page.js';

const MAGIC = 'SDBSBL02';
const MAGIC_V1 = 'SDBSBL01';
/** Bytes of one block's pixel mask (one bit per pixel). */
export const MASK_BYTES = BLOCK_PIXELS / 8;

export interface BlockSet {
  /** Block ids in stored order (a page's streams follow it). */
  readonly ids: Uint32Array;
  /** Per stored block, MASK_BYTES of pixel bits: the pixels its streams hold. */
  readonly masks: Uint8Array;
  /** Per stored block, samples per date (its mask's pixels, 1 … BLOCK_PIXELS). */
  readonly counts: Uint16Array;
  /** Per stored block, where its samples start in a date's values of every block (Σ earlier counts); one more: the total. */
  readonly starts: Uint32Array;
  /** FNV-1a of the ids (and of the masks unless every one is full): pages record it, so a page of another block set is never misread. */
  readonly id: number;
  readonly across: number;
  /** Block id → ordinal in `ids` (−1 = not stored), over every block of the grid. */
  readonly ordinal: Int32Array;
  /** Block k's pixel → its sample's index in the block's date (−1: not stored); built on first use. */
  rank(k: number): Int16Array;
}

export const blocksAcross = (g: Grid): number => Math.ceil(g.width / BLOCK);
const blocksDown = (g: Grid): number => Math.ceil(g.height / BLOCK);

/** Pixel p of mask bytes `m` (one block's) is set. */
export const maskHas = (m: Uint8Array, p: number): boolean => ((m[p >> 3]! >> (p & 7)) & 1) === 1;

/** Masks of `n` blocks with every pixel set. */
export const fullMasks = (n: number): Uint8Array => new Uint8Array(n * MASK_BYTES).fill(0xff);

/** Set bits of each byte value. */
export const BITS = Uint8Array.from({ length: 256 }, (_, v) => {
  let n = 0;
  for (let b = v; b > 0; b >>= 1) n += b & 1;
  return n;
});

function fnv(h: number, words: Uint32Array): number {
  for (const v of words) {
    h ^= v;
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h;
}

/** A block set from its ids (unique) and their masks (every pixel stored when omitted). */
export function blockSetOf(g: Grid, ids: Uint32Array, masks: Uint8Array = fullMasks(ids.length)): BlockSet {
  if (masks.length !== ids.length * MASK_BYTES) throw new Error('one mask per block');
  const counts = new Uint16Array(ids.length);
  const starts = new Uint32Array(ids.length + 1);
  let full = true;
  for (let k = 0; k < ids.length; k++) {
    let n = 0;
    for (let x = k * MASK_BYTES; x < (k + 1) * MASK_BYTES; x++) n += BITS[masks[x]!]!;
    if (n === 0) throw new Error(`block ${ids[k]} stores no pixel`);
    counts[k] = n;
    starts[k + 1] = starts[k]! + n;
    full &&= n === BLOCK_PIXELS;
  }
  let h = fnv(0x811c9dc5, ids);
  // Full masks hash as the ids alone: the id an older (ids-only) block list gave the same layout.
  if (!full) h = fnv(h, new Uint32Array(masks.slice().buffer));
  const ordinal = new Int32Array(blocksAcross(g) * blocksDown(g)).fill(-1);
  ids.forEach((b, k) => {
    ordinal[b] = k;
  });
  const ranks = new Map<number, Int16Array>();
  const rank = (k: number): Int16Array => {
    let r = ranks.get(k);
    if (r === undefined) {
      r = new Int16Array(BLOCK_PIXELS).fill(-1);
      const m = masks.subarray(k * MASK_BYTES, (k + 1) * MASK_BYTES);
      for (let p = 0, n = 0; p < BLOCK_PIXELS; p++) if (maskHas(m, p)) r[p] = n++;
      ranks.set(k, r);
    }
    return r;
  };
  return { ids, masks, counts, starts, id: h >>> 0, across: blocksAcross(g), ordinal, rank };
}

/** Blocks holding some basin's pixels: ids ascending and their masks (MASK_BYTES each). */
export interface BasinBlocks {
  readonly ids: Uint32Array;
  readonly masks: Uint8Array;
}

/**
 * The blocks and pixels under every AOI raster's nonzero weights: from the coverage index for the
 * basins it holds at the AOI hash `current` names (triplet → hash of a current raster), else
 * from each AOI raster. An unreadable AOI raster is an error, or with `skipUnreadable` left out
 * (an inspection: its basin is reported by the AOI checks).
 */
export async function basinBlocks(
  d: Dataset,
  current?: ReadonlyMap<string, string>,
  skipUnreadable = false,
): Promise<BasinBlocks> {
  const across = blocksAcross(d.grid);
  const bits = new Map<number, Uint8Array>(); // block id → mask
  const mark = (w: Window, at: (k: number) => number, n: number) => {
    for (let k = 0; k < n; k++) {
      const a = at(k);
      const gr = w.row + Math.floor(a / w.width);
      const gc = w.col + (a % w.width);
      const id = Math.floor(gr / BLOCK) * across + Math.floor(gc / BLOCK);
      let m = bits.get(id);
      if (m === undefined) {
        m = new Uint8Array(MASK_BYTES);
        bits.set(id, m);
      }
      const p = (gr % BLOCK) * BLOCK + (gc % BLOCK);
      m[p >> 3]! |= 1 << (p & 7);
    }
  };
  const files = (await namesIn(d.store, d.paths.aoiDir)).filter((n) => n.endsWith('.tif'));
  // Basins the coverage index holds at their current AOI hash: their pixels from it, in one read.
  const index = current ? await readCoverageIndex(d.store, d.paths.coverageIndex).catch(() => null) : null;
  const fromIndex = new Set<string>();
  if (index && current) {
    const present = new Set(files);
    const held = [...index.basins].flatMap(([t, b]) => {
      const f = `${stemOf(t)}.tif`;
      return present.has(f) && current.get(t) === b.aoiHash ? [[f, b] as const] : [];
    });
    const weights = await indexedWeightsOf(
      d.store,
      index,
      held.map(([, b]) => b),
    ).catch(() => null);
    if (weights)
      held.forEach(([f], i) => {
        const w = weights[i]!;
        mark(w.window, (k) => w.at[k]!, w.at.length);
        fromIndex.add(f);
      });
  }
  await mapPool(
    files.filter((f) => !fromIndex.has(f)),
    4,
    async (f) => {
      const src = new FileSource(join(d.paths.aoiDir, f));
      try {
        const cog = await Cog.open(src);
        const w = parseWindowTag(cog.metadata.items.SNOWDB_AOI_WINDOW ?? null);
        if (w === null) throw new SnowdbError('invalid-raster', `${f}: no SNOWDB_AOI_WINDOW tag`);
        const { at } = sparseOf(
          await cog.readWindow({ col: 0, row: 0, width: w.width, height: w.height }),
          w,
        );
        mark(w, (k) => at[k]!, at.length);
      } catch (e) {
        if (!(skipUnreadable && SnowdbError.is(e) && e.key === 'invalid-raster')) throw e;
      } finally {
        await src.close();
      }
    },
  );
  const ids = Uint32Array.from([...bits.keys()].sort((a, b) => a - b));
  const masks = new Uint8Array(ids.length * MASK_BYTES);
  ids.forEach((id, k) => {
    masks.set(bits.get(id)!, k * MASK_BYTES);
  });
  return { ids, masks };
}

export async function readBlockSet(d: Dataset): Promise<BlockSet | null> {
  const b = await readFileIfExists(d.store, d.paths.seriesBlocks);
  if (b === null) return null;
  const magic = b.length < 12 ? '' : b.toString('latin1', 0, 8);
  const n = b.length < 12 ? 0 : b.readUInt32LE(8);
  const masked = magic === MAGIC;
  if ((!masked && magic !== MAGIC_V1) || b.length !== 12 + (masked ? 4 + MASK_BYTES : 4) * n)
    throw new SnowdbError('invalid-series', `${d.paths.seriesBlocks}: damaged block list`);
  const ids = new Uint32Array(n);
  for (let i = 0; i < n; i++) ids[i] = b.readUInt32LE(12 + 4 * i);
  const masks = masked ? Uint8Array.from(b.subarray(12 + 4 * n)) : fullMasks(n);
  try {
    return blockSetOf(d.grid, ids, masks);
  } catch {
    throw new SnowdbError('invalid-series', `${d.paths.seriesBlocks}: damaged block list`);
  }
}

export async function writeBlockSet(d: Dataset, set: Pick<BlockSet, 'ids' | 'masks'>): Promise<void> {
  const n = set.ids.length;
  const b = Buffer.alloc(12 + (4 + MASK_BYTES) * n);
  b.write(MAGIC, 0, 'latin1');
  b.writeUInt32LE(n, 8);
  set.ids.forEach((v, i) => {
    b.writeUInt32LE(v, 12 + 4 * i);
  });
  b.set(set.masks, 12 + 4 * n);
  await writeFileAtomic(d.paths.seriesBlocks, b);
}

/**
 * `old` grown to hold `want`: old blocks keep their ordinals, their masks OR-ed with the wanted
 * pixels; new blocks follow, ascending. `grown[k]`: old block k's mask gained pixels (its streams
 * must be read again from the COGs).
 */
export function grownBlockSet(
  g: Grid,
  old: BlockSet,
  want: BasinBlocks,
): { set: BlockSet; grown: Uint8Array } {
  const n = old.ids.length;
  const added = [...want.ids.keys()].filter((i) => (old.ordinal[want.ids[i]!] ?? -1) < 0); // ascending ids
  const ids = Uint32Array.from([...old.ids, ...added.map((i) => want.ids[i]!)]);
  const masks = new Uint8Array(ids.length * MASK_BYTES);
  masks.set(old.masks);
  added.forEach((i, a) => {
    masks.set(want.masks.subarray(i * MASK_BYTES, (i + 1) * MASK_BYTES), (n + a) * MASK_BYTES);
  });
  const grown = new Uint8Array(n);
  want.ids.forEach((id, i) => {
    const k = old.ordinal[id] ?? -1;
    for (let x = 0; k >= 0 && x < MASK_BYTES; x++) {
      const was = masks[k * MASK_BYTES + x]!;
      const now = was | want.masks[i * MASK_BYTES + x]!;
      masks[k * MASK_BYTES + x] = now;
      if (now !== was) grown[k] = 1;
    }
  });
  const same = added.length === 0 && !grown.includes(1);
  return { set: same ? old : blockSetOf(g, ids, masks), grown };
}
