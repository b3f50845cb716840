/**
 * Every basin at once: one short date range, the same zone axes and variables, for every basin
 * the dataset covers (sorted by triplet). Their cubes are made in one pass (`sweep.ts`), each
 * basin's pixels added in the one-basin engine's order, so each answer equals its own stats call
 * value for value.
 */
import { createHash } from 'node:crypto';
import { coverageIndexOf } from '../datasets/coverage-index.js';
import { datesOf } from '../datasets/inventory.js';
import { RasterSession } from '../datasets/read-onto.js';
import { openActiveDataset } from '../datasets/registry.js';
import type { Database } from '../db/database.js';
import { QueryParameterError } from '../errors.js';
import type { IndexEntry } from '../pourpoints/index-file.js';
import { indexOf } from '../pourpoints/store.js';
import { seriesView as viewOf } from '../series/read.js';
import { byString } from '../util/compare.js';
import { Slicer } from '../util/slices.js';
import { weakMemo } from '../util/weak-memo.js';
import type { ZoneRef } from '../zones/schemes.js';
import { answerTable, answerWithNormals, type StatsWithNormals } from './anomalies.js';
import { type Cube, executeCube } from './cube.js';
import { emptySelectionNote, selectDates } from './dates.js';
import type { BoxedRows, CompactStats, ExecuteOptions, TableRows } from './engine.js';
import { keepPlan, keptPlan } from './kept-plans.js';
import type { Reference } from './normals.js';
import {
  answerWidth,
  checkAnswerSize,
  type PlanInputs,
  planAxes,
  planStats,
  type SharedPlanning,
  type StatsPlan,
  type StatsQuery,
} from './plan.js';
import { everyBasinStateKey } from './state.js';
import { executeSweep, sweepable } from './sweep.js';

/** Most dates one all-basins query may select. */
export const MAX_ALL_BASINS_DATES = 31;

/** Every basin's query: a stats query without the basin (normals: each basin against its own reference years). */
export type AllBasinsQuery = Omit<StatsQuery, 'pourpoint'> & {
  /** Answer only the newest date the dataset holds among the selected ones (a map's "as of" colours). */
  readonly lastHeld?: boolean;
};

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
  const covered = await coveredBasins(db, q.dataset);
  // A server asked the same every-basin query again (a map's colours) reuses its plans while the
  // index, the coverage index and every state file they rest on are unchanged.
  const key = JSON.stringify(q);
  const again = keptPlan<AllBasinsPlan>(covered.inputs, key);
  if (again !== undefined) return again;
  const plan = await planFresh(covered, q, signal);
  keepPlan(covered.inputs.index, key, plan);
  return plan;
}

async function planFresh(
  covered: CoveredBasins,
  q: AllBasinsQuery,
  signal?: AbortSignal,
): Promise<AllBasinsPlan> {
  const { dates } = covered.inputs;
  const last = q.lastHeld === true ? selectDates(dates, q.dates).at(-1) : undefined;
  if (last !== undefined) q = { ...q, dates: { type: 'DateRange', start_date: last, end_date: last } };
  const n = selectDates(dates, q.dates).length;
  if (n > MAX_ALL_BASINS_DATES)
    throw new QueryParameterError(
      `the dates select ${n} dates; every basin at once takes at most ${MAX_ALL_BASINS_DATES} (ask one basin for long series)`,
      { parameter: 'date' },
    );
  // The whole answer is one body, sized before any basin is planned: every basin's plan has the
  // first one's dates, cells and columns.
  const first = covered.pourpoints[0];
  if (first !== undefined) {
    const p = planStats(covered.inputs, { ...q, pourpoint: first });
    const width = answerWidth(p);
    checkAnswerSize(
      covered.pourpoints.length * p.dates.length * width * p.product,
      q.maxValues,
      `${covered.pourpoints.length} basins × ${n} dates × their cells × ${width} columns`,
      `ask for fewer dates, zones or variables, or export every basin (snowdb export ${q.dataset}, or GET /datasets/${q.dataset}/export: a file, any size)`,
    );
  }
  const plans = await planEach(covered, q, signal, (inputs, pourpoint, shared) =>
    planStats(inputs, { ...q, pourpoint }, shared),
  );
  // Only an empty selection has a note: the dates were selected above already.
  return { plans, notes: n === 0 ? [emptySelectionNote(q.dataset, dates, q.dates)!] : [] };
}

