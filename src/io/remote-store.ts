import { createHash } from 'node:crypto';
import { posix } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { SnowdbError } from '../errors.js';
import type { AsyncLru } from '../util/lru.js';
import type { Runtime } from '../util/runtime.js';
import type { Bucket } from './bucket.js';
import {
  blobKey,
  CHUNK_BYTES,
  chunkListBytes,
  chunkMatches,
  type FileEntry,
  foldersOf,
  type PublishedTree,
  TREE_KEY,
  TreeSchema,
} from './published-tree.js';
import type { Source } from './source.js';
import type { Signature, Store } from './store.js';

/** Bytes per cached chunk of a blob (the chunk a published chunk list names). */
const CHUNK = CHUNK_BYTES;

/** An error like the filesystem's for a path the published tree does not hold. */
const absent = (path: string): NodeJS.ErrnoException =>
  Object.assign(new Error(`ENOENT: not in the published tree: '${path}'`), { code: 'ENOENT' });

/** Pauses before asking the storage again, ms: a read that failed (a 5xx, a reset, a reply cut
 * short or not the published bytes) is tried three times in all before its error is the answer. */
const RETRY_PAUSES_MS = [100, 500];

async function retrying<T>(read: () => Promise<T>): Promise<T> {
  for (let attempt = 0; ; attempt++) {
    try {
      return await read();
    } catch (e) {
      const pause = RETRY_PAUSES_MS[attempt];
      if (pause === undefined || !(SnowdbError.is(e) && e.key === 'storage-unreachable')) throw e;
      await sleep(pause);
    }
  }
}

/**
 * A published database (io/published-tree.ts) read over a Bucket, seen as files under a virtual
 * `root` folder. The tree is held in memory, so signatures and listings cost no request; file
 * bytes are fetched whole (small files) or by range (COGs, series pages), both kept in memory.
 * `refresh` asks for the tree again with its etag (one conditional request).
 */
export class RemoteStore implements Store {
  readonly local = false;
  private tree!: PublishedTree;
  private folders!: Map<string, Set<string>>;
  /** Changes with every tree: the signature of every folder. */
  private treeId = '';
  private etag: string | null = null;

  /** Whole files kept in memory by content (configs, indexes, basin records): the runtime's 'replica-files'. */
  private readonly files: AsyncLru<Buffer>;
  /**
   * Blob bytes in aligned chunks of CHUNK bytes, by blob and chunk index ('replica-chunks'):
   * blobs never change, a series page's header and its blocks share chunks, and basins read
   * blocks near each other's, so a read rounded out to whole chunks serves the reads after it.
   */
  private readonly chunks: AsyncLru<Uint8Array>;

  private constructor(
    private readonly bucket: Bucket,
    readonly root: string,
    rt: Runtime,
  ) {
    this.files = rt.cache<Buffer>('replica-files', (b) => b.length);
    this.chunks = rt.cache<Uint8Array>('replica-chunks', (b) => b.length);
  }

  get url(): string {
    return this.bucket.url;
  }

  /**
   * Read the published tree of `bucket`, to be seen under `root`, its bytes cached in `rt`'s caches.
   * @throws SnowdbError `database-not-found` when nothing is published there, `invalid-config`
   *   when the tree object is damaged, `storage-unreachable`.
   */
  static async open(bucket: Bucket, root: string, rt: Runtime): Promise<RemoteStore> {
    const store = new RemoteStore(bucket, root, rt);
    if (!(await store.refresh()) && store.treeId === '')
      throw new SnowdbError(
        'database-not-found',
        `${bucket.url}: no published snowdb database (no ${TREE_KEY})`,
      );
    return store;
  }

  /** Load the tree if it changed; true when it did. Keeps the current tree when the object is gone. */
  /** When an object beside the published tree (not one of its files) was seen, by key: its URL or null. */
  private readonly besides = new Map<string, { at: number; url: string | null }>();

