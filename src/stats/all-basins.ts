/**
 * Every basin at once: one short date range, the same zone axes and variables, for every basin
 * the dataset covers (sorted by triplet). Each basin runs the one-basin engine, so each answer
 * equals its own stats call value for value; prepared basins and store pages are shared caches.
 */
import { createHash } from 'node:crypto';
import { datesOf } from '../datasets/inventory.js';
import { RasterSession } from '../datasets/read-onto.js';
import { openActiveDataset } from '../datasets/registry.js';
import type { Database } from '../db/database.js';
import { QueryParameterError } from '../errors.js';
import { indexOf } from '../pourpoints/store.js';
import { seriesView as viewOf } from '../series/read.js';
import { byString } from '../util/compare.js';
import { Slicer } from '../util/slices.js';
import type { ZoneRef } from '../zones/schemes.js';
import { executeAnswer, executeWithNormals, type StatsWithNormals } from './anomalies.js';
import { emptySelectionNote, selectDates } from './dates.js';
import type { BoxedRows, CompactStats, ExecuteOptions, TableRows } from './engine.js';
import type { Reference } from './normals.js';
import {
  answerWidth,
  checkAnswerSize,
  planAxes,
  planStats,
  type SharedPlanning,
  type StatsPlan,
  type StatsQuery,
} from './plan.js';
import { statsStateKey } from './state.js';

/** Most dates one all-basins query may select. */
export const MAX_ALL_BASINS_DATES = 31;

/** Every basin's query: a stats query without the basin (normals: each basin against its own reference years). */
export type AllBasinsQuery = Omit<StatsQuery, 'pourpoint'>;

/** One basin's part of an all-basins answer: the compact body without the shared header. */
export interface BasinStats<R = BoxedRows> {
  pourpoint: string;
  zones: { zone: ZoneRef[]; area_m2: number }[];
  results: R;
  /** With normals: this basin's reference years. */
  reference?: Reference;
}

export interface AllBasinsStats<R = BoxedRows> {
  zone_layers: string[];
  variables: string[];
  basins: BasinStats<R>[];
}

/** The plans of an all-basins query, one per covered basin (sorted by triplet): no raster read. */
export interface AllBasinsPlan {
  readonly plans: readonly StatsPlan[];
  /** What the user should know about the answer (no ingested date selected, with the nearest held). */
  readonly notes: readonly string[];
}

/**
 * Plan every covered basin of an active dataset.
 * @throws QueryParameterError when the dates select more than MAX_ALL_BASINS_DATES; as `planStats`.
 */
export async function planAllBasins(
  db: Database,
  q: AllBasinsQuery,
  signal?: AbortSignal,
): Promise<AllBasinsPlan> {
  const dataset = await openActiveDataset(db, q.dataset);
  const index = await indexOf(db);
  const dates = await datesOf(db, dataset);
  const n = selectDates(dates, q.dates).length;
  if (n > MAX_ALL_BASINS_DATES)
    throw new QueryParameterError(
      `the dates select ${n} dates; every basin at once takes at most ${MAX_ALL_BASINS_DATES} (ask one basin for long series)`,
      { parameter: 'date' },
    );
  const shared: SharedPlanning = { axes: planAxes(dataset, q), signatures: new Map() };
  const covered = [...index.values()]
    .filter((e) => (e.coverage[dataset.name] ?? 'none') !== 'none')
    .map((e) => e.triplet)
    .sort(byString);
  // Hundreds of basins: planned in slices, so a server's cheap requests go on meanwhile.
  const slicer = new Slicer(signal);
  const plans: StatsPlan[] = [];
  for (const pourpoint of covered) {
    plans.push(planStats({ dataset, index, dates }, { ...q, pourpoint }, shared));
    await slicer.pause();
  }
  // The whole answer is one body: its numbers are the sum over the basins.
  const sizes = plans.map((p) => p.dates.length * answerWidth(p) * p.product);
  checkAnswerSize(
    sizes.reduce((a, b) => a + b, 0),
    q.maxValues,
    `${plans.length} basins × ${n} dates × their cells × ${plans[0] ? answerWidth(plans[0]) : 0} columns`,
  );
  // Only an empty selection has a note: the dates were selected above already.
  return { plans, notes: n === 0 ? [emptySelectionNote(dataset.name, dates, q.dates)!] : [] };
}

/** A key that changes whenever any basin's answer could (the files each plan reads, and the plans). */
export async function allBasinsStateKey(p: AllBasinsPlan, signal?: AbortSignal): Promise<string> {
  const keys: string[] = [];
  const slicer = new Slicer(signal);
  for (const plan of p.plans) {
    keys.push(statsStateKey(plan));
    await slicer.pause();
  }
  return createHash('sha256').update(JSON.stringify(keys)).digest('base64url').slice(0, 27);
}

/** Run the plans of an all-basins query, one basin after another. */
export function executeAllBasins(p: AllBasinsPlan, opts: ExecuteOptions = {}): Promise<AllBasinsStats> {
  return everyBasin(p, opts, executeWithNormals);
}

/** As `executeAllBasins`, each basin's rows kept as its table when there are no normals (an answer going out as JSON). */
export function executeAllBasinsTable(
  p: AllBasinsPlan,
  opts: ExecuteOptions = {},
): Promise<AllBasinsStats<BoxedRows | TableRows>> {
  return everyBasin(p, opts, executeAnswer);
}

async function everyBasin<R>(
  p: AllBasinsPlan,
  opts: ExecuteOptions,
  execute: (plan: StatsPlan, opts: ExecuteOptions) => Promise<CompactStats<R>>,
): Promise<AllBasinsStats<R>> {
  const out: AllBasinsStats<R> = { zone_layers: [], variables: [], basins: [] };
  // One open and one tile cache per raster for every basin (a date's COG is read by all of them).
  const rasters = new RasterSession();
  const first = p.plans[0];
  const seriesView = first && opts.series !== false ? await viewOf(first.dataset) : null;
  // Cached reads resolve as microtasks: without slices, hundreds of basins could run in one turn.
  const slicer = new Slicer(opts.signal);
  try {
    for (const plan of p.plans) {
      await addBasin(plan, { ...opts, rasters, seriesView }, out, execute);
      await slicer.pause();
    }
  } finally {
    await rasters.close();
  }
  return out;
}

/** Execute one basin's plan into an all-basins answer. */
async function addBasin<R>(
  plan: StatsPlan,
  opts: ExecuteOptions,
  out: AllBasinsStats<R>,
  execute: (plan: StatsPlan, opts: ExecuteOptions) => Promise<CompactStats<R>>,
): Promise<void> {
  const body = await execute(plan, opts);
  out.zone_layers = body.zone_layers;
  out.variables = body.variables;
  const { reference } = body as Partial<StatsWithNormals>;
  out.basins.push({
    pourpoint: plan.query.pourpoint,
    zones: body.zones,
    results: body.results,
    ...(reference && { reference }),
  });
}

/**
 * Stats of every covered basin of an active dataset.
 * @throws QueryParameterError when the dates select more than MAX_ALL_BASINS_DATES; as `planStats`.
 */
export async function computeAllBasins(
  db: Database,
  q: AllBasinsQuery,
  opts: ExecuteOptions = {},
): Promise<AllBasinsStats> {
  return executeAllBasins(await planAllBasins(db, q), opts);
}
