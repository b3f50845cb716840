import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { renderJson } from '../../src/cli/json.js';
import { colourWanted, renderTable } from '../../src/cli/output.js';

describe('output conventions', () => {
  it('colour only on a terminal and never with NO_COLOR or TERM=dumb', () => {
    assert.equal(colourWanted(true, {}), true);
    assert.equal(colourWanted(false, {}), false);
    assert.equal(colourWanted(true, { NO_COLOR: '' }), false);
    assert.equal(colourWanted(true, { NO_COLOR: '1' }), false);
    assert.equal(colourWanted(true, { TERM: 'dumb' }), false);
  });

  it('JSON is minified when piped and indented 2 on a terminal', () => {
    assert.equal(renderJson({ a: [1, null] }, false), '{"a":[1,null]}');
    assert.equal(renderJson({ a: 1 }, true), '{\n  "a": 1\n}');
  });

  it('tables pad columns to the widest cell', () => {
    assert.equal(renderTable(['a', 'bb'], [['xyz', '1']]), 'a    bb\nxyz  1');
  });
});
