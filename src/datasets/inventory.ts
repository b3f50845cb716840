import type { Database } from '../db/database.js';
import { namesIn } from '../io/fs.js';
import { isoDate } from '../util/dates.js';
import { type Dataset, openDatasets } from './registry.js';

/** Ingested dates of a dataset, ISO `YYYY-MM-DD`, ascending (folders `cogs/<YYYYMMDD>/`). */
export async function ingestedDates(d: Dataset): Promise<string[]> {
  return (await namesIn(d.store, d.paths.datesDir))
    .filter((n) => /^\d{8}$/.test(n))
    .sort()
    .map(isoDate);
}

/** A dataset's ingested dates, re-listed only when its `cogs/` folder changed (one stat). */
export function datesOf(db: Database, d: Dataset): Promise<string[]> {
  return db.memo(d.paths.datesDir, () => ingestedDates(d));
}

export interface DatasetSummary {
  readonly name: string;
  readonly active: boolean;
  readonly template: string | null;
  readonly config: string;
  readonly dates: number;
  readonly first_date: string | null;
  readonly last_date: string | null;
}

/** A dataset's summary, given its ingested dates (`datesOf`). */
export function datasetSummary(d: Dataset, dates: readonly string[]): DatasetSummary {
  return {
    name: d.name,
    active: d.link.active,
    template: d.config.template ?? null,
    config: d.link.path,
    dates: dates.length,
    first_date: dates[0] ?? null,
    last_date: dates.at(-1) ?? null,
  };
}

/** Every registered dataset with its state and date span, sorted by name. */
export async function listDatasets(db: Database): Promise<DatasetSummary[]> {
  return Promise.all((await openDatasets(db)).map(async (d) => datasetSummary(d, await datesOf(db, d))));
}
