import { mkdir, open, readdir, readFile, rm, stat } from 'node:fs/promises';
import { dirname, join, relative, sep } from 'node:path';
import { SnowdbError } from '../errors.js';
import { copyFileAtomic, writeFileAtomic } from './atomic.js';
import { BodyError, type Bounds, fetchBounded } from './bounded.js';

/** How long a copy may be kept: a content-addressed object forever, a pointer only until revalidated. */
export type Caching = 'immutable' | 'revalidate';

export const CACHE_CONTROL: Record<Caching, string> = {
  immutable: 'public, max-age=31536000, immutable',
  revalidate: 'no-cache',
};

/** An object as read: its bytes and the validator to ask again with. */
export interface Got {
  readonly bytes: Buffer;
  readonly etag: string | null;
}

/**
 * Flat key → bytes storage: a local folder, a static HTTP server (read-only) or an S3 bucket
 * prefix. Keys are `/`-separated relative paths.
 */
export interface Bucket {
  /** Where the objects live, for messages (`https://host/db`, `s3://bucket/prefix`, a folder). */
  readonly url: string;
  /**
   * The whole object, or null when absent; given the etag of the copy held, 'unchanged' when the
   * object still has it.
   * @throws SnowdbError `storage-unreachable` on any other failure.
   */
  get(key: string, etag?: string | null): Promise<Got | null | 'unchanged'>;
  /** Bytes [offset, offset + length) of an object that exists (one range request). */
  range(key: string, offset: number, length: number): Promise<Uint8Array>;
  /** Keys under a prefix (for pruning); HTTP cannot list, so it is never asked to. */
  list(prefix: string): Promise<string[]>;
  put(key: string, bytes: Uint8Array, caching: Caching): Promise<void>;
  /** Upload a local file (streamed). */
  putFile(key: string, file: string, caching: Caching): Promise<void>;
  delete(key: string): Promise<void>;
}

export function unreachable(url: string, why: string, cause?: unknown): SnowdbError {
  return new SnowdbError('storage-unreachable', `${url}: ${why}`, {}, cause === undefined ? {} : { cause });
}

/**
 * The bytes of a range reply, checked: exactly `length` bytes, and (when the reply names its
 * range) the range asked for. Storage that answers short, long or another range is refused, so a
 * caller never keeps bytes of the wrong place.
 * @throws SnowdbError `storage-unreachable` naming what came back.
 */
export function checkedRange(
  url: string,
  bytes: Uint8Array,
  offset: number,
  length: number,
  contentRange: string | null | undefined,
): Uint8Array {
  const m = /^bytes (\d+)-(\d+)\/(\d+|\*)$/.exec(contentRange ?? '');
  if (contentRange != null && (m === null || Number(m[1]) !== offset || Number(m[2]) !== offset + length - 1))
    throw unreachable(
      url,
      `a reply for bytes ${offset}-${offset + length - 1} says it holds '${contentRange.slice(0, 80)}'`,
    );
  if (bytes.length !== length)
    throw unreachable(url, `a reply for ${length} bytes at ${offset} held ${bytes.length}`);
  return bytes;
}

/** A local folder (what `snowdb publish <dir>` writes, for any static web server to serve). */
export class DirBucket implements Bucket {
  constructor(readonly url: string) {}

  async get(key: string, etag?: string | null): Promise<Got | null | 'unchanged'> {
    const file = join(this.url, key);
    const s = await stat(file).catch(() => null);
    if (s === null) return null;
    const tag = `${s.ino}:${s.size}:${s.mtimeMs}`;
    if (etag === tag) return 'unchanged';
    return { bytes: await readFile(file), etag: tag };
  }

  async range(key: string, offset: number, length: number): Promise<Uint8Array> {
    const fh = await open(join(this.url, key), 'r');
    try {
      const buf = Buffer.allocUnsafe(length);
      const { bytesRead } = await fh.read(buf, 0, length, offset);
      return checkedRange(join(this.url, key), buf.subarray(0, bytesRead), offset, length, null);
    } finally {
      await fh.close();
    }
  }

