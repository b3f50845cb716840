import { SnowdbError } from '../errors.js';
import type { Source } from './source.js';

/** Per-request timeout, ms. */
const TIMEOUT_MS = 120_000;

/**
 * A remote raster read with HTTP range requests (a COG on a web server or a public bucket).
 * Every fetch is one `Range: bytes=a-b` GET; a server that ignores ranges is an error, so a
 * whole multi-GB file is never pulled by accident.
 */
export class HttpSource implements Source {
  constructor(readonly url: string) {}

  async fetch(offset: number, length: number): Promise<Uint8Array> {
    let res: Response;
    try {
      res = await fetch(this.url, {
        headers: { range: `bytes=${offset}-${offset + length - 1}` },
        signal: AbortSignal.timeout(TIMEOUT_MS),
      });
    } catch (e) {
      throw new SnowdbError(
        'source-unreachable',
        `could not fetch ${this.url}: ${String((e as Error).cause ?? e)}`,
      );
    }
    if (res.status === 404) {
      await res.body?.cancel();
      throw new SnowdbError('source-not-found', `${this.url}: not found (HTTP 404)`);
    }
    if (res.status === 416) {
      await res.body?.cancel();
      return new Uint8Array(0);
    }
    if (res.status !== 206) {
      await res.body?.cancel();
      throw new SnowdbError(
        'source-unreachable',
        `${this.url}: HTTP ${res.status} to a range request (the server must support byte ranges)`,
      );
    }
    try {
      return new Uint8Array(await res.arrayBuffer());
    } catch (e) {
      throw new SnowdbError('source-unreachable', `${this.url}: read interrupted: ${String(e)}`);
    }
  }

  async close(): Promise<void> {}
}
