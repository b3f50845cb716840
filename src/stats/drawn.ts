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
import { parseAreaGeometry } from '../pourpoints/record.js';
import { compute } from './compute-pool.js';
import { selectDates } from './dates.js';
import { type DrawnJob, type FlatArea, flattenArea } from './drawn-prepare.js';
import { planStats, type StatsPlan, type StatsQuery } from './plan.js';

/** Most grid cells of its window × selected dates one drawn query may read. */
export const MAX_DRAWN_CELL_DATES = 2e9;

export interface DrawnQuery extends Omit<StatsQuery, 'pourpoint'> {
  /** The polygon's positions (`drawnArea`), checked on the worker. */
  readonly area: FlatArea;
  /** What the polygon is called in messages. */
  readonly label: string;
}

/**
 * A drawn area's GeoJSON (a Polygon or MultiPolygon, bare or in a Feature) as flat positions: a
 * few bytes a vertex where the parsed JSON holds ~100 (a server's queued requests keep only these).
 * @throws SnowdbError `invalid-geometry` naming what is out of shape, `<label>: <reason>`.
 */
export function drawnArea(body: unknown, label: string): FlatArea {
  // A body out of shape is named by the parser (it throws); one it accepts is flat too.
  const flat = flattenArea(body) ?? flattenArea(parseAreaGeometry(body, label));
  if (flat === null) throw new Error('a geometry the parser accepts did not flatten');
  return flat;
}

/**
 * Plan stats of a drawn polygon in an active dataset: the polygon checked, measured and covered
 * on a worker thread (drawn-prepare.ts), so the server's loop goes on meanwhile.
 * @throws SnowdbError `invalid-geometry`, `query-too-large` over a limit,
 *   `pourpoint-not-covered` outside the grid; as `planStats`.
 */
export async function planDrawn(db: Database, q: DrawnQuery, signal?: AbortSignal): Promise<StatsPlan> {
  const dataset = await openActiveDataset(db, q.dataset);
  const dates = await datesOf(db, dataset);
  const job: DrawnJob = { area: q.area, label: q.label, grid: dataset.grid, dataset: dataset.name };
  const made = await compute(db.runtime, 'drawn', job, signal);
  if (!made.ok) throw new SnowdbError(made.key, made.message);
  const { entry, drawn } = made;
  const n = selectDates(dates, q.dates).length;
  if (drawn.window.width * drawn.window.height * n > MAX_DRAWN_CELL_DATES)
    throw new SnowdbError(
      'query-too-large',
      `the drawn polygon spans ${drawn.window.width} × ${drawn.window.height} cells of '${dataset.name}'; × ${n} dates is more than ${MAX_DRAWN_CELL_DATES.toExponential(0)} cell-dates (fewer dates, or a smaller polygon)`,
    );
  const { area: _, label: _label, ...query } = q;
  return planStats(
    { dataset, index: new Map([[drawn.id, entry]]), dates, drawn },
    { ...query, pourpoint: drawn.id },
  );
}
