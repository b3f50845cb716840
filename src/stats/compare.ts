/**
 * Several datasets side by side for one basin: each dataset's answer on its own grid, exactly as
 * its own `stats` call gives it, labelled with the basin's area on that grid and how far it lies
 * from the polygon's geodesic area (grids differ: the cells a basin covers, and how much of each).
 */
import type { Database } from '../db/database.js';
import { QueryParameterError } from '../errors.js';
import { indexedEntry } from '../pourpoints/store.js';
import { byString } from '../util/compare.js';
import type { CubeZone, ExecuteOptions } from './cube.js';
import { type CompactStats, executeStats } from './engine.js';
import {
  answerWidth,
  checkAnswerSize,
  planInputs,
  planStats,
  type StatsPlan,
  type StatsQuery,
} from './plan.js';
import { statsStateKey } from './state.js';

/** Most datasets one comparison may name. */
export const MAX_COMPARED = 4;

export interface CompareQuery extends Omit<StatsQuery, 'dataset' | 'normals'> {
  /** Two or more active datasets, in the order to show them. */
  readonly datasets: readonly string[];
}

/** One dataset's part of a comparison: its stats body and the basin's area on its grid. */
export interface ComparedDataset extends CompactStats {
  dataset: string;
  /** The basin's area on this dataset's grid (its cells' in-basin areas summed), m². */
  basin_area_m2: number;
  /** That area against the polygon's geodesic area, percent (0 = the same; below 0 = less). */
  area_vs_polygon_percent: number;
}

export interface CompareBody {
  pourpoint: string;
  /** The basin polygon's geodesic area (the index's), m². */
  polygon_area_m2: number;
  datasets: ComparedDataset[];
}

/** A comparison resolved without reading a raster: one stats plan per dataset. */
export interface ComparePlan {
  readonly pourpoint: string;
  readonly polygonArea: number;
  readonly plans: readonly StatsPlan[];
}

/**
 * Plan a comparison: the variables asked for (default: those every dataset holds) must exist in
 * every dataset; the whole answer counts against the numbers cap.
 * @throws QueryParameterError for fewer than two or more than MAX_COMPARED datasets, a dataset named
 *   twice, or no common variable; as `planStats`.
 */
export async function planCompare(db: Database, q: CompareQuery): Promise<ComparePlan> {
  const names = q.datasets;
  if (names.length < 2 || names.length > MAX_COMPARED || new Set(names).size !== names.length)
    throw new QueryParameterError(
      `name 2 to ${MAX_COMPARED} different datasets to compare, got ${names.length === 0 ? 'none' : names.join(', ')}`,
      { parameter: 'dataset' },
    );
  const inputs = await Promise.all(names.map((n) => planInputs(db, n, q.pourpoint)));
  const keys = inputs.map((i) => Object.keys(i.dataset.config.variables));
  const common = keys[0]!.filter((k) => keys.every((ks) => ks.includes(k))).sort(byString);
  const wanted = q.variables && q.variables.length > 0 ? q.variables : common;
  const missing = wanted.filter((v) => !common.includes(v));
  if (wanted.length === 0 || missing.length > 0)
    throw new QueryParameterError(
      `${missing.length > 0 ? `'${missing.join("', '")}' is not in every dataset` : 'the datasets share no variable'}; variables of ${names.join(', ')} alike: ${common.join(', ') || 'none'}`,
      { parameter: 'variable', allowed: common },
    );
  const plans = inputs.map((i) => planStats(i, { ...q, dataset: i.dataset.name, variables: wanted }));
  checkAnswerSize(
    plans.reduce((t, p) => t + p.dates.length * answerWidth(p) * p.product, 0),
    q.maxValues,
    `${plans.length} datasets × their dates × cells × columns`,
  );
  const polygonArea = indexedEntry(inputs[0]!.index, q.pourpoint).areaMeters;
  return { pourpoint: plans[0]!.entry.triplet, polygonArea, plans };
}

/** A key that changes whenever a comparison's answer could. */
export const compareStateKey = (p: ComparePlan): string => p.plans.map(statsStateKey).join('/');

const basinArea = (zones: readonly CubeZone[]) => zones.reduce((t, z) => t + z.area_m2, 0);

/** Execute a comparison: each dataset's stats, one after another. */
export async function executeCompare(p: ComparePlan, opts: ExecuteOptions = {}): Promise<CompareBody> {
  const datasets: ComparedDataset[] = [];
  for (const plan of p.plans) {
    const body = await executeStats(plan, opts);
    const area = basinArea(body.zones);
    datasets.push({
      dataset: plan.dataset.name,
      basin_area_m2: area,
      area_vs_polygon_percent: (100 * (area - p.polygonArea)) / p.polygonArea,
      ...body,
    });
  }
  return { pourpoint: p.pourpoint, polygon_area_m2: p.polygonArea, datasets };
}

/**
 * Several active datasets side by side for one basin.
 * @throws QueryParameterError as `planCompare`.
 */
export async function computeCompare(
  db: Database,
  q: CompareQuery,
  opts: ExecuteOptions = {},
): Promise<CompareBody> {
  return executeCompare(await planCompare(db, q), opts);
}
