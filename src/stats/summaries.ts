/**
 * Water-year summaries of a water variable (SWE): per water year and zone cell, the peak of the
 * mean (value, first date at it, and the volume that date), the melt-out date (the first date
 * after the peak with a mean below a threshold) and the mean and volume on 1 April. A peak below
 * the threshold (a cell that never held snow) has no peak date and no melt-out date.
 */
import type { Database } from '../db/database.js';
import { QueryParameterError } from '../errors.js';
import { waterYearOf } from '../util/dates.js';
import { type CompactStats, type ExecuteOptions, executeStats } from './engine.js';
import { planInputs, planStats, type StatsQuery } from './plan.js';
import { checkYearSpan, waterYearSpan, type YearSpan } from './water-year.js';

export interface WaterYearsQuery extends Omit<StatsQuery, 'dates' | 'validFraction' | 'variables'> {
  /** A variable with a volume (default `swe`). */
  readonly variable?: string;
  /** Water years, inclusive (default: every water year with a date). */
  readonly years?: YearSpan;
  /** Melt-out threshold in the mean's unit (default 1 mm, or 0.04 in with US units). */
  readonly meltOutBelow?: number;
}

type Value = number | string | null;

/** Per water year and cell: peak, its date, melt-out date, 1 April, volumes, number of dates. */
export interface WaterYearsBody extends Omit<CompactStats, 'results'> {
  variable: string;
  /** The melt-out threshold, named with its unit (`melt_out_below_mm`). */
  [threshold: `melt_out_below_${string}`]: number;
  results: Record<string, Value[][]>;
}

/** Default melt-out thresholds by the mean's unit. */
const MELT_OUT_BELOW: Record<string, number> = { mm: 1, in: 0.04 };

/** Summarize one water year's dates (ascending) of a body whose columns are [mean, total]. */
function summarize(body: CompactStats, dates: readonly string[], y: number, below: number): Value[][] {
  const apr1 = body.results[`${y}-04-01`];
  return body.zones.map((_, k) => {
    let peak: string | null = null;
    let top = Number.NEGATIVE_INFINITY;
    for (const d of dates) {
      const v = body.results[d]![k]![0] ?? null;
      if (v !== null && v > top) [top, peak] = [v, d];
    }
    const at = peak === null ? null : body.results[peak]![k]!;
    // A peak below the melt-out threshold is no snow season: it has no peak or melt-out date.
    if (top < below) peak = null;
    let meltOut: string | null = null;
    if (peak !== null)
      for (const d of dates) {
        const v = body.results[d]![k]![0] ?? null;
        if (d > peak && v !== null && v < below) {
          meltOut = d;
          break;
        }
      }
    return [
      at?.[0] ?? null,
      peak,
      meltOut,
      apr1?.[k]?.[0] ?? null,
      at?.[1] ?? null,
      apr1?.[k]?.[1] ?? null,
      dates.length,
    ];
  });
}

/**
 * Water-year summaries of one basin in an active dataset.
 * @throws QueryParameterError for a variable without a volume, an inverted span or a bad threshold.
 */
export async function computeWaterYears(
  db: Database,
  q: WaterYearsQuery,
  opts: ExecuteOptions = {},
): Promise<WaterYearsBody> {
  const inputs = await planInputs(db, q.dataset, q.pourpoint);
  const variable = q.variable ?? 'swe';
  const spec = inputs.dataset.config.variables[variable];
  if (spec?.volume_m_per_unit === undefined) {
    const water = Object.keys(inputs.dataset.config.variables).filter(
      (v) => inputs.dataset.config.variables[v]!.volume_m_per_unit !== undefined,
    );
    throw new QueryParameterError(
      `water-year summaries need a water variable of '${inputs.dataset.name}' (${water.join(', ') || 'none'}), not '${variable}'`,
      { parameter: 'variable', allowed: water },
    );
  }
  checkYearSpan(q.years, 'years');
  const dates = {
    type: 'DateRange' as const,
    start_date: q.years ? waterYearSpan(q.years.start).first : null,
    end_date: q.years ? waterYearSpan(q.years.end).last : null,
  };
  const plan = planStats(inputs, { ...q, dates, variables: [variable], validFraction: false });
  const [mean, total] = plan.columns;
  const unit = mean!.name.slice(`mean_${variable}_`.length); // mm, or in with US units
  const below = q.meltOutBelow ?? MELT_OUT_BELOW[unit] ?? 0;
  if (!Number.isFinite(below) || below < 0)
    throw new QueryParameterError(`melt-out threshold ${below} is not a number ≥ 0`, {
      parameter: 'melt_out_below',
    });
  const body = await executeStats(plan, opts);
  const byYear = new Map<number, string[]>();
  for (const { date } of plan.dates) {
    const y = waterYearOf(date);
    const list = byYear.get(y) ?? [];
    if (list.length === 0) byYear.set(y, list);
    list.push(date);
  }
  const results: Record<string, Value[][]> = {};
  for (const [y, ds] of byYear) results[String(y)] = summarize(body, ds, y, below);
  const threshold = `melt_out_below_${unit}` as const;
  return {
    zone_layers: body.zone_layers,
    variables: [
      `peak_${mean!.name}`,
      'peak_date',
      'melt_out_date',
      `apr1_${mean!.name}`,
      `peak_${total!.name}`,
      `apr1_${total!.name}`,
      'dates',
    ],
    zones: body.zones,
    variable,
    ...({ [threshold]: below } as Record<typeof threshold, number>),
    results,
  };
}
