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
import { sha256Files } from '../io/hash.js';
import { fileSignature } from '../io/memo.js';
import { BLOB_PREFIX, blobKey, type PublishedTree, TREE_KEY, TreeSchema } from '../io/published-tree.js';
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

/**
 * sha256 of each file of `signatures` (path → signature). A signature (inode, size, mtime) stands
 * for the content: hard links are hashed once, and digests of files unchanged since the last
 * publish are reused.
 */
async function digests(db: Database, signatures: ReadonlyMap<string, string>): Promise<Map<string, string>> {
  const cacheFile = join(db.paths.cache('publish'), 'digests.json');
  const known = new Map<string, string>(
    Object.entries(JSON.parse(await readFile(cacheFile, 'utf8').catch(() => '{}')) as Record<string, string>),
  );
  const bySignature = new Map<string, Promise<string>>();
  const out = new Map<string, string>();
  await mapPool([...signatures], 4, async ([f, sig]) => {
    let digest = bySignature.get(sig);
    if (digest === undefined) {
      const hit = known.get(sig);
      digest = hit === undefined ? sha256Files([f]) : Promise.resolve(hit);
      bySignature.set(sig, digest);
    }
    out.set(f, await digest);
  });
  await mkdir(db.paths.cache('publish'), { recursive: true });
  const kept: Record<string, string> = {};
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
  const sha = await digests(db, signatures);
  const tree: PublishedTree = {
    resource: 'snowdb.published/v1',
    published_at: (opts.now ?? new Date()).toISOString(),
    files: {},
  };
  const sizes = new Map<string, number>(); // sha → bytes
  for (const f of files) {
    const size = (await stat(f.abs)).size;
    tree.files[f.rel] = { size, sha256: sha.get(f.abs)! };
    sizes.set(sha.get(f.abs)!, size);
  }
  const before = await currentTree(bucket);
  const held = new Set(Object.values(before?.files ?? {}).map((e) => e.sha256));
  const fresh = new Map<string, string>(); // sha → a file holding it
  for (const f of files) if (!held.has(sha.get(f.abs)!)) fresh.set(sha.get(f.abs)!, f.abs);
  await mapPool([...fresh], UPLOADS, ([digest, file]) => bucket.putFile(blobKey(digest), file, 'immutable'));
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
  const keep = new Set([...held, ...sizes.keys()]);
  const stale = (await bucket.list(BLOB_PREFIX)).filter((k) => !keep.has(k.slice(k.lastIndexOf('/') + 1)));
  await mapPool(stale, UPLOADS, (k) => bucket.delete(k));
  return {
    target: bucket.url,
    published_at: tree.published_at,
    files: files.length,
    bytes: [...Object.values(tree.files)].reduce((s, e) => s + e.size, 0),
    uploaded: fresh.size,
    uploaded_bytes: [...fresh.keys()].reduce((s, d) => s + sizes.get(d)!, 0),
    removed: stale.length,
  };
}
