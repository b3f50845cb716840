/**
 * Every basin's water year at once: one water year's summaries (peak, its date, melt-out, 1 April)
 * for every basin the dataset covers, with normals against each basin's reference years (median
 * peak, % of median peak, median peak and melt-out days, % melted since the peak). Each basin
 * runs the one-basin summaries, so each answer equals its own `water-years` call value for value.
 * With normals it reads every reference year of every basin: the heaviest every-basin query.
 */
import type { Database } from '../db/database.js';
import { coveredBasins, eachBasinSwept, everyKey, planEach } from './all-basins.js';
import type { ExecuteOptions } from './engine.js';
import { type Reference, referenceNote } from './normals.js';
import {
  planWaterYears,
  type WaterYearsBody,
  type WaterYearsPlan,
  type WaterYearsQuery,
  waterYearsOf,
  waterYearsStateKey,
} from './summaries.js';
import { checkYearSpan, waterYearSpan } from './water-year.js';

/** Every basin's query: a water-years query for one year, without the basin. */
export interface AllWaterYearsQuery extends Omit<WaterYearsQuery, 'pourpoint' | 'years'> {
  /** The water year (named by its end: 2024 is 1 October 2023 – 30 September 2024). */
  readonly year: number;
}

type Row = (number | string | null)[];

/** One basin's part: its cells and the year's row per cell. */
export interface BasinWaterYear {
  pourpoint: string;
  zones: WaterYearsBody['zones'];
  results: Record<string, Row[]>;
}

export interface AllWaterYearsBody extends Pick<WaterYearsBody, 'zone_layers' | 'variables' | 'variable'> {
  water_year: number;
  /** The melt-out threshold, named with its unit (`melt_out_below_mm`). */
  [threshold: `melt_out_below_${string}`]: number;
  /** With normals: the reference water years (the same for every basin: one dataset's dates). */
  reference?: Reference;
  basins: BasinWaterYear[];
}

/** The plans of an every-basin water-years query, one per covered basin (sorted by triplet): no raster read. */
export interface AllWaterYearsPlan {
  readonly plans: readonly WaterYearsPlan[];
  readonly year: number;
  readonly notes: readonly string[];
}

/**
 * Plan every covered basin's water year.
 * @throws QueryParameterError as `planWaterYears`; SnowdbError `no-reference-years` with normals and none.
 */
export async function planAllWaterYears(
  db: Database,
  q: AllWaterYearsQuery,
  signal?: AbortSignal,
): Promise<AllWaterYearsPlan> {
  const years = checkYearSpan({ start: q.year, end: q.year }, 'water_year')!;
  const covered = await coveredBasins(db, q.dataset);
  const plans = await planEach(covered, q, signal, (inputs, pourpoint, shared) =>
    planWaterYears(inputs, { ...q, pourpoint, years }, shared),
  );
  const { first, last } = waterYearSpan(q.year);
  const { dates } = covered.inputs;
  const held = dates.some((d) => d >= first && d <= last);
  const span = dates.length > 0 ? `dates ${dates[0]} … ${dates.at(-1)}` : 'no dates';
  const notes = [
    ...(held ? [] : [`'${q.dataset}' has no date in water year ${q.year} (${span})`]),
    ...(plans[0]?.reference ? [referenceNote(q.dataset, plans[0].reference)].filter((n) => n !== null) : []),
  ];
  return { plans, year: q.year, notes };
}

/** A key that changes whenever any basin's answer could. */
export const allWaterYearsStateKey = (p: AllWaterYearsPlan, signal?: AbortSignal): Promise<string> =>
  everyKey(p.plans, waterYearsStateKey, signal);

/** Run every basin's water year: the cubes swept when a pass holds enough basins, else one by one. */
export async function executeAllWaterYears(
  p: AllWaterYearsPlan,
  opts: ExecuteOptions = {},
): Promise<AllWaterYearsBody> {
  const byStats = new Map(p.plans.map((plan) => [plan.stats, plan]));
  const bodies: WaterYearsBody[] = [];
  for await (const b of eachBasinSwept(
    p.plans.map((plan) => plan.stats),
    opts,
    async (cube) => waterYearsOf(byStats.get(cube.plan)!, cube),
  ))
    bodies.push(b);
  const first = bodies[0];
  const plan = p.plans[0];
  const threshold = plan && { [`melt_out_below_${plan.unit}`]: plan.below };
  return {
    zone_layers: first?.zone_layers ?? [],
    variables: first?.variables ?? [],
    variable: first?.variable ?? p.plans[0]?.variable ?? 'swe',
    water_year: p.year,
    ...threshold,
    ...(first?.reference && { reference: first.reference }),
    basins: bodies.map((b, i) => ({
      pourpoint: p.plans[i]!.stats.query.pourpoint,
      zones: b.zones,
      results: b.results,
    })),
  };
}
