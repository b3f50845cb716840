import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { describe, it } from 'node:test';
import { crc32, gunzipSync } from 'node:zlib';
import { COLS, crc32Combine, ROWS, snodasTar } from '../../scripts/demo/snodas.js';
import { fixturePath } from '../helpers/raster.js';

/** The first member of a ustar archive: its name and bytes. */
function firstMember(tar: Buffer): { name: string; data: Buffer } {
  const name = tar.toString('latin1', 0, 100).replace(/\0.*$/s, '');
  const size = Number.parseInt(tar.toString('latin1', 124, 136).replace(/\0.*$/s, ''), 8);
  return { name, data: tar.subarray(512, 512 + size) };
}

describe('demo generators: SNODAS canvases gzipped by row runs', () => {
  it('crc32Combine gives the CRC-32 of the concatenation (empty, short and long parts)', () => {
    for (const [a, b] of [
      [0, 0],
      [0, 7],
      [13, 0],
      [1, 1],
      [1000, 70_001],
      [65_536, 3],
    ] as const) {
      const x = randomBytes(a);
      const y = randomBytes(b);
      assert.equal(crc32Combine(crc32(x), crc32(y), y.length), crc32(Buffer.concat([x, y])), `${a} + ${b}`);
    }
  });

  it('a canvas whose rows change between dates gunzips to exactly its bytes, date after date', async () => {
    const dat = Buffer.alloc(COLS * ROWS * 2);
    dat.fill(0x11, 0, 40 * COLS * 2); // rows 0–39 hold a value of their own, never changed
    const rows = [
      [100, 103],
      [2000, 2001],
    ] as const;
    const zero = new Int16Array(COLS * ROWS);
    const header = fixturePath('snodas/fake_snodas.hdr');
    for (const [date, value] of [
      ['20250101', 1],
      ['20250102', 2],
    ] as const) {
      for (const [r0, r1] of rows) dat.fill(value, r0 * COLS * 2, r1 * COLS * 2);
      const tar = await snodasTar(header, date, (p) =>
        p.variable === 'precip_liquid' ? { dat, rows } : zero,
      );
      const m = firstMember(tar);
      assert.match(m.name, new RegExp(`^us_ssmv01025SlL00T0024TTNATS${date}05DP001\\.dat\\.gz$`));
      // zlib checks the member's CRC-32 and length as it inflates.
      assert.ok(gunzipSync(m.data).equals(dat), date);
    }
  });
});
