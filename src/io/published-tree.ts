import { createHash } from 'node:crypto';
import { open } from 'node:fs/promises';
import { z } from 'zod';

/**
 * A folder tree published as content-addressed objects: every file is stored once under
 * `blobs/<sha[0..2]>/<sha256>` (never rewritten, so cacheable forever) and one tree object,
 * `published.json`, maps each relative path to its blob. Rewriting the tree object is the one
 * step that makes a new version visible: a reader sees the old tree or the new one, whole.
 */
export const TREE_KEY = 'published.json';
export const BLOB_PREFIX = 'blobs';

export const blobKey = (sha256: string): string => `${BLOB_PREFIX}/${sha256.slice(0, 2)}/${sha256}`;

/** Bytes per chunk a replica reads and verifies (a range read is rounded out to whole chunks). */
export const CHUNK_BYTES = 64 << 10;
/** Bytes of each chunk's digest in a chunk list: the first 16 of its sha256. */
const DIGEST_BYTES = 16;

const Sha256 = z.string().regex(/^[0-9a-f]{64}$/);
const FileEntrySchema = z.strictObject({
  size: z.number().int().nonnegative(),
  sha256: Sha256,
  /**
   * For a file of more than one chunk: the blob holding its chunk list (the `chunkDigest` of each
   * CHUNK_BYTES chunk, in order; the last chunk may be short), so a reader
   * of a byte range can check the chunks it fetched without fetching the whole file.
   */
  chunks: Sha256.optional(),
});

export const TreeSchema = z.strictObject({
  resource: z.literal('snowdb.published/v1'),
  published_at: z.string(),
  /** Relative path (`/`-separated) → its blob. */
  files: z.record(z.string(), FileEntrySchema),
});

export type PublishedTree = z.infer<typeof TreeSchema>;
export type FileEntry = z.infer<typeof FileEntrySchema>;

/** Every folder of a tree with the names directly in it (files and subfolders). */
export function foldersOf(tree: PublishedTree): Map<string, Set<string>> {
  const dirs = new Map<string, Set<string>>([['', new Set()]]);
  for (const rel of Object.keys(tree.files)) {
    const parts = rel.split('/');
    for (let i = 0; i < parts.length; i++) {
      const dir = parts.slice(0, i).join('/');
      const names = dirs.get(dir) ?? new Set<string>();
      names.add(parts[i]!);
      dirs.set(dir, names);
    }
  }
  return dirs;
}

/** One chunk's digest, as a chunk list holds it. */
export const chunkDigest = (chunk: Uint8Array): Buffer =>
  createHash('sha256').update(chunk).digest().subarray(0, DIGEST_BYTES);

/** True when chunk `i` of a file is the one its chunk list names. */
export const chunkMatches = (list: Uint8Array, i: number, chunk: Uint8Array): boolean =>
  chunkDigest(chunk).equals(list.subarray(i * DIGEST_BYTES, (i + 1) * DIGEST_BYTES));

/** The length, in bytes, of the chunk list of a file of `size` bytes. */
export const chunkListBytes = (size: number): number => Math.ceil(size / CHUNK_BYTES) * DIGEST_BYTES;

/** A file's content digests: its sha256 and, past one chunk, the sha256 of its chunk list. */
export interface Digests {
  readonly sha256: string;
  readonly chunks?: string;
}

/** One read of a file: its digests, and past one chunk its chunk list's bytes (`list`). */
export async function fileDigests(path: string): Promise<Digests & { list?: Buffer }> {
  const whole = createHash('sha256');
  const parts: Buffer[] = [];
  const fh = await open(path, 'r');
  try {
    const buf = Buffer.allocUnsafe(CHUNK_BYTES);
    for (;;) {
      const { bytesRead } = await fh.read(buf, 0, CHUNK_BYTES, null);
      if (bytesRead === 0) break;
      const chunk = buf.subarray(0, bytesRead);
      whole.update(chunk);
      parts.push(chunkDigest(chunk));
    }
  } finally {
    await fh.close();
  }
  const sha256 = whole.digest('hex');
  if (parts.length <= 1) return { sha256 };
  const list = Buffer.concat(parts);
  return { sha256, chunks: createHash('sha256').update(list).digest('hex'), list };
}
