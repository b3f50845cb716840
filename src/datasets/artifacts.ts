import { createHash } from 'node:crypto';
import { mkdir, rm } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { namesIn, pathExists } from '../io/fs.js';
import { localStore, type Store } from '../io/store.js';
import { rowAreas } from '../raster/cell-area.js';
import { Cog } from '../raster/cog.reader.js';
import { writeCog, writeCogRows } from '../raster/cog.writer.js';
import { coverageWeights, polygonCoverage } from '../raster/coverage.js';
import type { AreaGeometry } from '../raster/geometry.js';
import {
  type Grid,
  parseWindowTag,
  subGrid,
  tileAlignedWindow,
  type Window,
  windowTag,
} from '../raster/grid.js';
import { mapPool } from '../util/pool.js';
import { weakMemo } from '../util/weak-memo.js';
import type { SparseWeights } from './coverage-index.js';
import type { Dataset } from './registry.js';

/** Bump when the bytes an area raster holds for the same grid change. */
const FORMAT = 'v2';

/**
 * Bump when the bytes an AOI raster holds for the same basin and grid change. v3: cells that share
 * no area with the basin weigh exactly 0 (v2 rasters gave some of them 1e-13…5e-10 m² of drift).
 */
export const AOI_FORMAT = 'v3';

/** True when an AOI raster's SNOWDB_AOI_HASH comes from a coverage older than this one. */
export function olderAoiFormat(hash: string | undefined): boolean {
  const m = /^v(\d+):/.exec(hash ?? '');
  return m !== null && Number(m[1]) < Number(AOI_FORMAT.slice(1));
}

/** sha256 prefix of a dataset's grid definition: artifacts built on another grid are stale. */
export const gridHash = weakMemo((d: Dataset): string =>
  createHash('sha256').update(JSON.stringify(d.config.grid)).digest('hex').slice(0, 16),
);

/**
 * An AOI raster's own tile size, px: 64 where the grid's tiles divide into it (its window stays
 * aligned to the grid's tiles). A HUC12 covers a few dozen cells: 64² tiles deflate ~16× fewer
 * bytes than 256² ones (the zero tiles around it encode once per file).
 */
const aoiTile = (g: Grid): number => (g.tileSize % 64 === 0 ? 64 : g.tileSize);

/** The SNOWDB_AOI_HASH a current AOI raster of a basin with this geometry hash carries. */
export function aoiHash(d: Dataset, geometryHash: string): string {
  return `${AOI_FORMAT}:${geometryHash}:${gridHash(d)}`;
}

/** Triplet → the AOI hash a current raster carries, for each of `entries` (basins with a geometry hash). */
export function currentAoiHashes(
  d: Dataset,
  entries: Iterable<{ readonly triplet: string; readonly geometryHash: string }>,
): Map<string, string> {
  return new Map([...entries].map((e) => [e.triplet, aoiHash(d, e.geometryHash)]));
}

/** A raster's grid and GDAL metadata items, or null when the file is absent or unreadable. */
export async function readHeader(
  store: Store,
  path: string,
): Promise<{ grid: Grid; items: Record<string, string> } | null> {
  const src = store.source(path);
  try {
    const cog = await Cog.open(src);
    return { grid: cog.grid, items: cog.metadata.items };
  } catch {
    return null;
  } finally {
    await src.close();
  }
}

/** A provenance tag stored in a raster's GDAL metadata, or null when the file is absent or unreadable. */
export async function readTag(store: Store, path: string, tag: string): Promise<string | null> {
  return (await readHeader(store, path))?.items[tag] ?? null;
}

/** The tile-aligned windows of every basin AOI raster a dataset holds, sorted by file name. */
export async function aoiWindows(d: Dataset): Promise<Window[]> {
  const files = (await namesIn(d.store, d.paths.aoiDir)).filter((f) => f.endsWith('.tif')).sort();
  const tags = await mapPool(files, 8, (f) => readTag(d.store, join(d.paths.aoiDir, f), 'SNOWDB_AOI_WINDOW'));
  return tags.map(parseWindowTag).filter((w): w is Window => w !== null);
}