  /**
   * The URL of an object beside the published tree (`static/<…>`), or null when the bucket holds
   * none; asked again after a minute.
   */
  async besideUrl(key: string): Promise<string | null> {
    const seen = this.besides.get(key);
    if (seen !== undefined && Date.now() - seen.at < 60_000) return seen.url;
    const got = await this.bucket.get(key).catch(() => null);
    const url = got === null ? null : `${this.bucket.url.replace(/\/+$/, '')}/${key}`;
    this.besides.set(key, { at: Date.now(), url });
    return url;
  }

  async refresh(): Promise<boolean> {
    const got = await this.bucket.get(TREE_KEY, this.etag);
    if (got === null || got === 'unchanged') return false;
    let parsed: PublishedTree;
    try {
      parsed = TreeSchema.parse(JSON.parse(got.bytes.toString('utf8')));
    } catch (e) {
      throw new SnowdbError(
        'invalid-config',
        `${this.bucket.url}/${TREE_KEY}: not a published snowdb tree (${(e as Error).message.slice(0, 200)})`,
      );
    }
    const id = createHash('sha256').update(got.bytes).digest('hex').slice(0, 16);
    this.etag = got.etag;
    if (id === this.treeId) return false;
    this.tree = parsed;
    this.folders = foldersOf(parsed);
    this.treeId = id;
    return true;
  }

  /** When the tree now held was published (ISO). */
  get publishedAt(): string {
    return this.tree.published_at;
  }

  private rel(path: string): string | null {
    if (path === this.root) return '';
    if (!path.startsWith(`${this.root}/`)) return null;
    return posix.normalize(path.slice(this.root.length + 1));
  }

  private entry(path: string): FileEntry | undefined {
    const rel = this.rel(path);
    return rel === null ? undefined : this.tree.files[rel];
  }

  stat(path: string): Signature {
    const rel = this.rel(path);
    if (rel === null) return { signature: 'absent', mtimeMs: 0 };
    const f = this.tree.files[rel];
    if (f !== undefined) return { signature: f.sha256, mtimeMs: 0 };
    return { signature: this.folders.has(rel) ? `tree:${this.treeId}` : 'absent', mtimeMs: 0 };
  }

  async list(dir: string): Promise<string[]> {
    const rel = this.rel(dir);
    return rel === null ? [] : [...(this.folders.get(rel) ?? [])];
  }

  async read(path: string): Promise<Buffer | null> {
    const f = this.entry(path);
    return f === undefined ? null : this.wholeBlob(f.sha256, path);
  }

  /** A whole blob, checked against its digest: bytes that do not hash to it are refused (and not kept). */
  private wholeBlob(sha256: string, path: string): Promise<Buffer> {
    return this.files.get(sha256, () =>
      retrying(async () => {
        const got = await this.bucket.get(blobKey(sha256));
        if (got === null || got === 'unchanged')
          throw new SnowdbError(
            'storage-unreachable',
            `${this.bucket.url}/${blobKey(sha256)}: missing (${path})`,
          );
        if (createHash('sha256').update(got.bytes).digest('hex') !== sha256)
          throw new SnowdbError(
            'storage-unreachable',
            `${this.bucket.url}/${blobKey(sha256)}: the storage returned ${got.bytes.length} bytes that are not the published content of ${path}`,
          );
        return got.bytes;
      }),
    );
  }

  /** A file's chunk list (null for a one-chunk file, or a tree of an older release), checked whole. */
  private async chunkList(f: FileEntry, path: string): Promise<Buffer | null> {
    if (f.chunks === undefined) return null;
    const list = await this.wholeBlob(f.chunks, `the chunk list of ${path}`);
    if (list.length !== chunkListBytes(f.size))
      throw new SnowdbError(
        'storage-unreachable',
        `${this.bucket.url}/${blobKey(f.chunks)}: a chunk list of ${list.length} bytes for ${f.size} bytes of ${path}`,
      );
    return list;
  }

