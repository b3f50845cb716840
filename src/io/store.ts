import { closeSync, openSync, readSync, statSync } from 'node:fs';
import { readdir, readFile } from 'node:fs/promises';
import { FileSource, type Source } from './source.js';

/** What a file's signature is built from: it changes whenever the file is replaced or rewritten. */
export interface Signature {
  /** Opaque; 'absent' when there is no such file or folder. */
  readonly signature: string;
  /** Last change, ms since the epoch (0 when unknown: a published file never changes in place). */
  readonly mtimeMs: number;
}

/**
 * The read port of a database's files. Every read of the query path (configs, indexes, listings,
 * rasters, series pages) goes through its database's store (`Database.store`, carried by each
 * dataset): the local filesystem, or a published copy on a static HTTP server or object storage
 * (a read-only replica).
 */
export interface Store {
  /** Where the files come from, for messages. */
  readonly url: string;
  /** True for the local filesystem (writable; synchronous reads are cheap). */
  readonly local: boolean;
  /** One file's or folder's signature, synchronously (local: one stat; remote: from memory). */
  stat(path: string): Signature;
  /** Names in a folder; none when it is absent. */
  list(dir: string): Promise<string[]>;
  /** A file's bytes, or null when it does not exist. */
  read(path: string): Promise<Buffer | null>;
  /** Bytes [offset, offset + length) of a file (shorter only at its end). */
  readAt(path: string, offset: number, length: number): Promise<Uint8Array>;
  /** A range-read source over a file (for COGs). */
  source(path: string): Source;
}

/** The local filesystem. */
class LocalStore implements Store {
  readonly url = 'file://';
  readonly local = true;

  stat(path: string): Signature {
    const s = statSync(path, { bigint: true, throwIfNoEntry: false });
    if (s === undefined) return { signature: 'absent', mtimeMs: 0 };
    return { signature: `${s.ino}:${s.size}:${s.mtimeNs}`, mtimeMs: Number(s.mtimeMs) };
  }

  list(dir: string): Promise<string[]> {
    return readdir(dir).catch(() => [] as string[]);
  }

  read(path: string): Promise<Buffer | null> {
    return readFile(path).catch((e: NodeJS.ErrnoException) => {
      if (e.code === 'ENOENT') return null;
      throw e;
    });
  }

  /** A synchronous positional read: small page-cache reads cost less than a thread-pool round trip. */
  readAt(path: string, offset: number, length: number): Promise<Uint8Array> {
    try {
      const fd = openSync(path, 'r');
      try {
        const buf = Buffer.allocUnsafe(length);
        const n = readSync(fd, buf, 0, length, offset);
        return Promise.resolve(n === length ? buf : buf.subarray(0, n));
      } finally {
        closeSync(fd);
      }
    } catch (e) {
      return Promise.reject(e);
    }
  }

  source(path: string): Source {
    return new FileSource(path);
  }
}

export const localStore: Store = new LocalStore();
