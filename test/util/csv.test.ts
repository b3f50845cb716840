/**
 * CSV cells: RFC 4180 quoting, and text a spreadsheet would run as a formula neutralised with a
 * leading ' while numbers (negative, signed, exponent) stay as they are.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { csvField, csvRow } from '../../src/util/csv.js';

describe('CSV cells', () => {
  it('neutralises each formula start in text, quotes where RFC 4180 asks, and leaves numbers', () => {
    const cases: [string, string][] = [
      ['=1+2', "'=1+2"],
      ['+SUM(A1)', "'+SUM(A1)"],
      ['-2+3', "'-2+3"],
      ['@cmd', "'@cmd"],
      ['\tx', "'\tx"],
      ['\rx', `"'\rx"`],
      ['=HYPERLINK("http://x","y")', `"'=HYPERLINK(""http://x"",""y"")"`],
      ['-12.5', '-12.5'],
      ['+3', '+3'],
      ['-1e-7', '-1e-7'],
      ['-.5', '-.5'],
      ['-1000–0 ft', '-1000–0 ft'],
      ['-x', '-x'],
      ["-1+cmd|' /C calc'!A0", "'-1+cmd|' /C calc'!A0"],
      ['-HYPERLINK("http://x")', `"'-HYPERLINK(""http://x"")"`],
      ['a=b', 'a=b'],
      ['Smith Creek, UT', '"Smith Creek, UT"'],
      ['', ''],
    ];
    for (const [v, want] of cases) assert.equal(csvField(v), want, JSON.stringify(v));
    assert.equal(csvRow(['-3', '-x', '@y']), "-3,-x,'@y");
  });
});