  async readAt(path: string, offset: number, length: number): Promise<Uint8Array> {
    const f = this.entry(path);
    if (f === undefined) throw absent(path);
    return this.readBlob(f, offset, length, path);
  }

  /**
   * Bytes [offset, offset + length) of a blob (cut at its end), from the chunk cache; the chunks
   * it lacks are fetched with one range request per run of adjacent ones.
   */
  private async readBlob(f: FileEntry, offset: number, length: number, path: string): Promise<Uint8Array> {
    const end = Math.min(offset + length, f.size);
    if (end <= offset) return new Uint8Array(0);
    const key = blobKey(f.sha256);
    const list = await this.chunkList(f, path);
    const first = Math.floor(offset / CHUNK);
    const last = Math.floor((end - 1) / CHUNK);
    const id = (i: number) => `${f.sha256}:${i}`;
    const chunkEnd = (i: number) => Math.min(f.size, (i + 1) * CHUNK);
    // Chunks [from, to] of a range reply, each checked against the chunk list before it is kept:
    // bytes of the right length but not the published ones are refused, and asked for again.
    const fetchRun = async (from: number, to: number): Promise<Uint8Array> => {
      const bytes = await this.bucket.range(key, from * CHUNK, chunkEnd(to) - from * CHUNK);
      // A file of one chunk has no chunk list: its one chunk is the whole blob, checked by its digest.
      if (list === null && f.size <= CHUNK && createHash('sha256').update(bytes).digest('hex') !== f.sha256)
        throw new SnowdbError(
          'storage-unreachable',
          `${this.bucket.url}/${key}: the storage returned bytes 0–${f.size - 1} that are not the published content of ${path}`,
        );
      for (let k = from; list !== null && k <= to; k++) {
        const chunk = bytes.subarray((k - from) * CHUNK, chunkEnd(k) - from * CHUNK);
        if (!chunkMatches(list, k, chunk))
          throw new SnowdbError(
            'storage-unreachable',
            `${this.bucket.url}/${key}: the storage returned bytes ${k * CHUNK}–${chunkEnd(k) - 1} that are not the published content of ${path}`,
          );
      }
      return bytes;
    };
    for (let i = first; i <= last; ) {
      if (this.chunks.has(id(i))) {
        i++;
        continue;
      }
      const start = i;
      while (i < last && !this.chunks.has(id(i + 1))) i++;
      const stop = i;
      const run = retrying(() => fetchRun(start, stop));
      for (let k = start; k <= i; k++) {
        const piece = () => run.then((b) => b.subarray((k - start) * CHUNK, chunkEnd(k) - start * CHUNK));
        void this.chunks.get(id(k), piece).catch(() => {}); // the read below reports it
      }
      i++;
    }
    const pieces = await Promise.all(
      Array.from({ length: last - first + 1 }, (_, n) => {
        const i = first + n;
        return this.chunks.get(id(i), () => retrying(() => fetchRun(i, i)));
      }),
    );
    const from = offset - first * CHUNK;
    if (pieces.length === 1) return pieces[0]!.subarray(from, from + end - offset);
    const out = new Uint8Array(end - offset);
    let at = 0;
    for (const [n, p] of pieces.entries()) {
      const part = p.subarray(n === 0 ? from : 0, Math.min(p.length, end - (first + n) * CHUNK));
      out.set(part, at);
      at += part.length;
    }
    return out;
  }

  /** A source bound to the file's content as published now (a later tree does not change it). */
  source(path: string): Source {
    const f = this.entry(path);
    return {
      url: f === undefined ? `${this.bucket.url}#${path}` : `${this.bucket.url}/${blobKey(f.sha256)}`,
      fetch: (offset, length) =>
        f === undefined ? Promise.reject(absent(path)) : this.readBlob(f, offset, length, path),
      close: async () => {},
    };
  }
}
