import { stat } from 'node:fs/promises';

/** A stat signature that changes whenever a file is replaced or rewritten (inode, size, mtime ns). */
export async function fileSignature(path: string): Promise<string> {
  const s = await stat(path, { bigint: true }).catch(() => null);
  return s === null ? 'absent' : `${s.ino}:${s.size}:${s.mtimeNs}`;
}

/**
 * A value loaded from one file, reloaded only when the file's signature changes (one stat per
 * `get`). A failed load is not cached: the next `get` tries again.
 */
export class FileMemo<T> {
  private signature: string | null = null;
  private value: T | undefined;

  constructor(
    private readonly path: string,
    private readonly load: () => Promise<T>,
  ) {}

  async get(): Promise<T> {
    const sig = await fileSignature(this.path);
    if (sig !== this.signature || this.value === undefined) {
      this.value = await this.load();
      this.signature = sig;
    }
    return this.value;
  }
}
