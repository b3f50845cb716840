/**
 * Plan inputs without a database: the SNODAS template registered at /db/data/snodas, basins A
 * (partly covered) and B (not covered), and five ingested dates. No file is read or written.
 */
import { footprintOf, gridOf } from '../../src/datasets/config.js';
import type { Dataset } from '../../src/datasets/registry.js';
import { TEMPLATES } from '../../src/datasets/templates.js';
import { datasetPaths } from '../../src/db/layout.js';
import { localStore } from '../../src/io/store.js';
import type { IndexEntry } from '../../src/pourpoints/index-file.js';
import { parseDateRange } from '../../src/stats/dates.js';
import type { PlanInputs, StatsQuery } from '../../src/stats/plan.js';
import { Runtime } from '../../src/util/runtime.js';

const DIR = '/db/data/snodas';
const config = TEMPLATES.snodas!;
const dataset: Dataset = {
  name: 'snodas',
  link: { path: 'data/snodas/dataset.json', active: true },
  configPath: `${DIR}/dataset.json`,
  dir: DIR,
  paths: datasetPaths(DIR),
  config,
  grid: gridOf(config),
  footprint: footprintOf(config),
  store: localStore, // never read: planning reads no file
  runtime: new Runtime(),
};
const entry = (triplet: string, coverage: 'full' | 'partial' | 'none'): IndexEntry => ({
  triplet,
  name: triplet,
  point: [-113, 37],
  outlet: true,
  declaredAreaM2: null,
  outletOutsideM: null,
  areaMeters: 1e6,
  geometryHash: 'ab',
  basinBbox: [-113.1, 36.9, -112.9, 37.1],
  coverage: { snodas: coverage },
});
export const inputs: PlanInputs = {
  dataset,
  index: new Map([
    ['A:UT:USGS', entry('A:UT:USGS', 'partial')],
    ['B:UT:USGS', entry('B:UT:USGS', 'none')],
  ]),
  dates: ['2023-04-01', '2024-01-14', '2024-01-15', '2024-04-01', '2024-04-02'],
};
export const query = (q: Partial<StatsQuery>): StatsQuery => ({
  dataset: 'snodas',
  pourpoint: 'A:UT:USGS',
  dates: parseDateRange('../..'),
  ...q,
});
