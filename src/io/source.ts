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

/** A local file read with positional reads on one lazily opened handle. */
export class FileSource implements Source {
  readonly url: string;
  private handle: Promise<FileHandle> | null = null;

  constructor(readonly path: string) {
    this.url = `file://${path}`;
  }

  async fetch(offset: number, length: number): Promise<Uint8Array> {
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
