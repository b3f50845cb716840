/**
 * What an export reads (pure once the dataset's basins and dates are known): the basins (every
 * covered one, those named, or a set's), the selected dates cut into chunks (a water year each, a
 * month for the per-date layout) so that one basin's answer for one chunk is all the executor holds
 * at a time, and one stats plan per basin and chunk, made when the chunk is reached.
 */
import type { Database } from '../db/database.js';
import { QueryParameterError, SnowdbError } from '../errors.js';
import { type CoveredBasins, coveredBasins } from '../stats/all-basins.js';
import { type DateQuery, dateQueryText, selectDates } from '../stats/dates.js';
import type { NormalsOption } from '../stats/plan.js';
import type { Units } from '../stats/units.js';
import { waterYearOf } from '../util/dates.js';

/** File formats, and the layouts of each (a registry: `writers.ts`). */
export const FORMATS = ['parquet', 'netcdf', 'csv'] as const;
export type Format = (typeof FORMATS)[number];
export const LAYOUTS = ['long', 'by-basin', 'by-date', 'date-by-basin', 'year-by-band'] as const;
export type Layout = (typeof LAYOUTS)[number];

/** Dates of one chunk of the per-date layout (its rows are held until the chunk's files are written). */
export const BY_DATE_CHUNK = 31;

export interface ExportQuery {
  readonly dataset: string;
  /** Basin ids (default: every basin the dataset covers). */
  readonly basins?: readonly string[] | undefined;
  /** A basin set: its members (`<set>:<id>`). */
  readonly set?: string | undefined;
  readonly dates: DateQuery;
  readonly zones?: readonly string[] | undefined;
  readonly variables?: readonly string[] | undefined;
  readonly normals?: NormalsOption | undefined;
  readonly units?: Units | undefined;
  readonly format: Format;
  readonly layout: Layout;
  /** The wide layouts' one statistic (a column name, e.g. `mean_swe_mm`; default the first mean). */
  readonly stat?: string | undefined;
  /** `year-by-band`: the day of each water year (`MM-DD`, default 04-01). */
  readonly day?: string | undefined;
}

export interface ExportPlan {
  readonly query: ExportQuery;
  readonly covered: CoveredBasins;
  /** Selected dates, ascending, in chunks. */
  readonly chunks: readonly (readonly string[])[];
  readonly dates: number;
}

/** Cut ascending dates into chunks: by water year, or `size` dates at a time. */
export function chunksOf(dates: readonly string[], size?: number): string[][] {
  const out: string[][] = [];
  for (const d of dates) {
    const last = out.at(-1);
    const same =
      last !== undefined &&
      (size === undefined ? waterYearOf(last[0]!) === waterYearOf(d) : last.length < size);
    if (same) last.push(d);
    else out.push([d]);
  }
  return out;
}

/**
 * Plan an export: the basins and dates it covers.
 * @throws QueryParameterError for a basin not covered, a set with no member covered, no date selected, a layout the format has not.
 */
export async function planExport(db: Database, q: ExportQuery): Promise<ExportPlan> {
  if (q.format !== 'csv' && q.layout !== 'long')
    throw new QueryParameterError(`layout '${q.layout}' is for CSV; ${q.format} is one long table`, {
      parameter: 'layout',
    });
  const zones = q.zones?.length ?? 0;
  if (q.layout === 'date-by-basin' && zones > 0)
    throw new QueryParameterError('layout date-by-basin is one value per basin and date: drop --zone', {
      parameter: 'layout',
    });
  if (q.layout === 'year-by-band' && zones !== 1)
    throw new QueryParameterError('layout year-by-band takes one zone axis (--zone terrain.elevation)', {
      parameter: 'layout',
    });
  if (q.day !== undefined && !/^(0[1-9]|1[0-2])-(0[1-9]|[12]\d|3[01])$/.test(q.day))
    throw new QueryParameterError(`--day: expected MM-DD (e.g. 04-01), got '${q.day}'`, { parameter: 'day' });
  const covered = await coveredBasins(db, q.dataset);
  let pourpoints = covered.pourpoints;
  if (q.basins !== undefined && q.basins.length > 0) {
    const have = new Set(pourpoints);
    const missing = q.basins.filter((b) => !have.has(b));
    if (missing.length > 0)
      throw new SnowdbError(
        'pourpoint-not-found',
        `${missing.map((m) => `'${m}'`).join(', ')}: not a basin ${q.dataset} covers (${pourpoints.length} do: 'snowdb pourpoint list')`,
        { pourpoint: missing[0] },
      );
    pourpoints = [...new Set(q.basins)].sort();
  }
  if (q.set !== undefined) {
    pourpoints = pourpoints.filter((p) => p.startsWith(`${q.set}:`));
    if (pourpoints.length === 0)
      throw new QueryParameterError(`no basin of set '${q.set}' is covered by ${q.dataset}`, {
        parameter: 'set',
      });
  }
  if (pourpoints.length === 0)
    throw new QueryParameterError(`${q.dataset} covers no basin: nothing to export`, {
      parameter: 'dataset',
    });
  const dates = selectDates(covered.inputs.dates, q.dates);
  if (dates.length === 0)
    throw new QueryParameterError(`no date of ${q.dataset} in ${dateQueryText(q.dates)}`, {
      parameter: 'dates',
    });
  return {
    query: q,
    covered: { ...covered, pourpoints },
    chunks: chunksOf(
      dates,
      q.layout === 'by-date' || q.layout === 'date-by-basin' ? BY_DATE_CHUNK : undefined,
    ),
    dates: dates.length,
  };
}