/** An active dataset's plan inputs and the basins it covers (sorted by triplet). */
export interface CoveredBasins {
  readonly inputs: PlanInputs;
  readonly pourpoints: readonly string[];
}

/** The basins an active dataset covers. */
export async function coveredBasins(db: Database, name: string): Promise<CoveredBasins> {
  const dataset = await openActiveDataset(db, name);
  const index = await indexOf(db);
  const dates = await datesOf(db, dataset);
  const pourpoints = coveredOf(index, dataset.name);
  return { inputs: { dataset, index, dates, coverage: await coverageIndexOf(db, dataset) }, pourpoints };
}

/** The triplets a dataset covers, sorted, once per index read and dataset. */
function coveredOf(index: ReadonlyMap<string, IndexEntry>, dataset: string): readonly string[] {
  const byDataset = covering(index);
  let list = byDataset.get(dataset);
  if (list === undefined) {
    list = [...index.values()]
      .filter((e) => (e.coverage[dataset] ?? 'none') !== 'none')
      .map((e) => e.triplet)
      .sort(byString);
    byDataset.set(dataset, list);
  }
  return list;
}

const covering = weakMemo((_: ReadonlyMap<string, IndexEntry>) => new Map<string, readonly string[]>());

/** Plan every covered basin with `planOne`, zone axes parsed once and shared. */
export async function planEach<P>(
  covered: CoveredBasins,
  q: Pick<StatsQuery, 'zones' | 'maxZoneCells'>,
  signal: AbortSignal | undefined,
  planOne: (inputs: PlanInputs, pourpoint: string, shared: SharedPlanning) => P,
): Promise<P[]> {
  const shared: SharedPlanning = {
    axes: planAxes(covered.inputs.dataset, q),
    signatures: new Map(),
    common: [],
  };
  // Hundreds of basins: planned in slices, so a server's cheap requests go on meanwhile.
  const slicer = new Slicer(signal);
  const plans: P[] = [];
  for (const pourpoint of covered.pourpoints) {
    plans.push(planOne(covered.inputs, pourpoint, shared));
    await slicer.pause();
  }
  return plans;
}

/** A key that changes whenever any of the basins' answers could (`keyOf`: one plan's key). */
export async function everyKey<P>(
  plans: readonly P[],
  keyOf: (p: P) => string,
  signal?: AbortSignal,
): Promise<string> {
  const keys: string[] = [];
  const slicer = new Slicer(signal);
  for (const plan of plans) {
    keys.push(keyOf(plan));
    await slicer.pause();
  }
  return createHash('sha256').update(JSON.stringify(keys)).digest('base64url').slice(0, 27);
}

/**
 * Execute every basin's plan, one after another, each answer yielded as it is made, sharing one
 * raster session and series view (`statsOf`: a plan's stats plan, whose dataset they are of).
 */
export async function* eachBasin<P, B>(
  plans: readonly P[],
  statsOf: (p: P) => StatsPlan,
  opts: ExecuteOptions,
  execute: (plan: P, opts: ExecuteOptions, i: number) => Promise<B>,
): AsyncGenerator<B> {
  // One open and one tile cache per raster for every basin (a date's COG is read by all of them).
  const rasters = new RasterSession();
  const first = plans[0];
  const seriesView = first && opts.series !== false ? await viewOf(statsOf(first).dataset) : null;
  // Cached reads resolve as microtasks: without slices, hundreds of basins could run in one turn.
  const slicer = new Slicer(opts.signal);
  const shared = { ...opts, rasters, seriesView };
  try {
    for (const [i, plan] of plans.entries()) {
      yield await execute(plan, shared, i);
      await slicer.pause();
    }
  } finally {
    await rasters.close();
  }
}

/** Bytes of sums one sweep holds at most (Σ w and Σ v·w per basin, date, cell and variable). */
const SWEEP_SUMS_BYTES = 64 * 1024 * 1024;

/** Bytes of a plan's sums: Σ w and Σ v·w (float64) per date, cell and variable. */
const sumsBytes = (p: StatsPlan) => 16 * p.dates.length * p.product * p.variables.length;

