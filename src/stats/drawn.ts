/**
 * A drawn polygon: stats for a GeoJSON area that is no basin of the database, its exact coverage
 * computed on the fly (the same strip clipping an AOI raster holds), then planned and executed
 * as a basin with that AOI: the answer equals an imported basin's of the same polygon, value for
 * value. Limits, checked before any coverage: vertices, geodesic area, and window cells × dates.
 */

import { datesOf } from '../datasets/inventory.js';
import { openActiveDataset } from '../datasets/registry.js';
import type { Database } from '../db/database.js';
import { SnowdbError } from '../errors.js';
import { geodesicAreaSliced } from '../raster/geodesic.js';
import { type AreaGeometry, polygonsOf } from '../raster/geometry.js';
import { Slicer } from '../util/slices.js';
import { areaOnGrid } from './area.js';
import { selectDates } from './dates.js';
import { planStats, type StatsPlan, type StatsQuery } from './plan.js';

/** Most vertices a drawn polygon may have. */
export const MAX_DRAWN_VERTICES = 50_000;
/** Largest drawn polygon, m² (250,000 km²: the largest forecast basins, whole). */
export const MAX_DRAWN_AREA_M2 = 2.5e11;
/** Most grid cells of its window × selected dates one drawn query may read. */
export const MAX_DRAWN_CELL_DATES = 2e9;

export interface DrawnQuery extends Omit<StatsQuery, 'pourpoint'> {
  readonly geometry: AreaGeometry;
}

const tooLarge = (why: string) => new SnowdbError('query-too-large', `the drawn polygon ${why}`);

/**
 * Plan stats of a drawn polygon in an active dataset.
 * @throws SnowdbError `query-too-large` over a limit, `pourpoint-not-covered` outside the grid; as `planStats`.
 */
export async function planDrawn(db: Database, q: DrawnQuery, signal?: AbortSignal): Promise<StatsPlan> {
  const polygons = polygonsOf(q.geometry);
  const vertices = polygons.reduce((n, p) => n + p.reduce((m, r) => m + r.length, 0), 0);
  if (vertices > MAX_DRAWN_VERTICES)
    throw tooLarge(
      `has ${vertices} vertices, more than the limit of ${MAX_DRAWN_VERTICES.toLocaleString('en-US')} (simplify it)`,
    );
  // Once (the entry's area too), in slices: the loop's cheap requests go on meanwhile.
  const area = await geodesicAreaSliced(q.geometry, new Slicer(signal));
  if (area > MAX_DRAWN_AREA_M2)
    throw tooLarge(
      `covers ${(area / 1e6).toFixed(0)} km², more than the limit of ${MAX_DRAWN_AREA_M2 / 1e6} km²`,
    );
  const dataset = await openActiveDataset(db, q.dataset);
  const dates = await datesOf(db, dataset);
  // The coverage is one synchronous pass: a turn of the event loop before it, the limit checked around it.
  await new Promise((r) => setImmediate(r));
  signal?.throwIfAborted();
  const made = areaOnGrid(dataset, q.geometry, 'drawn polygon', (hash) => `drawn:${hash.slice(0, 16)}`, area);
  signal?.throwIfAborted();
  if (made === null)
    throw new SnowdbError(
      'pourpoint-not-covered',
      `the drawn polygon lies outside the grid of '${dataset.name}'`,
    );
  const { entry, drawn } = made;
  const n = selectDates(dates, q.dates).length;
  if (drawn.window.width * drawn.window.height * n > MAX_DRAWN_CELL_DATES)
    throw tooLarge(
      `spans ${drawn.window.width} × ${drawn.window.height} cells of '${dataset.name}'; × ${n} dates is more than ${MAX_DRAWN_CELL_DATES.toExponential(0)} cell-dates (fewer dates, or a smaller polygon)`,
    );
  const { geometry: _, ...query } = q;
  return planStats(
    { dataset, index: new Map([[drawn.id, entry]]), dates, drawn },
    { ...query, pourpoint: drawn.id },
  );
}
