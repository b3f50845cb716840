import { SnowdbError } from '../errors.js';
import { bodyBytes, httpGet } from './http.js';
import type { Source } from './source.js';

/**
 * A remote raster read with HTTP range requests (a COG on a web server or a public bucket).
 * Every fetch is one `Range: bytes=a-b` GET; a server that ignores ranges is an error, so a
 * whole multi-GB file is never pulled by accident.
 */
export class HttpSource implements Source {
  constructor(readonly url: string) {}

  async fetch(offset: number, length: number): Promise<Uint8Array> {
    const res = await httpGet(this.url, { range: `bytes=${offset}-${offset + length - 1}` }, [416]);
    if (res.status === 206) return bodyBytes(this.url, res);
    await res.body?.cancel();
    if (res.status === 416) return new Uint8Array(0); // the range starts past the end
    throw new SnowdbError(
      'source-unreachable',
      `${this.url}: HTTP ${res.status} to a range request (the server must support byte ranges)`,
    );
  }

  async close(): Promise<void> {}
}
