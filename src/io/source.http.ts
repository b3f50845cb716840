import { SnowdbError } from '../errors.js';
import { fetchBounded } from './bounded.js';
import { statusError } from './http.js';
import type { Source } from './source.js';

/**
 * A remote raster read with HTTP range requests (a COG on a web server or a public bucket).
 * Every fetch is one `Range: bytes=a-b` GET; a server that ignores ranges is an error, so a
 * whole multi-GB file is never pulled by accident.
 */
export class HttpSource implements Source {
  constructor(readonly url: string) {}

  async fetch(offset: number, length: number): Promise<Uint8Array> {
    // A range answer holds `length` bytes at most; a server sending more is cut off there.
    const { res, read, cancel } = await fetchBounded(
      '',
      this.url,
      { headers: { range: `bytes=${offset}-${offset + length - 1}` } },
      { maxBytes: length, idleMs: 60_000, totalMs: 600_000 },
    );
    if (res.status === 206) return read();
    await cancel();
    if (res.status === 416) return new Uint8Array(0); // the range starts past the end
    if (!res.ok) throw statusError(this.url, res);
    throw new SnowdbError(
      'source-unreachable',
      `${this.url}: HTTP ${res.status} to a range request (the server must support byte ranges)`,
    );
  }

  async close(): Promise<void> {}
}