/** What building one artifact did. */
export type BuildAction = 'built' | 'current' | 'removed' | 'outside';

/**
 * The dataset's area raster: each cell's area in m² (float32, ellipsoidal on geographic grids).
 * Rebuilt only when missing or built for another grid (tag SNOWDB_GRID_HASH).
 */
export async function buildAreaRaster(d: Dataset, rebuild = false): Promise<BuildAction> {
  const path = d.paths.area;
  const hash = `${FORMAT}:${gridHash(d)}`;
  if (!rebuild && (await readTag(localStore, path, 'SNOWDB_GRID_HASH')) === hash) return 'current';
  const areas = rowAreas(d.grid);
  // Row by row: a whole float32 grid is 93 MB for SNODAS, whose first touch costs more than the rest.
  await writeCogRows(path, d.grid, 'float32', (r, _c, out) => out.fill(areas[r]!), {
    predictor: 3,
    description: 'cell area (m2)',
    metadata: { SNOWDB_DATASET: d.name, SNOWDB_GRID_HASH: hash, UNITS: 'm2' },
  });
  return 'built';
}

/**
 * A basin's AOI raster on the dataset grid: exact covered fraction × cell area (m², float64),
 * over the whole tiles its bounds touch (tag SNOWDB_AOI_WINDOW = col row width height in dataset
 * pixels). Rebuilt only when the basin geometry or the grid changed (tag SNOWDB_AOI_HASH).
 * A basin the dataset does not cover gets no raster (a stale one is removed). `onBuilt` gets the
 * weights of a raster built (for the coverage index).
 */
export async function buildAoi(
  d: Dataset,
  triplet: string,
  basin: AreaGeometry,
  geometryHash: string,
  covered: boolean,
  rebuild = false,
  onBuilt?: (weights: SparseWeights) => void,
): Promise<BuildAction> {
  const path = d.paths.aoi(triplet);
  const hash = aoiHash(d, geometryHash);
  if (covered && !rebuild && (await readTag(localStore, path, 'SNOWDB_AOI_HASH')) === hash) return 'current';
  const cov = covered ? polygonCoverage(d.grid, basin) : null;
  if (cov === null) {
    const existed = await pathExists(path);
    await rm(path, { force: true });
    return existed ? 'removed' : 'outside';
  }
  await mkdir(dirname(path), { recursive: true });
  const w = tileAlignedWindow(d.grid, cov.window);
  const weights = coverageWeights(d.grid, cov);
  const data = new Float64Array(w.width * w.height);
  const dc = cov.window.col - w.col;
  const dr = cov.window.row - w.row;
  let total = 0;
  let n = 0;
  for (let k = 0; k < cov.window.height; k++) {
    for (let c = 0; c < cov.window.width; c++) {
      const v = weights[k * cov.window.width + c]!;
      data[(k + dr) * w.width + c + dc] = v;
      total += v;
      if (v > 0) n++;
    }
  }
  // The positive pixels (window order), from the coverage window alone: what the index keeps.
  const at = new Int32Array(n);
  const positive = new Float64Array(n);
  for (let k = 0, j = 0; k < cov.window.height; k++) {
    for (let c = 0; c < cov.window.width; c++) {
      const v = weights[k * cov.window.width + c]!;
      if (v > 0) {
        at[j] = (k + dr) * w.width + c + dc;
        positive[j++] = v;
      }
    }
  }
  await writeCog(path, { ...subGrid(d.grid, w), tileSize: aoiTile(d.grid) }, data, {
    predictor: 3,
    description: 'basin area in cell (m2)',
    metadata: {
      SNOWDB_DATASET: d.name,
      SNOWDB_TRIPLET: triplet,
      SNOWDB_AOI_HASH: hash,
      SNOWDB_AOI_WINDOW: windowTag(w),
      SNOWDB_AOI_AREA_M2: String(total),
    },
  });
  onBuilt?.({ window: w, at, weight: positive });
  return 'built';
}
