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

  it('finds a crossing exactly when an all-pairs search does, long edges included', () => {
    // All pairs, the definition itself: ends strictly on both sides of each other's line.
    const side = (a: number[], b: number[], c: number[]) =>
      Math.sign((b[0]! - a[0]!) * (c[1]! - a[1]!) - (b[1]! - a[1]!) * (c[0]! - a[0]!));
    const allPairs = (poly: number[][][]): boolean => {
      const edges = poly.flatMap((ring) => ring.slice(0, -1).map((p, k) => [p, ring[k + 1]!] as const));
      return edges.some(([a, b], i) =>
        edges
          .slice(i + 1)
          .some(([c, d]) => side(a, b, c) * side(a, b, d) < 0 && side(c, d, a) * side(c, d, b) < 0),
      );
    };
    let seed = 7;
    const rand = () => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed / 2 ** 31;
    };
    let crossed = 0;
    for (let trial = 0; trial < 300; trial++) {
      // A wiggly star (a simple ring) with a few vertices then moved at random: crossings or not.
      const n = 8 + Math.floor(rand() * 120);
      const ring = Array.from({ length: n }, (_, k) => {
        const r = 0.5 + 0.4 * rand();
        return [r * Math.cos((2 * Math.PI * k) / n), r * Math.sin((2 * Math.PI * k) / n)];
      });
      for (let moves = Math.floor(rand() * 3); moves > 0; moves--) {
        ring[Math.floor(rand() * n)] = [2 * rand() - 1, 2 * rand() - 1];
      }
      // Half the trials: a long chord replaces an arc (one edge far longer than the rest).
      const shape = trial % 2 === 0 ? ring : ring.filter((_, k) => k < 2 || k > n / 2);
      const poly = [[...shape, shape[0]!]];
      const want = allPairs(poly);
      crossed += want ? 1 : 0;
      assert.equal(firstCrossing(poly) !== null, want, `trial ${trial}`);
    }
    assert.ok(crossed > 30 && crossed < 270, `both outcomes tried (${crossed} of 300 crossed)`);
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
