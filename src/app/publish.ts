import { createHash } from 'node:crypto';
import { mkdir, readFile, stat } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { setTimeout } from 'node:timers/promises';
import type { Database } from '../db/database.js';
import { Layout } from '../db/layout.js';
import { publishedFiles } from '../db/published-files.js';
import { SnowdbError } from '../errors.js';
import { writeJsonAtomic } from '../io/atomic.js';
import { type Bucket, DirBucket } from '../io/bucket.js';
import { S3Bucket, type S3Settings } from '../io/bucket.s3.js';
import { fileSignature } from '../io/memo.js';
import {
  BLOB_PREFIX,
  blobKey,
  type Digests,
  type FileEntry,
  fileDigests,
  type PublishedTree,
  TREE_KEY,
  TreeSchema,
} from '../io/published-tree.js';
import { localStore } from '../io/store.js';
import { mapPool } from '../util/pool.js';

/** What `snowdb publish` did. */
export interface PublishReport {
  readonly target: string;
  readonly published_at: string;
  /** Files in the published tree, and their bytes. */
  readonly files: number;
  readonly bytes: number;
  /** Blobs uploaded this time (new content), and their bytes. */
  readonly uploaded: number;
  readonly uploaded_bytes: number;
  /** Blobs no tree refers to any more, deleted. */
  readonly removed: number;
}

/** Uploads in flight. */
const UPLOADS = 8;

