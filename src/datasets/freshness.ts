/**
 * How old a dataset's newest date is, against how far its producer usually trails today: a
 * forecaster sees "as of" and is warned when data is late (a silent outage upstream, a stalled
 * `update` cron). Pure: today is given.
 */
import { daysBetween } from '../util/dates.js';
import type { DatasetConfig } from './config.js';

/**
 * Days a template's newest date usually trails today (UTC) when its producer is on time: SNODAS
 * publishes day D's grids on day D + 1; UA SWANN's early stage and SPIRES NRT follow a day or two
 * later. A config's `usual_lag_days` wins; a dataset with neither is never late.
 */
export const USUAL_LAG_DAYS: Readonly<Record<string, number>> = { snodas: 1, 'swann-800m': 2, instarr: 3 };

/** The freshness members of `/datasets` and `/datasets/{d}`. */
export interface Freshness {
  /** The newest ingested date, ISO (null: none). */
  readonly newest_date: string | null;
  /** Whole days from the newest date to today (null: no date). */
  readonly age_days: number | null;
  /** Days the newest date usually trails today (null: not stated, never late). */
  readonly usual_lag_days: number | null;
  /** Older than usual (or no date at all) while a usual lag is stated. */
  readonly late: boolean;
}

/** A dataset's usual lag in days: its config's, else its template's, else null. */
export const usualLag = (config: DatasetConfig): number | null =>
  config.usual_lag_days ?? USUAL_LAG_DAYS[config.template ?? ''] ?? null;

/** Freshness of a dataset whose ingested dates are `dates` (ascending), on `today` (ISO, UTC). */
export function freshnessOf(config: DatasetConfig, dates: readonly string[], today: string): Freshness {
  const newest = dates.at(-1) ?? null;
  const age = newest === null ? null : daysBetween(newest, today);
  const lag = usualLag(config);
  return {
    newest_date: newest,
    age_days: age,
    usual_lag_days: lag,
    late: lag !== null && (age === null || age > lag),
  };
}
