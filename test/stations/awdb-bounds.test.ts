/**
 * AWDB answers are bounded: an endless body is refused once it passes the size bound (the server
 * gets to write little more than the bound, and no retry asks again), a body that drips and stops
 * ends within the idle limit with what came and how long it took, a server that never answers
 * ends within it too, and an answer is read element by element: a bad first station ends the
 * read at once, while the rest would still be coming. A loopback server plays each.
 */
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { SnowdbError } from '../../src/errors.js';
import { AwdbClient } from '../../src/stations/awdb.js';

const MiB = 2 ** 20;

describe('AWDB answers are bounded in size and time', () => {
  let server: Server;
  let url = '';
  let mode: 'endless' | 'announced' | 'drip' | 'silent' | 'bad-first' = 'endless';
  let requests = 0;
  let written = 0;
  before(async () => {
    server = createServer((_req, res) => {
      requests++;
      if (mode === 'silent') return; // headers never come
      if (mode === 'announced') {
        res.writeHead(200, { 'content-type': 'application/json', 'content-length': String(10 * 2 ** 30) });
        res.write('[');
        return;
      }
      res.writeHead(200, { 'content-type': 'application/json' });
      if (mode === 'drip') {
        res.write('[{"stationTriplet":"1"'); // 22 bytes, then nothing
        return;
      }
      if (mode === 'bad-first') {
        // A station whose triplet is a number, then nothing more for as long as the client waits.
        res.write('[{"stationTriplet":1098,"networkCode":"SNTL","latitude":40,"longitude":-111},');
        return;
      }
      // '[' then a station's worth of JSON again and again, as fast as the client reads.
      const chunk = Buffer.from(
        `${'{"stationTriplet":"1098:UT:SNTL","networkCode":"SNTL","latitude":40.5,"longitude":-111.6},'.repeat(800)}`,
      );
      res.write('[');
      const pump = () => {
        while (!res.destroyed && res.write(chunk)) written += chunk.length;
        if (!res.destroyed) res.once('drain', pump);
      };
      res.on('close', () => res.removeAllListeners('drain'));
      pump();
    });
    await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  after(() => {
    server.closeAllConnections();
    return new Promise<void>((ok) => server.close(() => ok()));
  });
  const client = (idleMs: number) =>
    new AwdbClient({
      url,
      retries: 3,
      backoffMs: 1,
      minIntervalMs: 0,
      bounds: { maxBytes: 4 * MiB, idleMs, totalMs: 60_000 },
    });
  const stations = (c: AwdbClient) => c.stations(['*:UT:SNTL']);

  it('refuses an endless body past its bound, once, without retrying', async () => {
    mode = 'endless';
    requests = 0;
    written = 0;
    await assert.rejects(stations(client(5000)), (e: unknown) => {
      assert.ok(SnowdbError.is(e));
      assert.equal(e.key, 'source-too-large');
      assert.match(
        e.message,
        /^AWDB sent over 4(\.\d)? MiB to http:\/\/127\.0\.0\.1:\d+\/services\/v1\/stations\?.* an answer may hold at most 4 MiB$/,
      );
      return true;
    });
    assert.equal(requests, 1, 'a body too large is not asked for again');
    // The client stopped reading at the bound: the server wrote at most the bound and the socket buffers.
    await new Promise((ok) => setTimeout(ok, 100));
    assert.ok(written < 4 * MiB + 8 * MiB, `${written} bytes written`);
  });

  it('refuses a body announced larger than the bound before reading it', async () => {
    mode = 'announced';
    requests = 0;
    await assert.rejects(
      stations(client(5000)),
      /AWDB announced 10240 MiB to .*; an answer may hold at most 4 MiB/,
    );
    assert.equal(requests, 1);
  });

  it('gives up on a body that drips and stops, saying what came in how long', async () => {
    mode = 'drip';
    requests = 0;
    const t0 = Date.now();
    await assert.rejects(stations(client(300)), (e: unknown) => {
      assert.ok(SnowdbError.is(e));
      assert.equal(e.key, 'source-unreachable');
      assert.match(
        e.message,
        /^AWDB sent 22 bytes in 0\.\d s, then nothing for 0\.3 s: gave up on http:\/\/127\.0\.0\.1:\d+\/services\/v1\/stations\?/,
      );
      return true;
    });
    assert.equal(requests, 4, 'a stall is retried: 1 + 3 retries');
    assert.ok(Date.now() - t0 < 10_000);
  });

  it('refuses a bad first station as soon as it arrives, not when the body ends', async () => {
    mode = 'bad-first';
    requests = 0;
    const t0 = Date.now();
    await assert.rejects(stations(client(20_000)), (e: unknown) => {
      assert.ok(SnowdbError.is(e));
      assert.equal(e.key, 'source-bad-answer');
      assert.match(e.message, /^AWDB answer to .* is not the documented shape at 0\.stationTriplet: /);
      return true;
    });
    assert.equal(requests, 1, 'a wrong shape is not asked for again');
    // The whole body would take the 20 s idle limit; element by element it ends on the first.
    assert.ok(Date.now() - t0 < 10_000, `${Date.now() - t0} ms`);
  });

  it('gives up on a server that never answers within the idle limit', async () => {
    mode = 'silent';
    requests = 0;
    await assert.rejects(
      stations(client(200)),
      /^SnowdbError: AWDB sent 0 bytes in 0\.\d s, then nothing for 0\.2 s/,
    );
    assert.equal(requests, 4);
  });
});
