import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Grid } from '../../src/raster/grid.js';
import { blockSetOf, fullMasks, grownBlockSet, MASK_BYTES, maskHas } from '../../src/series/blocks.js';

/** A 3 × 2-block grid (only its size matters to a block set). */
const GRID = { width: 96, height: 64 } as Grid;

/** One block's mask holding pixels `ps` (row × 32 + column). */
function mask(...ps: number[]): Uint8Array {
  const m = new Uint8Array(MASK_BYTES);
  for (const p of ps) m[p >> 3]! |= 1 << (p & 7);
  return m;
}
const join = (...ms: Uint8Array[]) => Uint8Array.from(ms.flatMap((m) => [...m]));

describe('series block set: masks, counts, ranks', () => {
  it('counts, starts and ranks follow the masks, row-major inside a block', () => {
    const set = blockSetOf(GRID, Uint32Array.from([1, 4]), join(mask(0, 33, 1023), mask(5)));
    assert.deepEqual([...set.counts], [3, 1]);
    assert.deepEqual([...set.starts], [0, 3, 4]);
    assert.deepEqual([...set.ordinal], [-1, 0, -1, -1, 1, -1]);
    const r = set.rank(0);
    assert.deepEqual([r[0], r[1], r[33], r[1023], r[32]], [0, -1, 1, 2, -1]);
    assert.equal(set.rank(1)[5], 0);
    assert.ok(maskHas(set.masks, 33) && !maskHas(set.masks, 34));
  });

  it('full masks hash as the ids alone (an older block list’s id); any partial mask changes the id', () => {
    const ids = Uint32Array.from([0, 2, 5]);
    const whole = blockSetOf(GRID, ids);
    assert.deepEqual([...new Set(whole.counts)], [1024]);
    // FNV-1a over the ids, as release SDBSBL01 computed it.
    let h = 0x811c9dc5;
    for (const v of ids) h = Math.imul(h ^ v, 0x01000193) >>> 0;
    assert.equal(whole.id, h);
    assert.equal(blockSetOf(GRID, ids, fullMasks(3)).id, h);
    const part = fullMasks(3);
    part[MASK_BYTES + 7] = 0x7f; // one pixel fewer in the second block
    const masked = blockSetOf(GRID, ids, part);
    assert.notEqual(masked.id, h);
    assert.deepEqual([...masked.counts], [1024, 1023, 1024]);
    assert.throws(() => blockSetOf(GRID, ids, join(mask(1), mask(), mask(2))), /stores no pixel/);
  });

  it('an import grows masks in place and adds new blocks after the old ones', () => {
    const old = blockSetOf(GRID, Uint32Array.from([3, 1]), join(mask(0, 1), mask(7)));
    // Block 1 gains pixel 8, block 3 gains nothing new, block 0 and block 5 are new.
    const want = { ids: Uint32Array.from([0, 1, 3, 5]), masks: join(mask(2), mask(7, 8), mask(1), mask(9)) };
    const { set, grown } = grownBlockSet(GRID, old, want);
    assert.deepEqual([...set.ids], [3, 1, 0, 5]);
    assert.deepEqual([...grown], [0, 1]);
    assert.deepEqual([...set.counts], [2, 2, 1, 1]);
    assert.deepEqual([...set.masks.subarray(0, MASK_BYTES)], [...mask(0, 1)]);
    assert.deepEqual([...set.masks.subarray(MASK_BYTES, 2 * MASK_BYTES)], [...mask(7, 8)]);
    // Nothing new: the same set.
    const again = grownBlockSet(GRID, set, want);
    assert.equal(again.set, set);
    assert.deepEqual([...again.grown], [0, 0, 0, 0]);
  });
});
