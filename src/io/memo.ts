import type { Store } from './store.js';

/** A signature that changes whenever a file is replaced or rewritten (local: inode, size, mtime ns). */
export function fileSignature(store: Store, path: string): string {
  return store.stat(path).signature;
}

/**
 * File timestamps advance in coarse ticks (a few ms): a change within the tick of the last one
 * keeps the mtime. A value loaded from a file changed less than this long ago is not trusted.
 */
const RACY_MS = 100;

/**
 * A value loaded from one file (or folder: its mtime changes with its entries), reloaded only
 * when the signature changes (one stat per `get`). A failed load is not cached: the next `get`
 * tries again; nor is a load of a file changed in the last RACY_MS.
 */
export class FileMemo<T> {
  private signature: string | null = null;
  private value: T | undefined;

  constructor(
    private readonly store: Store,
    private readonly path: string,
    private readonly load: () => Promise<T>,
  ) {}

  async get(): Promise<T> {
    const sig = this.store.stat(this.path);
    if (sig.signature !== this.signature || this.value === undefined) {
      this.value = await this.load();
      this.signature = Date.now() - sig.mtimeMs > RACY_MS ? sig.signature : null;
    }
    return this.value;
  }
}
