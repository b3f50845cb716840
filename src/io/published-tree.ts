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

const FileEntrySchema = z.strictObject({
  size: z.number().int().nonnegative(),
  sha256: z.string().regex(/^[0-9a-f]{64}$/),
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