/** The plans in consecutive groups whose sums fit `budget` bytes (a group holds one plan at least). */
function sweepGroups(plans: readonly StatsPlan[], budget: number): StatsPlan[][] {
  const groups: StatsPlan[][] = [];
  let bytes = 0;
  for (const p of plans) {
    const b = sumsBytes(p);
    if (groups.length === 0 || bytes + b > budget) {
      groups.push([]);
      bytes = 0;
    }
    groups.at(-1)!.push(p);
    bytes += b;
  }
  return groups;
}

/**
 * Basins from which a long date range is swept (each date's COG read once for all) rather than
 * read basin by basin from the series store: 2 basins × 7,428 dates took 3.0 s swept against
 * 1.1 s from the store; at 10⁴ basins the per-basin cost dominates (measured; BENCHMARKS.md).
 */
const SWEEP_LONG_FROM = 1000;

/**
 * Each plan's answer from its cube, in order: the cubes of consecutive groups of plans made in one
 * pass each (`sweep.ts`; groups bounded by the bytes of their sums) for an every-basin range of at
 * most MAX_ALL_BASINS_DATES dates, or of longer ranges when a pass holds SWEEP_LONG_FROM basins;
 * else basin by basin.
 */
export async function* eachBasinSwept<B>(
  plans: readonly StatsPlan[],
  opts: ExecuteOptions,
  answer: (cube: Cube, opts: ExecuteOptions) => Promise<B>,
): AsyncGenerator<B> {
  const first = plans[0];
  const budget = opts.sweepBytes ?? SWEEP_SUMS_BYTES;
  const short = (first?.dates.length ?? 0) <= MAX_ALL_BASINS_DATES;
  const perPass = first ? Math.floor(budget / Math.max(1, sumsBytes(first))) : 0;
  const from = opts.sweepFrom ?? SWEEP_LONG_FROM;
  if (!sweepable(plans) || !(short || (plans.length >= from && perPass >= from))) {
    yield* eachBasin(
      plans,
      (plan) => plan,
      opts,
      async (plan, o) => answer(await executeCube(plan, o), o),
    );
    return;
  }
  for (const group of sweepGroups(plans, budget)) {
    const cubes = await executeSweep(group, opts); // in the group's order
    yield* eachBasin(
      group,
      (plan) => plan,
      opts,
      (_plan, o, i) => answer(cubes[i]!, o),
    );
  }
}

/** A key that changes whenever any basin's answer could (the files each plan reads, and the plans). */
export function allBasinsStateKey(p: AllBasinsPlan, signal?: AbortSignal): Promise<string> {
  // Once per plan: a kept plan is reused only while the signatures it was keyed with still hold.
  let key = stateKeys.get(p);
  if (key === undefined) {
    key = everyBasinStateKey(p.plans, signal);
    key.catch(() => stateKeys.delete(p)); // an abandoned request's key is made again
    stateKeys.set(p, key);
  }
  return key;
}

const stateKeys = new WeakMap<AllBasinsPlan, Promise<string>>();

/** Run the plans of an all-basins query: every basin's cube in one pass, then each basin's answer. */
export function executeAllBasins(p: AllBasinsPlan, opts: ExecuteOptions = {}): Promise<AllBasinsStats> {
  return everyBasin(p, opts, answerWithNormals);
}

/** As `executeAllBasins`, each basin's rows kept as its table when there are no normals (an answer going out as JSON). */
export function executeAllBasinsTable(
  p: AllBasinsPlan,
  opts: ExecuteOptions = {},
): Promise<AllBasinsStats<BoxedRows | TableRows>> {
  return everyBasin(p, opts, answerTable);
}

async function everyBasin<R>(
  p: AllBasinsPlan,
  opts: ExecuteOptions,
  answer: (cube: Cube, opts: ExecuteOptions) => Promise<CompactStats<R>>,
): Promise<AllBasinsStats<R>> {
  const out: AllBasinsStats<R> = { zone_layers: [], variables: [], basins: [] };
  const bodies: CompactStats<R>[] = [];
  for await (const body of eachBasinSwept(p.plans, opts, answer)) bodies.push(body);
  bodies.forEach((body, i) => {
    out.zone_layers = body.zone_layers;
    out.variables = body.variables;
    const { reference } = body as Partial<StatsWithNormals>;
    out.basins.push({
      pourpoint: p.plans[i]!.query.pourpoint,
      zones: body.zones,
      results: body.results,
      ...(reference && { reference }),
    });
  });
  return out;
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
