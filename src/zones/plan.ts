import { createHash } from 'node:crypto';
import proj4 from 'proj4';
import { gridHash } from '../datasets/artifacts.js';
import type { Dataset } from '../datasets/registry.js';
import {
  fullWindow,
  type Grid,
  intersectWindows,
  pixelToWorld,
  tileAlignedWindow,
  type Window,
} from '../raster/grid.js';
import { boxWindow, mappedBox, outline, PixelMap, Sampler, samplesPerPixel } from '../raster/pixel-map.js';
import type { ZoneLayerSpec } from './layers.js';
import type { LonLatBounds } from './sources.js';

/** Bump when the bytes a zone layer holds for the same inputs change. */
export const ZONES_FORMAT = 'zones-v1';

/** One dataset a provider's layers are generated for. */
export interface Target {
  readonly dataset: Dataset;
  readonly layers: readonly ZoneLayerSpec[];
  /** Tile-aligned window of the dataset grid the layers cover (its basins' AOI windows). */
  readonly window: Window;
  /** Provenance: the layers are current when their SNOWDB_ZONE_HASH equals this. */
  readonly hash: string;
}

/** A target placed against an opened source: where to read and how to sample. */
export interface PlacedTarget extends Target {
  /** The window asked for (the basins' AOI windows); `window` is it clipped to what the source covers. */
  readonly requested: Window;
  /** Source pixels that can fall in `window` (inside the source grid). */
  readonly sourceWindow: Window;
  readonly map: PixelMap;
  readonly sampler: Sampler;
}

/** The provenance hash of a dataset's layers of one provider built from one source. */
export function zoneHash(d: Dataset, provider: string, sourceHash: string, w: Window): string {
  const key = [ZONES_FORMAT, provider, sourceHash, gridHash(d), w.col, w.row, w.width, w.height].join('\n');
  return `${ZONES_FORMAT}:${createHash('sha256').update(key).digest('hex').slice(0, 32)}`;
}

/** Lon/lat bounds of a window of a grid (its outline, 64 points per edge). */
export function windowLonLat(g: Grid, w: Window): LonLatBounds {
  const toLonLat = g.crs.geographic ? null : proj4(g.crs.proj4, 'EPSG:4326');
  const b = [Infinity, Infinity, -Infinity, -Infinity];
  for (const [c, r] of outline(w)) {
    const xy = pixelToWorld(g, c, r);
    const [lon, lat] = toLonLat ? (toLonLat.forward(xy) as [number, number]) : xy;
    b[0] = Math.min(b[0]!, lon);
    b[1] = Math.min(b[1]!, lat);
    b[2] = Math.max(b[2]!, lon);
    b[3] = Math.max(b[3]!, lat);
  }
  return b as unknown as LonLatBounds;
}

/** The union of lon/lat bounds. */
export function unionLonLat(bs: readonly LonLatBounds[]): LonLatBounds {
  return [
    Math.min(...bs.map((b) => b[0])),
    Math.min(...bs.map((b) => b[1])),
    Math.max(...bs.map((b) => b[2])),
    Math.max(...bs.map((b) => b[3])),
  ];
}

/**
 * Place a target against a source grid: its window clipped to what the source covers (tile
 * aligned), the source pixels to read for it, and the points per source pixel. Null when the
 * source covers none of the target's window.
 */
export function placeTarget(t: Target, src: Grid): PlacedTarget | null {
  const g = t.dataset.grid;
  const toTarget = new PixelMap(src, g);
  const covered = boxWindow(mappedBox(toTarget, fullWindow(src)));
  const inter = covered && intersectWindows(covered, t.window);
  if (!inter) return null;
  const window = intersectWindows(tileAlignedWindow(g, inter), t.window)!;
  const toSource = new PixelMap(g, src);
  const reach = boxWindow(mappedBox(toSource, window), 1);
  const sourceWindow = reach && intersectWindows(reach, fullWindow(src));
  if (!sourceWindow) return null;
  const s = samplesPerPixel(
    toTarget,
    sourceWindow.col + sourceWindow.width / 2,
    sourceWindow.row + sourceWindow.height / 2,
  );
  return {
    ...t,
    window,
    requested: t.window,
    sourceWindow,
    map: toTarget,
    sampler: new Sampler(s, sourceWindow.col, sourceWindow.width, window),
  };
}
