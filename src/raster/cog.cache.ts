import { Cog } from './cog.reader.js';
import { FileSource } from './source.js';
import { TileCache } from './tile.cache.js';

/**
 * Bounded caches for reading many COGs: at most `maxOpen` open files (least recently used closed
 * first) sharing one decoded-tile cache.
 */
export class CogCache {
  private readonly open = new Map<string, Promise<Cog>>();

  constructor(
    readonly maxOpen = 256,
    readonly tiles: TileCache = new TileCache(),
  ) {}

  get openCount(): number {
    return this.open.size;
  }

  /** The opened COG at `path` (header read once; later calls share it). */
  get(path: string): Promise<Cog> {
    const hit = this.open.get(path);
    if (hit) {
      this.open.delete(path);
      this.open.set(path, hit);
      return hit;
    }
    const p = Cog.open(new FileSource(path), this.tiles);
    p.catch(() => this.open.get(path) === p && this.open.delete(path));
    this.open.set(path, p);
    while (this.open.size > this.maxOpen) {
      const [oldest, cog] = this.open.entries().next().value as [string, Promise<Cog>];
      this.open.delete(oldest);
      void cog.then((c) => c.close()).catch(() => undefined);
    }
    return p;
  }

  /** Forget a path (e.g. after it was replaced on disk) and close its file. */
  async evict(path: string): Promise<void> {
    const p = this.open.get(path);
    this.open.delete(path);
    if (p) await (await p.catch(() => null))?.close();
  }

  async closeAll(): Promise<void> {
    const all = [...this.open.values()];
    this.open.clear();
    await Promise.all(all.map((p) => p.then((c) => c.close()).catch(() => undefined)));
  }
}
