/**
 * Streamed JSON answers (api/json-stream.ts): the pieces join to exactly `JSON.stringify`'s text,
 * whatever the value's shape, and a table answer is cut into many pieces, none of them the whole.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { jsonPieces } from '../../src/api/json-stream.js';
import { TableRows } from '../../src/stats/engine.js';
import { seeded } from '../helpers/raster.js';

describe('streamed JSON', () => {
  it('joins to JSON.stringify’s text on seeded random values and on the odd members it skips or writes as null', () => {
    const rand = seeded(42);
    const any = (depth: number): unknown => {
      const k = Math.floor(rand() * (depth > 3 ? 5 : 8));
      if (k === 0) return Math.round(rand() * 1e6) / 1e3;
      if (k === 1) return rand() < 0.5 ? null : Number.NaN;
      if (k === 2) return `s${Math.floor(rand() * 100)}"\\\n`;
      if (k === 3) return rand() < 0.5;
      if (k === 4) return undefined;
      if (k === 5) return Array.from({ length: Math.floor(rand() * 5) }, () => any(depth + 1));
      if (k === 6)
        return Array.from({ length: 1 + Math.floor(rand() * 4) }, () => ({ a: any(depth + 1), b: 1 }));
      return Object.fromEntries(
        Array.from({ length: Math.floor(rand() * 5) }, (_, i) => [`${i % 2 ? i : `k${i}`}`, any(depth + 1)]),
      );
    };
    for (let n = 0; n < 500; n++) {
      const v = any(0);
      assert.equal([...jsonPieces(v)].join(''), JSON.stringify(v) ?? 'null');
    }
    const odd = {
      f: () => 1,
      u: undefined,
      d: new Date(0),
      inf: Number.POSITIVE_INFINITY,
      arr: [{ x: undefined }, () => 1, undefined],
    };
    assert.equal([...jsonPieces(odd)].join(''), JSON.stringify(odd));
  });

  it('a table’s rows write the text JSON.stringify gives their boxed form: NaN as null, -0, tiny, huge and long decimals', () => {
    const rand = seeded(7);
    const special = [Number.NaN, -0, 0, 1e-7, 1.5e21, -2.5e-320, 1 / 3, 123456789.123, Number.MAX_VALUE];
    const [keys, cells, columns] = [['2024-01-01', '2024-01-02', '2024-01-03'], 5, 4];
    const table = Float64Array.from({ length: keys.length * cells * columns }, (_, i) =>
      i < special.length
        ? special[i]!
        : rand() < 0.2
          ? Number.NaN
          : (rand() - 0.5) * 10 ** Math.floor(rand() * 12 - 4),
    );
    const rows = new TableRows(keys, cells, columns, table);
    const body = { zones: [{ zone: [], area_m2: 1 }], results: rows, links: [] };
    const text = [...jsonPieces(body)].join('');
    assert.equal(text, JSON.stringify({ ...body, results: rows.toJSON() }));
    assert.equal(text, JSON.stringify(body), 'toJSON boxes the same rows');
    assert.equal(
      (JSON.parse(text) as { results: Record<string, unknown[][]> }).results['2024-01-01']![0]![0],
      null,
    );
  });

  it('a table answer goes out date by date: no piece holds more than one date’s rows', () => {
    const rows = Array.from({ length: 2000 }, (_, i) => [i, i / 3, null]);
    const body = {
      zones: Array.from({ length: 2000 }, (_, i) => ({
        zone: [{ kind: 'band', min: i, max: i + 1 }],
        area_m2: i,
      })),
      results: Object.fromEntries(
        Array.from({ length: 30 }, (_, d) => [`2024-01-${String(d + 1).padStart(2, '0')}`, rows]),
      ),
    };
    const pieces = [...jsonPieces(body)];
    assert.equal(pieces.join(''), JSON.stringify(body));
    const day = JSON.stringify(rows).length;
    assert.equal(Math.max(...pieces.map((p) => p.length)), day);
    assert.ok(pieces.length > 2000 + 30, `${pieces.length} pieces`);
  });
});
