/**
 * Slicers take turns: however many yield at once, one slice runs per turn of the event loop, so
 * I/O gets a turn between any two slices; each slicer keeps its place (first come, first served).
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Slicer } from '../../src/util/slices.js';

describe('Slicer', () => {
  it('five slicers yielding at once: one slice per turn of the loop, in turn order', async () => {
    // A probe that counts turns of the loop: it runs once a turn (setImmediate re-armed each time).
    let turns = 0;
    let probing = true;
    const probe = () => {
      turns++;
      if (probing) setImmediate(probe);
    };
    setImmediate(probe);
    const starts: { slicer: number; turn: number }[] = [];
    await Promise.all(
      [0, 1, 2, 3, 4].map(async (n) => {
        const s = new Slicer();
        for (let k = 0; k < 3; k++) {
          await s.yieldTurn();
          starts.push({ slicer: n, turn: turns });
        }
      }),
    );
    probing = false;
    assert.equal(starts.length, 15);
    // No two slices in one turn: every slice saw another turn count.
    assert.equal(new Set(starts.map((s) => s.turn)).size, 15, JSON.stringify(starts));
    // Round robin: 0 1 2 3 4 0 1 2 3 4 …
    assert.deepEqual(
      starts.map((s) => s.slicer),
      [0, 1, 2, 3, 4, 0, 1, 2, 3, 4, 0, 1, 2, 3, 4],
    );
  });

  it('an aborted slicer stops at its next turn; the others go on', async () => {
    const ac = new AbortController();
    const a = new Slicer(ac.signal);
    const b = new Slicer();
    ac.abort(new Error('client gone'));
    await assert.rejects(a.yieldTurn(), /client gone/);
    await b.yieldTurn();
  });
});
