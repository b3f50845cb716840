/**
 * The intervening area of a basin: the basin less the basins directly inside it (nesting.ts),
 * as a derived basin. Its weights are the basin's AOI weights less each child's on the same
 * window of the dataset grid (cell by cell, never below 0), planned and executed as a drawn area:
 * its cells' areas and volumes are the basin's less its children's.
 */
import { createHash } from 'node:crypto';
import { readOnto } from '../datasets/read-onto.js';
import type { Database } from '../db/database.js';
import { QueryParameterError, SnowdbError } from '../errors.js';
import { nestingAround } from '../pourpoints/nesting.js';
import { indexedEntry } from '../pourpoints/store.js';
import { planInputs, planStats, type StatsPlan, type StatsQuery } from './plan.js';

const missing = (id: string, dataset: string) =>
  new SnowdbError(
    'basin-raster-missing',
    `no AOI raster for ${id} in '${dataset}' (run 'snowdb pourpoint rasterize ${id}')`,
  );

/**
 * Plan stats of a basin less the basins directly inside it.
 * @throws QueryParameterError when no basin lies inside it; SnowdbError `basin-raster-missing`; as `planStats`.
 */
export async function planIntervening(db: Database, q: StatsQuery): Promise<StatsPlan> {
  const inputs = await planInputs(db, q.dataset, q.pourpoint);
  const parent = indexedEntry(inputs.index, q.pourpoint);
  const { children } = await nestingAround(db, parent.triplet);
  if (children.length === 0)
    throw new QueryParameterError(
      `no basin lies inside ${parent.triplet}: it has no intervening area to answer for`,
      {
        parameter: 'minus_children',
      },
    );
  const d = inputs.dataset;
  const whole = await readOnto(d.store, d.paths.aoi(parent.triplet), 'SNOWDB_AOI_WINDOW', null, 0);
  if (whole === null) throw missing(parent.triplet, d.name);
  const weights = Float64Array.from(whole.data);
  for (const child of children) {
    const part = await readOnto(d.store, d.paths.aoi(child), 'SNOWDB_AOI_WINDOW', whole.window, 0);
    if (part === null) throw missing(child, d.name);
    for (let i = 0; i < weights.length; i++) weights[i] = Math.max(0, weights[i]! - part.data[i]!);
  }
  const hash = createHash('sha256')
    .update([parent.geometryHash, ...children.map((c) => inputs.index.get(c)?.geometryHash ?? c)].join('\n'))
    .digest('hex');
  const id = `minus:${hash.slice(0, 16)}`;
  const entry = {
    ...parent,
    triplet: id,
    name: `${parent.name} less ${children.join(', ')}`,
    geometryHash: hash,
    areaMeters: weights.reduce((a, b) => a + b, 0),
  };
  return planStats(
    { ...inputs, index: new Map([[id, entry]]), drawn: { id, weights, window: whole.window } },
    { ...q, pourpoint: id },
  );
}
