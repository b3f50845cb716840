import { closeSync, openSync, readSync } from 'node:fs';
import { type FileHandle, open } from 'node:fs/promises';

/**
 * The byte Source port: every read of a raster goes through `fetch`. File, memory (and later
 * HTTP/S3) are adapters; counting is middleware around any of them.
 */
export interface Source {
  /** Where the bytes come from, for messages and cache keys. */
  readonly url: string;
  /** Bytes [offset, offset + length); shorter only at the end of the source. */
  fetch(offset: number, length: number): Promise<Uint8Array>;
  /** Release any handle; the source may be fetched from again later (it reopens). */
  close(): Promise<void>;
}

/**
 * Reads of at most this many bytes are synchronous (a page-cache read of a COG header or tile
 * costs microseconds, a thread-pool round trip waits behind every other query's I/O: a one-cell
 * `/point` over 28 dates took 250 ms under load that way); larger ones go to the thread pool.
 */
export const SYNC_READ_BYTES = 256 * 1024;

/**
 * A local file read with positional reads: small ones synchronously on a lazily opened
 * descriptor, large ones on a lazily opened handle.
 */
export class FileSource implements Source {
  readonly url: string;
  private handle: Promise<FileHandle> | null = null;
  private fd: number | null = null;

  constructor(readonly path: string) {
    this.url = `file://${path}`;
  }

  fetch(offset: number, length: number): Promise<Uint8Array> {
    if (length > SYNC_READ_BYTES) return this.fetchAsync(offset, length);
    try {
      this.fd ??= openSync(this.path, 'r');
      const buf = Buffer.allocUnsafe(length);
      const n = readSync(this.fd, buf, 0, length, offset);
      return Promise.resolve(n === length ? buf : buf.subarray(0, n));
    } catch (e) {
      return Promise.reject(e);
    }
  }

  private async fetchAsync(offset: number, length: number): Promise<Uint8Array> {
    this.handle ??= open(this.path, 'r');
    const fh = await this.handle.catch((e: unknown) => {
      this.handle = null;
      throw e;
    });
    const buf = Buffer.allocUnsafe(length);
    const { bytesRead } = await fh.read(buf, 0, length, offset);
    return bytesRead === length ? buf : buf.subarray(0, bytesRead);
  }

  async close(): Promise<void> {
    if (this.fd !== null) closeSync(this.fd);
    this.fd = null;
    const h = this.handle;
    this.handle = null;
    if (h) await (await h).close();
  }
}

/** Middleware that records every fetch (offset, length) made through it. */
export class CountingSource implements Source {
  readonly fetches: { offset: number; length: number }[] = [];

  constructor(private readonly inner: Source) {}

  get url(): string {
    return this.inner.url;
  }

  fetch(offset: number, length: number): Promise<Uint8Array> {
    this.fetches.push({ offset, length });
    return this.inner.fetch(offset, length);
  }

  close(): Promise<void> {
    return this.inner.close();
  }
}
