/**
 * A dataset's stored rasters (AOI rasters, zone layers, date COGs) read onto a window of its grid,
 * from its store (the local disk, or a replica's published copy).
 */
import { SnowdbError } from '../errors.js';
import type { Store } from '../io/store.js';
import { Cog } from '../raster/cog.reader.js';
import type { TypedArray } from '../raster/dtype.js';
import { fullWindow, intersectWindows, parseWindowTag, type Window } from '../raster/grid.js';
import { TileCache } from '../raster/tile.cache.js';

/**
 * Rasters opened once for the reads of one answer and closed together: every basin of an
 * every-basin answer reads a date's COG through one open file and one tile cache (a tile under
 * two basins is decoded once).
 */
/** A date whose `variable` raster is gone: the one error every reader of date rasters gives. */
export const dateIncomplete = (dataset: string, date: string, variable: string): SnowdbError =>
  new SnowdbError('date-incomplete', `${dataset} ${date} has no '${variable}' raster (re-ingest that date)`);

export class RasterSession {
  private readonly opened = new Map<string, Promise<Cog | null>>();
  /** Decoded tiles of every raster of the session, bytes. */
  private readonly tiles = new TileCache(128 * 1024 * 1024);

  /** The raster at `path` of `store`, opened on first ask; null when it is absent. */
  open(store: Store, path: string): Promise<Cog | null> {
    let cog = this.opened.get(path);
    if (cog === undefined) {
      cog = openCog(store, path, this.tiles);
      this.opened.set(path, cog);
    }
    return cog;
  }

  /** Close every raster opened (the session is not used afterwards). */
  async close(): Promise<void> {
    const all = [...this.opened.values()];
    this.opened.clear();
    await Promise.all(
      all.map((c) =>
        c.then(
          (x) => x?.close(),
          () => undefined,
        ),
      ),
    );
  }
}

/** Open a stored raster (null when absent), its source closed again when the open fails. */
async function openCog(store: Store, path: string, tiles?: TileCache): Promise<Cog | null> {
  const src = store.source(path);
  try {
    return await Cog.open(src, tiles);
  } catch (e) {
    await src.close();
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw e;
  }
}

/**
 * Read a stored raster onto window `want` of the dataset grid, `fill` outside the raster. The
 * raster lies at the window its `tag` holds (col row width height), or covers the whole grid when
 * `tag` is null; `want` null = the raster's own window. One open per file; null when it is absent.
 * A raster that covers `want` is returned as read (its own pixel type, no copy; into `into` when
 * that is of its type and size). With `session`, the raster is opened through it (and stays open
 * until the session closes).
 */
export async function readOnto(
  store: Store,
  path: string,
  tag: string | null,
  want: Window | null,
  fill: number,
  via: { readonly session?: RasterSession | undefined; readonly into?: TypedArray | undefined } = {},
): Promise<{ data: TypedArray; window: Window } | null> {
  const { session, into } = via;
  const cog = await (session ? session.open(store, path) : openCog(store, path));
  if (cog === null) return null;
  try {
    const at = tag === null ? fullWindow(cog.grid) : parseWindowTag(cog.metadata.items[tag] ?? null);
    if (at === null) throw new SnowdbError('invalid-raster', `${path}: no ${tag} tag`);
    const w = want ?? at;
    const inter = intersectWindows(at, w);
    const local = inter && { ...inter, col: inter.col - at.col, row: inter.row - at.row };
    if (inter && local && inter.width === w.width && inter.height === w.height)
      return { data: await cog.readWindow(local, 0, into), window: w };
    const data = new Float64Array(w.width * w.height).fill(fill);
    if (inter && local) {
      const part = await cog.readWindow(local);
      for (let r = 0; r < inter.height; r++) {
        const dst = (inter.row - w.row + r) * w.width + (inter.col - w.col);
        for (let c = 0; c < inter.width; c++) data[dst + c] = part[r * inter.width + c]!;
      }
    }
    return { data, window: w };
  } finally {
    if (!session) await cog.close();
  }
}
