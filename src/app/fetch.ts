import { openDataset } from '../datasets/registry.js';
import type { Database } from '../db/database.js';
import { SnowdbError } from '../errors.js';
import { daysBetween } from '../fetch/plan.js';
import { type FetchReport, fetchDates } from '../fetch/run.js';
import { parseDateRange } from '../stats/dates.js';
import { isoDate, todayUtc } from '../util/dates.js';
import { archiveBase, type FetchChoices, fetchOptions } from './fetch-options.js';
import type { Settings } from './settings.js';

/**
 * `dataset fetch <name> --dates <start>/<end>`: download the dates from the producer's archive
 * and ingest them. An open end (`2024-01-01/..`) runs to today (UTC).
 * @throws SnowdbError `malformed-query-parameter` for bad dates; `dataset-not-found`.
 */
export async function fetchDataset(
  db: Database,
  settings: Settings,
  name: string,
  dates: string,
  c: FetchChoices,
): Promise<FetchReport> {
  const q = parseDateRange(dates, 'dates');
  if (q.type !== 'DateRange' || q.start_date === null)
    throw new SnowdbError('malformed-query-parameter', `--dates '${dates}': the start date is required`, {
      parameter: 'dates',
    });
  const end = q.end_date ?? todayUtc();
  const d = await openDataset(db, name);
  const base = archiveBase(d, settings);
  if (c.queue !== undefined && c.dryRun !== true)
    return (await import('./jobs.js')).queuedFetch(
      db,
      settings,
      name,
      base,
      daysBetween(q.start_date, end).map(isoDate),
      {
        ...c,
        queue: c.queue,
      },
    );
  return fetchDates(db, name, base, q.start_date, end, await fetchOptions(settings, c));
}
