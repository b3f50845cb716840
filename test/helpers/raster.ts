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
