/**
 * The series store's stale marks: one file per date (`series/stale/<YYYYMMDD>`) whose pages wait
 * for an update. A mark holds a fresh nonce, so a writer clears only the marks it saw unchanged.
 */
import { randomBytes } from 'node:crypto';
import { mkdir, readFile, rm, rmdir, writeFile } from 'node:fs/promises';
import type { Dataset } from '../datasets/registry.js';
import { namesIn, pathExists } from '../io/fs.js';
import { isoDate } from '../util/dates.js';

/**
 * Mark a date's pages stale: before its COGs change and again after (no-op when the dataset has
 * no store). Each mark holds a fresh nonce: a refresh clears only marks it saw unchanged, so a
 * date swapped while a refresh read it is refreshed again.
 */
export async function markSeriesStale(d: Dataset, date: string): Promise<void> {
  if (!(await pathExists(d.paths.seriesBlocks))) return;
  const mark = randomBytes(8).toString('hex');
  for (let attempt = 0; ; attempt++) {
    await mkdir(d.paths.seriesStaleDir, { recursive: true });
    try {
      await writeFile(d.paths.seriesStale(date), mark);
      return;
    } catch (e) {
      // The folder was removed as it emptied (clearMarksSeen) between the two steps: again.
      if ((e as NodeJS.ErrnoException).code !== 'ENOENT' || attempt >= 3) throw e;
    }
  }
}

/** Dates marked stale (ISO, ascending). */
export async function staleSeriesDates(d: Dataset): Promise<string[]> {
  return (await namesIn(d.store, d.paths.seriesStaleDir))
    .filter((n) => /^\d{8}$/.test(n))
    .sort()
    .map(isoDate);
}

/** Each stale date's mark (its nonce), ISO dates ascending. */
export async function staleMarks(d: Dataset): Promise<Map<string, string | null>> {
  const dates = await staleSeriesDates(d);
  const marks = await Promise.all(
    dates.map((date) => readFile(d.paths.seriesStale(date), 'utf8').catch(() => null)),
  );
  return new Map(dates.map((date, i) => [date, marks[i]!]));
}

/**
 * Clear the marks a rebuild or refresh saw before it read any COG, each only while unchanged: a
 * date swapped meanwhile has a new mark (or a first one) and stays stale, so its pages are
 * written again by the next refresh and readers take it from its COGs until then.
 */
export async function clearMarksSeen(d: Dataset, seen: ReadonlyMap<string, string | null>): Promise<void> {
  for (const [date, mark] of seen) {
    const now = await readFile(d.paths.seriesStale(date), 'utf8').catch(() => null);
    if (now === mark) await rm(d.paths.seriesStale(date), { force: true });
  }
  await rmdir(d.paths.seriesStaleDir).catch(() => {}); // only when empty (markSeriesStale remakes it)
}
