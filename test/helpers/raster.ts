import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { gridOf } from '../../src/datasets/config.js';
import { TEMPLATES } from '../../src/datasets/templates.js';
import type { TypedArray } from '../../src/raster/dtype.js';
import type { AreaGeometry } from '../../src/raster/geometry.js';
import type { Grid } from '../../src/raster/grid.js';

/** sha256 of a typed array's bytes (little-endian, as on this machine and in our TIFFs). */
export function sha256Of(a: TypedArray): string {
  return createHash('sha256')
    .update(new Uint8Array(a.buffer, a.byteOffset, a.byteLength))
    .digest('hex');
}

/** A deterministic pseudo-random sequence in [0, 1) (mulberry32). */
export function seeded(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Absolute path of a committed fixture (dist/test/helpers → test/fixtures). */
export function fixturePath(rel: string): string {
  return fileURLToPath(new URL(`../../../test/fixtures/${rel}`, import.meta.url));
}

/** The basin geometry of a committed BAGIS record. */
export async function basinOf(triplet: string): Promise<AreaGeometry> {
  const rec = JSON.parse(
    await readFile(fixturePath(`pourpoints/${triplet.replaceAll(':', '_')}.geojson`), 'utf8'),
  ) as {
    geometries: { type: string }[];
  };
  const g = rec.geometries.find((x) => x.type === 'Polygon' || x.type === 'MultiPolygon');
  if (g === undefined) throw new Error(`${triplet} has no basin`);
  return g as unknown as AreaGeometry;
}

/** The SNODAS masked grid (post-2013): 6935 × 3351 at 30″ on EPSG:4326 (the template's). */
export const SNODAS_GRID: Grid = gridOf(TEMPLATES.snodas!);

/** The SPIRES NRT grid: MODIS sinusoid tiles h08–h10 × v04–v05 at 463 m (the instarr template's). */
export const SPIRES_GRID: Grid = gridOf(TEMPLATES.instarr!);

/** The UA SWANN 800 m grid: 7025 × 3105 on EPSG:4269 (the template's). */
export const SWANN_GRID: Grid = gridOf(TEMPLATES['swann-800m']!);

/** A grid as the oracle reads it (test/oracle/gdal_oracle.py `cells`, `cell-sets`). */
export const gridSpec = (grid: Grid) => ({
  geographic: grid.crs.geographic,
  a: grid.crs.ellipsoid.a,
  invf: grid.crs.ellipsoid.invf,
  proj4: grid.crs.proj4,
  originX: grid.originX,
  originY: grid.originY,
  cellWidth: grid.cellWidth,
  cellHeight: grid.cellHeight,
});

/**
 * Our coverage weights (row-major over a window) against OGR's cells of the same window sharing
 * area with the polygon (`cell-sets`: [window index, intersection area, cell area]): the same cells,
 * every weight within 1e-9 of its cell's area, and of itself once it is 0.1 % of the cell or more
 * (slivers below that carry both sides' ~1e-16 × cell-area rounding). @returns the cells compared.
 */
export function assertCellsMatch(
  label: string,
  weights: Float64Array,
  ogr: readonly [number, number, number][],
): number {
  const ours = [...weights.keys()].filter((i) => weights[i]! > 0);
  assert.deepEqual(
    ours,
    ogr.map(([i]) => i),
    `${label}: cells with weight differ from OGR's`,
  );
  for (const [i, inter, cellArea] of ogr) {
    const d = Math.abs(weights[i]! - inter);
    assert.ok(d <= 1e-9 * cellArea, `${label} cell ${i}: ${weights[i]} vs OGR ${inter}`);
    if (inter >= 1e-3 * cellArea)
      assert.ok(d <= 1e-9 * inter, `${label} cell ${i}: ${weights[i]} vs OGR ${inter} (relative)`);
  }
  return ours.length;
}
