import { randomBytes } from 'node:crypto';
import { open, rename, rm } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';

/** A temp path beside `target`: `.<name>.<random>.tmp` in the same directory (same filesystem). */
export function tempPathFor(target: string): string {
  return join(dirname(target), `.${basename(target)}.${randomBytes(6).toString('hex')}.tmp`);
}

/**
 * Write a whole file atomically: write a temp file beside it, fsync, rename over the target.
 * A reader sees the old bytes or the new ones, never a mix; on failure the temp file is removed.
 * @returns bytes written.
 */
export async function writeFileAtomic(
  target: string,
  data: string | Uint8Array | readonly Uint8Array[],
): Promise<number> {
  const chunks = typeof data === 'string' ? [Buffer.from(data)] : data instanceof Uint8Array ? [data] : data;
  const tmp = tempPathFor(target);
  let size = 0;
  try {
    const fh = await open(tmp, 'wx');
    try {
      // writev takes at most IOV_MAX (1024) buffers per call.
      for (let i = 0; i < chunks.length; i += 512)
        size += (await fh.writev(chunks.slice(i, i + 512))).bytesWritten;
      await fh.sync();
    } finally {
      await fh.close();
    }
    await rename(tmp, target);
  } catch (e) {
    await rm(tmp, { force: true });
    throw e;
  }
  return size;
}

/** Atomic write of pretty JSON (indent 2, trailing newline). */
export async function writeJsonAtomic(target: string, value: unknown): Promise<void> {
  await writeFileAtomic(target, `${JSON.stringify(value, null, 2)}\n`);
}
