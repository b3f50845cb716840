import { createHash } from 'node:crypto';
import { posix } from 'node:path';
import { SnowdbError } from '../errors.js';
import { AsyncLru } from '../util/lru.js';
import type { Bucket } from './bucket.js';
import {
  blobKey,
  type FileEntry,
  foldersOf,
  type PublishedTree,
  TREE_KEY,
  TreeSchema,
} from './published-tree.js';
import type { Source } from './source.js';
import type { Signature, Store } from './store.js';

/** Whole files kept in memory by content (configs, indexes, basin records), ≤ 64 MiB. */
const WHOLE_FILES = new AsyncLru<Buffer>(64 << 20, (b) => b.length);
/**
 * Ranges read, by blob, offset and length, ≤ 128 MiB: blobs never change, and a COG's header and
 * tiles are asked for at the same offsets by every query over it.
 */
const RANGES = new AsyncLru<Uint8Array>(128 << 20, (b) => b.length);

/** An error like the filesystem's for a path the published tree does not hold. */
const absent = (path: string): NodeJS.ErrnoException =>
  Object.assign(new Error(`ENOENT: not in the published tree: '${path}'`), { code: 'ENOENT' });

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

  private constructor(
    private readonly bucket: Bucket,
    readonly root: string,
  ) {}

  get url(): string {
    return this.bucket.url;
  }

  /**
   * Read the published tree of `bucket`, to be seen under `root`.
   * @throws SnowdbError `database-not-found` when nothing is published there, `invalid-config`
   *   when the tree object is damaged, `storage-unreachable`.
   */
  static async open(bucket: Bucket, root: string): Promise<RemoteStore> {
    const store = new RemoteStore(bucket, root);
    if (!(await store.refresh()) && store.treeId === '')
      throw new SnowdbError(
        'database-not-found',
        `${bucket.url}: no published snowdb database (no ${TREE_KEY})`,
      );
    return store;
  }

  /** Load the tree if it changed; true when it did. Keeps the current tree when the object is gone. */
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
    if (f === undefined) return null;
    return WHOLE_FILES.get(f.sha256, async () => {
      const got = await this.bucket.get(blobKey(f.sha256));
      if (got === null || got === 'unchanged')
        throw new SnowdbError(
          'storage-unreachable',
          `${this.bucket.url}/${blobKey(f.sha256)}: missing (${path})`,
        );
      return got.bytes;
    });
  }

  async readAt(path: string, offset: number, length: number): Promise<Uint8Array> {
    const f = this.entry(path);
    if (f === undefined) throw absent(path);
    return this.readBlob(f, offset, length);
  }

  private readBlob(f: FileEntry, offset: number, length: number): Promise<Uint8Array> {
    const n = Math.min(length, f.size - offset);
    if (n <= 0) return Promise.resolve(new Uint8Array(0));
    return RANGES.get(`${f.sha256}:${offset}:${n}`, () => this.bucket.range(blobKey(f.sha256), offset, n));
  }

  /** A source bound to the file's content as published now (a later tree does not change it). */
  source(path: string): Source {
    const f = this.entry(path);
    return {
      url: f === undefined ? `${this.bucket.url}#${path}` : `${this.bucket.url}/${blobKey(f.sha256)}`,
      fetch: (offset, length) =>
        f === undefined ? Promise.reject(absent(path)) : this.readBlob(f, offset, length),
      close: async () => {},
    };
  }
}
