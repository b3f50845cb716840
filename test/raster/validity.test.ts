/**
 * Polygon validity (raster/validity.ts): crossings found wherever they are (the grid bucketing
 * misses none), touching is not crossing, areas and antimeridian jumps.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { antimeridianJump, firstCrossing, polygonArea } from '../../src/raster/validity.js';

/** A closed ring of `n` vertices on a circle of radius `r` about (x, y), counter-clockwise. */
const circle = (n: number, r: number, x = -112, y = 40): number[][] => {
  const pts = Array.from({ length: n }, (_, k) => [
    x + r * Math.cos((2 * Math.PI * k) / n),
    y + r * Math.sin((2 * Math.PI * k) / n),
  ]);
  return [...pts, pts[0]!];
};

describe('polygon validity', () => {
  it('a 20,000-vertex circle has no crossing; swapping two far-apart vertices makes crossings, found', () => {
    const ring = circle(20_000, 0.5);
    assert.equal(firstCrossing([ring]), null);
    const r = Math.PI * 0.25; // the planar area of a radius-0.5 circle, degrees²
    assert.ok(Math.abs(polygonArea([ring]) - r) < 1e-6 * r);
    for (const [i, j] of [
      [10, 11],
      [3, 15_000],
    ] as const) {
      const bad = ring.map((p) => [...p]);
      [bad[i], bad[j]] = [bad[j]!, bad[i]!];
      const x = firstCrossing([bad]);
      assert.ok(x !== null, `swap ${i}, ${j}`);
      assert.equal(x.a.ring, 0);
    }
  });

  it('a hole crossing its shell is named by ring; a ring touching itself at a vertex is not a crossing', () => {
    const shell = [
      [0, 0],
      [4, 0],
      [4, 4],
      [0, 4],
      [0, 0],
    ];
    const hole = [
      [3, 1],
      [5, 1],
      [5, 2],
      [3, 2],
      [3, 1],
    ];
    const x = firstCrossing([shell, hole])!;
    assert.deepEqual([x.a.ring, x.b.ring].sort(), [0, 1]);
    assert.equal(x.at[0], 4);
    // A figure-eight whose lobes meet at (2, 2): a touch at a vertex, accepted (OGR calls it invalid; coverage copes).
    const eight = [
      [0, 0],
      [2, 2],
      [4, 0],
      [4, 4],
      [2, 2],
      [0, 4],
      [0, 0],
    ];
    assert.equal(firstCrossing([eight]), null);
    assert.equal(
      polygonArea([
        [
          [0, 0],
          [1, 1],
          [2, 2],
          [0, 0],
        ],
      ]),
      0,
    );
  });

  it('an edge spanning more than 180° of longitude is an antimeridian jump; a wide edge short of it is not', () => {
    assert.deepEqual(
      antimeridianJump([
        [179.5, 50],
        [-179.5, 50],
        [-179.5, 51],
        [179.5, 50],
      ]),
      {
        edge: 0,
        from: 179.5,
        to: -179.5,
      },
    );
    assert.equal(
      antimeridianJump([
        [-170, 50],
        [9, 50],
        [9, 51],
        [-170, 50],
      ]),
      null,
    );
  });
});