/** The bucket a publish target names: `s3://bucket/prefix` or a local folder (HTTP is read-only). */
export function targetBucket(target: string, s3: S3Settings): Bucket {
  if (target.startsWith('s3://')) return new S3Bucket(target, s3);
  if (/^https?:\/\//.test(target))
    throw new SnowdbError(
      'read-only-database',
      `${target}: cannot publish over HTTP; publish to the folder or s3:// bucket the web server serves`,
    );
  return new DirBucket(resolve(target));
}

/** The blobs a tree entry refers to: its content and its chunk list. */
const blobsOf = (e: FileEntry): string[] => (e.chunks === undefined ? [e.sha256] : [e.sha256, e.chunks]);

/**
 * Digests of each file of `signatures` (path → signature). A signature (inode, size, mtime) stands
 * for the content: hard links are hashed once, and digests of files unchanged since the last
 * publish are reused. Chunk lists made by this call are added to `lists` (their sha256 → bytes).
 */
async function digests(
  db: Database,
  signatures: ReadonlyMap<string, string>,
  lists: Map<string, Buffer>,
): Promise<Map<string, Digests>> {
  const cacheFile = join(db.paths.cache('publish'), 'digests.json');
  const known = new Map<string, unknown>(
    Object.entries(
      JSON.parse(await readFile(cacheFile, 'utf8').catch(() => '{}')) as Record<string, unknown>,
    ),
  );
  const bySignature = new Map<string, Promise<Digests>>();
  const out = new Map<string, Digests>();
  await mapPool([...signatures], 4, async ([f, sig]) => {
    let digest = bySignature.get(sig);
    if (digest === undefined) {
      const hit = known.get(sig);
      // Entries of older releases are a bare sha256 (no chunk list): hashed again.
      digest =
        typeof hit === 'object' && hit !== null && typeof (hit as Digests).sha256 === 'string'
          ? Promise.resolve(hit as Digests)
          : fileDigests(f).then(({ list, ...d }) => {
              if (list && d.chunks) lists.set(d.chunks, list);
              return d;
            });
      bySignature.set(sig, digest);
    }
    out.set(f, await digest);
  });
  await mkdir(db.paths.cache('publish'), { recursive: true });
  const kept: Record<string, Digests> = {};
  for (const [f, sig] of signatures) kept[sig] = out.get(f)!;
  await writeJsonAtomic(cacheFile, kept);
  return out;
}

/** The tree a bucket holds now, or null (nothing published, or a damaged tree object). */
async function currentTree(bucket: Bucket): Promise<PublishedTree | null> {
  const got = await bucket.get(TREE_KEY);
  if (got === null || got === 'unchanged') return null;
  try {
    const parsed = TreeSchema.safeParse(JSON.parse(got.bytes.toString('utf8')));
    return parsed.success ? parsed.data : null;
  } catch {
    return null; // not JSON
  }
}

/**
 * Publish the database's read files to a folder or bucket a replica reads (`api serve --config
 * <url>`): new content uploaded as immutable blobs, then the tree object (the one step that makes
 * the new version visible, so a replica never sees a half-published date), then a plain copy of
 * the root config; blobs neither this tree nor the one before it refers to are deleted.
 * @throws SnowdbError `read-only-database` for an HTTP target, `storage-unreachable`, or
 *   `publish-interrupted` when a file changed while it was published (run it again).
 */
export async function publishDatabase(
  db: Database,
  target: string,
  opts: {
    s3?: S3Settings;
    now?: Date /** Test hook: ms to wait before the switch. */;
    pauseMs?: number;
  } = {},
): Promise<PublishReport> {
  const bucket = targetBucket(target, opts.s3 ?? {});
  const files = await publishedFiles(db);
  const signatures = new Map(files.map((f) => [f.abs, fileSignature(localStore, f.abs)]));
  const lists = new Map<string, Buffer>(); // chunk lists hashed now: sha → bytes
  const sha = await digests(db, signatures, lists);
  const tree: PublishedTree = {
    resource: 'snowdb.published/v1',
    published_at: (opts.now ?? new Date()).toISOString(),
    files: {},
  };
  const sizes = new Map<string, number>(); // sha → bytes
  for (const f of files) {
    const size = (await stat(f.abs)).size;
    const { sha256, chunks } = sha.get(f.abs)!;
    tree.files[f.rel] = chunks === undefined ? { size, sha256 } : { size, sha256, chunks };
    sizes.set(sha256, size);
  }
  const before = await currentTree(bucket);
  const held = new Set(Object.values(before?.files ?? {}).flatMap(blobsOf));
  const fresh = new Map<string, string>(); // sha → a file holding it
  const freshLists = new Map<string, string>(); // chunk list sha → a file it lists
  for (const f of files) {
    const { sha256, chunks } = sha.get(f.abs)!;
    if (!held.has(sha256)) fresh.set(sha256, f.abs);
    if (chunks !== undefined && !held.has(chunks)) freshLists.set(chunks, f.abs);
  }
  await mapPool([...fresh], UPLOADS, ([digest, file]) => bucket.putFile(blobKey(digest), file, 'immutable'));
  let listBytes = 0;
  await mapPool([...freshLists], UPLOADS, async ([digest, file]) => {
    // A list hashed in an earlier run (digests cache) is made again from the file, and must match.
    const list = lists.get(digest) ?? (await fileDigests(file)).list;
    if (list === undefined || createHash('sha256').update(list).digest('hex') !== digest)
      throw new SnowdbError(
        'publish-interrupted',
        `${file} changed while it was published; nothing was switched: run 'snowdb publish' again once the database is quiet`,
      );
    await bucket.put(blobKey(digest), list, 'immutable');
    listBytes += list.length;
  });
  if (opts.pauseMs) await setTimeout(opts.pauseMs);
  const changed = files.find((f) => fileSignature(localStore, f.abs) !== signatures.get(f.abs));
  if (changed !== undefined)
    throw new SnowdbError(
      'publish-interrupted',
      `${changed.abs} changed while it was published; nothing was switched: run 'snowdb publish' again once the database is quiet`,
    );
  // Nothing changed: the tree stays as it is (replicas keep their copy, published_at stays).
  const same = before !== null && JSON.stringify(before.files) === JSON.stringify(tree.files);
  if (same) tree.published_at = before.published_at;
  else {
    await bucket.put(TREE_KEY, Buffer.from(`${JSON.stringify(tree)}\n`), 'revalidate');
    await bucket.put(Layout.rootConfig, await readFile(db.paths.rootConfig), 'revalidate');
  }
  const keep = new Set([...held, ...Object.values(tree.files).flatMap(blobsOf)]);
  const stale = (await bucket.list(BLOB_PREFIX)).filter((k) => !keep.has(k.slice(k.lastIndexOf('/') + 1)));
  await mapPool(stale, UPLOADS, (k) => bucket.delete(k));
  return {
    target: bucket.url,
    published_at: tree.published_at,
    files: files.length,
    bytes: [...Object.values(tree.files)].reduce((s, e) => s + e.size, 0),
    uploaded: fresh.size + freshLists.size,
    uploaded_bytes: [...fresh.keys()].reduce((s, d) => s + sizes.get(d)!, listBytes),
    removed: stale.length,
  };
}
