import { randomBytes } from 'node:crypto';
import { copyFile, type FileHandle, open, rename, rm } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';

/**
 * A fresh tag for a temporary name: `<pid>-<random hex>`. The pid tells a later run whether the
 * writer is gone (then the name is debris) or still at work.
 */
export function tempTag(): string {
  return `${process.pid}-${randomBytes(6).toString('hex')}`;
}

/** The writer's pid in a tagged name (`….<pid>-<hex>…`); null for an untagged name. */
export function tagPid(name: string): number | null {
  const m = /(?:^|[.-])(\d+)-[0-9a-f]{12}(?:\.[a-z.]+)?$/.exec(name);
  return m === null ? null : Number(m[1]);
}

/** A temp path beside `target`: `.<name>.<pid>-<hex>.tmp` in the same directory (same filesystem). */
export function tempPathFor(target: string): string {
  return join(dirname(target), `.${basename(target)}.${tempTag()}.tmp`);
}

/**
 * Replace `target` atomically: `fill` writes a temp file beside it (and leaves it fsynced), then it
 * is renamed over the target; on failure the temp file is removed.
 */
async function replaceVia<T>(target: string, fill: (tmp: string) => Promise<T>): Promise<T> {
  const tmp = tempPathFor(target);
  try {
    const out = await fill(tmp);
    await rename(tmp, target);
    return out;
  } catch (e) {
    await rm(tmp, { force: true });
    // A write's system error names no file (ENOSPC from write(2)), or a copy's names its source:
    // a full disk names the file being written.
    const err = e as NodeJS.ErrnoException | null;
    if (
      typeof err === 'object' &&
      err !== null &&
      (err.path === undefined || err.code === 'ENOSPC' || err.code === 'EDQUOT')
    )
      err.path = target;
    throw e;
  }
}

/** Run `fn` on a file opened with `flags`, fsync it, close it. */
async function withSynced<T>(path: string, flags: string, fn: (fh: FileHandle) => Promise<T>): Promise<T> {
  const fh = await open(path, flags);
  try {
    const out = await fn(fh);
    await fh.sync();
    return out;
  } finally {
    await fh.close();
  }
}

/**
 * Write a whole file atomically: write a temp file beside it, fsync, rename over the target.
 * A reader sees the old bytes or the new ones, never a mix; on failure the temp file is removed.
 * @returns bytes written.
 */
export function writeFileAtomic(
  target: string,
  data: string | Uint8Array | readonly Uint8Array[],
): Promise<number> {
  const chunks = typeof data === 'string' ? [Buffer.from(data)] : data instanceof Uint8Array ? [data] : data;
  return writeFileAtomicBy(target, (write) => write(chunks));
}

/**
 * As `writeFileAtomic`, the bytes given by `fill` in pieces (so a large file is never whole in
 * memory): each `write` appends its chunks.
 * @returns bytes written.
 */
export function writeFileAtomicBy(
  target: string,
  fill: (write: (chunks: readonly Uint8Array[]) => Promise<void>) => Promise<void>,
): Promise<number> {
  return replaceVia(target, (tmp) =>
    withSynced(tmp, 'wx', async (fh) => {
      let size = 0;
      await fill(async (chunks) => {
        // writev takes at most IOV_MAX (1024) buffers per call.
        for (let i = 0; i < chunks.length; i += 512)
          size += (await fh.writev(chunks.slice(i, i + 512))).bytesWritten;
      });
      return size;
    }),
  );
}

/** Atomic write of pretty JSON (indent 2, trailing newline). */
export async function writeJsonAtomic(target: string, value: unknown): Promise<void> {
  await writeFileAtomic(target, `${JSON.stringify(value, null, 2)}\n`);
}

/** Copy a file atomically: copy to a temp file beside the target, fsync, rename over the target. */
export function copyFileAtomic(from: string, target: string): Promise<void> {
  return replaceVia(target, async (tmp) => {
    await copyFile(from, tmp);
    await withSynced(tmp, 'r+', async () => {});
  });
}
