/**
 * A dataset's stored rasters (AOI rasters, zone layers, date COGs) read onto a window of its grid,
 * from whichever store holds the path (the local disk, or a replica's published copy).
 */
import { SnowdbError } from '../errors.js';
import { storeOf } from '../io/store.js';
import { Cog } from '../raster/cog.reader.js';
import type { TypedArray } from '../raster/dtype.js';
import { fullWindow, intersectWindows, parseWindowTag, type Window } from '../raster/grid.js';

/**
 * Read a stored raster onto window `want` of the dataset grid, `fill` outside the raster. The
 * raster lies at the window its `tag` holds (col row width height), or covers the whole grid when
 * `tag` is null; `want` null = the raster's own window. One open per file; null when it is absent.
 * A raster that covers `want` is returned as read (its own pixel type, no copy).
 */
export async function readOnto(
  path: string,
  tag: string | null,
  want: Window | null,
  fill: number,
): Promise<{ data: TypedArray; window: Window } | null> {
  const src = storeOf(path).source(path);
  try {
    const cog = await Cog.open(src).catch((e: NodeJS.ErrnoException) => {
      if (e.code === 'ENOENT') return null;
      throw e;
    });
    if (cog === null) return null;
    const at = tag === null ? fullWindow(cog.grid) : parseWindowTag(cog.metadata.items[tag] ?? null);
    if (at === null) throw new SnowdbError('invalid-raster', `${path}: no ${tag} tag`);
    const w = want ?? at;
    const inter = intersectWindows(at, w);
    const local = inter && { ...inter, col: inter.col - at.col, row: inter.row - at.row };
    if (inter && local && inter.width === w.width && inter.height === w.height)
      return { data: await cog.readWindow(local), window: w };
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
    await src.close();
  }
}
