/**
 * inflateInto writes a whole stream into the caller's buffer: exact fits, room to spare, streams
 * past the buffer, truncated and corrupt streams, each framing; the handle path and the public-API
 * path give the same answers, and the handle path touches no page but the caller's.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { deflateRawSync, deflateSync, gzipSync } from 'node:zlib';
import { type Framing, InflateError, inflateInto, inflateIntoPortable } from '../../src/util/inflate.js';

/** 1,000 bytes that repeat only every 251 (not one run: zlib must copy real matches). */
const DATA = Buffer.from(Array.from({ length: 1000 }, (_, i) => (i * 7) % 251));
const FRAMED: Record<Framing, Buffer> = {
  gzip: gzipSync(DATA),
  zlib: deflateSync(DATA),
  raw: deflateRawSync(DATA),
};

/** What a call gives: `ok <bytes>` (the bytes checked against DATA) or the error's reason. */
function outcome(fn: typeof inflateInto, framing: Framing, src: Uint8Array, room: number): string {
  const out = Buffer.alloc(room, 0xee);
  try {
    const n = fn(framing, src, out);
    assert.ok(out.subarray(0, n).equals(DATA.subarray(0, n)), 'the bytes written are the data');
    assert.ok(
      out.subarray(n).every((b) => b === 0xee),
      'nothing written past them',
    );
    return `ok ${n}`;
  } catch (e) {
    assert.ok(e instanceof InflateError, String(e));
    assert.ok(out.subarray(room).length === 0);
    return e.reason;
  }
}

describe('inflateInto', () => {
  for (const fn of [inflateInto, inflateIntoPortable]) {
    it(`${fn.name}: every framing, exact and roomy buffers, overflow, truncation, corruption`, () => {
      for (const framing of ['gzip', 'zlib', 'raw'] as const) {
        const z = FRAMED[framing];
        assert.equal(outcome(fn, framing, z, 1000), 'ok 1000', framing);
        assert.equal(outcome(fn, framing, z, 4096), 'ok 1000', framing);
        assert.equal(outcome(fn, framing, z, 999), 'overflow', framing);
        assert.equal(outcome(fn, framing, z, 1), 'overflow', framing);
        assert.equal(
          outcome(fn, framing, z.subarray(0, z.length >> 1), 4096),
          'corrupt',
          `${framing} cut in half`,
        );
        assert.equal(outcome(fn, framing, Buffer.alloc(0), 16), 'corrupt', `${framing} empty`);
      }
      // gzip: a trailer cut off (all data there, the check missing), a flipped CRC, not gzip at all.
      const g = FRAMED.gzip;
      assert.equal(outcome(fn, 'gzip', g.subarray(0, g.length - 4), 1000), 'corrupt');
      const crc = Buffer.from(g);
      crc[crc.length - 6]! ^= 0xff;
      assert.equal(outcome(fn, 'gzip', crc, 1000), 'corrupt');
      assert.equal(outcome(fn, 'gzip', Buffer.from('plain text'), 100), 'corrupt');
      // Two members, as gzip allows: both inflate.
      const two = Buffer.concat([gzipSync(DATA.subarray(0, 400)), gzipSync(DATA.subarray(400))]);
      assert.equal(outcome(fn, 'gzip', two, 1000), 'ok 1000');
    });
  }

  it('one stream per framing is kept and reset: after every outcome the next stream inflates as a fresh one', () => {
    const other = Buffer.from(Array.from({ length: 700 }, (_, i) => (i * 13) % 239));
    const pack = { gzip: gzipSync, zlib: deflateSync, raw: deflateRawSync } as const;
    for (const framing of ['gzip', 'zlib', 'raw'] as const) {
      const z = FRAMED[framing];
      const o = pack[framing](other);
      // [stream, room, what it holds or the error]: successes, an overflow and a corrupt stream, interleaved.
      const steps: [Uint8Array, number, Buffer | string][] = [
        [z, 1000, DATA],
        [o, 700, other],
        [z, 999, 'overflow'],
        [o, 4096, other],
        [z.subarray(0, z.length >> 1), 4096, 'corrupt'],
        [z, 1000, DATA],
        [o, 700, other],
      ];
      for (const [src, room, want] of [...steps, ...steps]) {
        const out = Buffer.alloc(room);
        let got: Buffer | string;
        try {
          got = out.subarray(0, inflateInto(framing, src, out));
        } catch (e) {
          got = (e as InflateError).reason;
        }
        assert.deepEqual(got, want, framing);
      }
    }
  });

  it('the handle path writes into the given buffer alone: a 46 MB grid faults in no page of zlib’s', () => {
    const grid = Buffer.alloc(46_476_370, 0x2a);
    const z = gzipSync(grid, { level: 1 });
    const out = Buffer.allocUnsafeSlow(grid.length);
    out.fill(0); // first touch here, before counting
    const before = process.resourceUsage().minorPageFault;
    assert.equal(inflateInto('gzip', z, out), grid.length);
    const faults = process.resourceUsage().minorPageFault - before;
    // A fresh 46 MB output is 11,347 pages of 4 kB; zlib's own state is a few dozen.
    assert.ok(faults < 1000, `${faults} page faults`);
    assert.ok(out.equals(grid));
  });
});
