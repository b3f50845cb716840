/**
 * The JSON array splitter hands on the same values as JSON.parse of the whole text, wherever the
 * chunks break (every byte position, and byte by byte: inside multi-byte UTF-8, escapes, strings
 * holding brackets and commas), and names what is wrong with a body that is not a JSON array.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { JsonArrayError, JsonArraySplitter } from '../../src/io/json-array.js';

/** The elements of `chunks` fed in order. */
function split(chunks: readonly Uint8Array[]): unknown[] {
  const out: unknown[] = [];
  const s = new JsonArraySplitter((v, i) => {
    assert.equal(i, out.length);
    out.push(v);
  });
  for (const c of chunks) s.push(c);
  s.end();
  return out;
}

const TEXT = ` [ {"a":"x],{\\"}\\\\","b":[1,[2,{"c":null}]]}, 12.5e1 ,"é😀,]", true,false,null,-0.5,[],{},
  {"name":"Ben Lomond Peak \\u00e9","v":[{"date":"2025-01-01","value":10.5}]} ] `;

describe('a JSON array read element by element', () => {
  const bytes = new TextEncoder().encode(TEXT);
  const want = JSON.parse(TEXT) as unknown[];

  it('gives what JSON.parse gives, wherever the chunks break', () => {
    assert.equal(want.length, 10);
    assert.deepEqual(split([bytes]), want);
    for (let at = 0; at <= bytes.length; at++)
      assert.deepEqual(split([bytes.subarray(0, at), bytes.subarray(at)]), want, `break at byte ${at}`);
    assert.deepEqual(split([...bytes].map((b) => Uint8Array.of(b))), want);
    assert.deepEqual(split([new TextEncoder().encode('[]')]), []);
    assert.deepEqual(split([new TextEncoder().encode('[7]')]), [7]);
  });

  it('names what is wrong with a body that is not a JSON array', () => {
    const bad: [string, RegExp, boolean][] = [
      ['<html>', /is not a JSON array \(opens with "<"\)/, false],
      ['{"stations":[]}', /is not a JSON array \(opens with "\{"\)/, true],
      ['[1,,2]', /has , where an element should be at byte 3/, false],
      ['[1,2,]', /has \] where an element should be at byte 5/, false],
      ['[,1]', /has , where an element should be at byte 1/, false],
      ['[{"a":1} {"b":2}]', /has \{ where , or \] should be at byte 9/, false],
      ['[1] x', /goes on after its closing \] at byte 4/, false],
      ['[{"a":1},{"b":', /ended after 14 bytes inside the array \(element 1\)/, false],
      ['', /ended after 0 bytes before any \[/, false],
      ['[{"a":tru}]', /element 0 is not JSON/, false],
      ['[nul,1]', /element 0 is not JSON/, false],
    ];
    for (const [text, message, otherJson] of bad)
      assert.throws(
        () => split([new TextEncoder().encode(text)]),
        (e: unknown) => {
          assert.ok(e instanceof JsonArrayError, text);
          assert.match(e.message, message, text);
          assert.equal(e.otherJson, otherJson, text);
          return true;
        },
      );
    // Bytes that are not UTF-8 inside an element.
    assert.throws(() => split([Uint8Array.of(0x5b, 0x22, 0xff, 0x22, 0x5d)]), /element 0 is not JSON/);
  });

  it('stops at the element its consumer refuses, before the rest arrives', () => {
    const seen: unknown[] = [];
    const s = new JsonArraySplitter((v) => {
      seen.push(v);
      if (seen.length === 2) throw new Error('refused');
    });
    assert.throws(() => s.push(new TextEncoder().encode('[{"a":1},{"a":2},{"a":3}')), /refused/);
    assert.deepEqual(seen, [{ a: 1 }, { a: 2 }]);
  });
});