  async list(prefix: string): Promise<string[]> {
    const dir = join(this.url, prefix);
    const entries = await readdir(dir, { recursive: true, withFileTypes: true }).catch(() => []);
    return entries
      .filter((e) => e.isFile())
      .map((e) => `${prefix}/${relative(dir, join(e.parentPath, e.name)).split(sep).join('/')}`);
  }

  async put(key: string, bytes: Uint8Array, _caching: Caching): Promise<void> {
    const file = join(this.url, key);
    await mkdir(dirname(file), { recursive: true });
    await writeFileAtomic(file, bytes);
  }

  async putFile(key: string, from: string, _caching: Caching): Promise<void> {
    const file = join(this.url, key);
    await mkdir(dirname(file), { recursive: true });
    await copyFileAtomic(from, file);
  }

  async delete(key: string): Promise<void> {
    await rm(join(this.url, key), { force: true });
  }
}

/** A whole published file (records, the index, manifests): at most 1 GiB, 60 s idle, 10 min in all. */
const WHOLE_BOUNDS: Bounds = { maxBytes: 2 ** 30, idleMs: 60_000, totalMs: 600_000 };

/** A database published on any static web server that answers byte ranges (read-only). */
export class HttpBucket implements Bucket {
  /** `base` without its trailing slash. */
  constructor(readonly url: string) {}

  /** One GET of `key` within `bounds`: the response, and its body read within them. */
  private async request(key: string, headers: Record<string, string>, bounds: Bounds) {
    const url = `${this.url}/${key}`;
    const asStorage = (e: unknown) =>
      e instanceof BodyError ? unreachable(url, e.message.replace(`${url}`, 'it'), e) : e;
    try {
      const { res, read, cancel } = await fetchBounded('the storage', url, { headers }, bounds);
      return { res, cancel, read: () => read().catch((e: unknown) => Promise.reject(asStorage(e))) };
    } catch (e) {
      throw asStorage(e);
    }
  }

  async get(key: string, etag?: string | null): Promise<Got | null | 'unchanged'> {
    const { res, read, cancel } = await this.request(
      key,
      etag ? { 'if-none-match': etag } : {},
      WHOLE_BOUNDS,
    );
    if (res.status === 304) return 'unchanged';
    if (res.status === 404) {
      await cancel();
      return null;
    }
    if (!res.ok) {
      await cancel();
      throw unreachable(`${this.url}/${key}`, `HTTP ${res.status}`);
    }
    return { bytes: Buffer.from(await read()), etag: res.headers.get('etag') };
  }

  async range(key: string, offset: number, length: number): Promise<Uint8Array> {
    const { res, read, cancel } = await this.request(
      key,
      { range: `bytes=${offset}-${offset + length - 1}` },
      { ...WHOLE_BOUNDS, maxBytes: length },
    );
    if (res.status !== 206) {
      await cancel();
      throw unreachable(
        `${this.url}/${key}`,
        res.status === 200
          ? 'the server ignores byte ranges (it must answer 206 to a Range request)'
          : `HTTP ${res.status} to a range request`,
      );
    }
    const url = `${this.url}/${key}`;
    if (res.headers.get('content-range') === null) {
      await cancel();
      throw unreachable(url, 'a 206 reply without Content-Range');
    }
    return checkedRange(url, await read(), offset, length, res.headers.get('content-range'));
  }

  list(): Promise<string[]> {
    return Promise.reject(readOnly(this.url));
  }
  put(): Promise<void> {
    return Promise.reject(readOnly(this.url));
  }
  putFile(): Promise<void> {
    return Promise.reject(readOnly(this.url));
  }
  delete(): Promise<void> {
    return Promise.reject(readOnly(this.url));
  }
}

function readOnly(url: string): SnowdbError {
  return new SnowdbError(
    'read-only-database',
    `${url} is served over HTTP, which is read-only: publish to the folder or s3:// bucket it serves`,
  );
}
