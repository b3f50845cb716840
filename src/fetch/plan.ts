import { compactDate } from '../util/dates.js';
import type { Alternative, Archive } from './archives.js';

/** What a fetch will do for one date, decided before any file is downloaded. */
export type PlannedDate =
  /** Ingested at the best rank the archive can offer (or lists): nothing to get. */
  | { readonly date: string; readonly state: 'up-to-date' }
  /** Not ingested, and the archive's listing names none of its files. */
  | { readonly date: string; readonly state: 'missing'; readonly why: string }
  /** Try these alternatives in order (best first; each better than what is ingested). */
  | {
      readonly date: string;
      readonly state: 'fetch';
      readonly alternatives: readonly Alternative[];
      /** Rank of the ingested version being upgraded, or null for a new date. */
      readonly ingestedRank: number | null;
    };

/** Every `YYYYMMDD` from `start` to `end` (ISO), inclusive. */
export function daysBetween(start: string, end: string): string[] {
  const out: string[] = [];
  const t = new Date(`${start}T00:00:00Z`);
  const last = new Date(`${end}T00:00:00Z`).getTime();
  for (; t.getTime() <= last; t.setUTCDate(t.getUTCDate() + 1))
    out.push(compactDate(t.toISOString().slice(0, 10)));
  return out;
}

/** File names a directory listing links to (HTML `href`s or one name per line), decoded. */
export function listedNames(body: string): Set<string> {
  const names = new Set<string>();
  for (const m of body.matchAll(/href\s*=\s*["']([^"'?#]+)["']/gi)) {
    const name = decodeURIComponent(m[1]!.replace(/\/+$/, '').split('/').pop() ?? '');
    if (name !== '') names.add(name);
  }
  if (names.size === 0) for (const line of body.split(/\r?\n/)) if (/^[\w.-]+$/.test(line)) names.add(line);
  return names;
}

/**
 * Plan each date of `dates` (`YYYYMMDD`): its alternatives better than the ingested rank
 * (`ingested`: date → rank), kept only where the folder listing (when there is one: folder URL →
 * names, null when it could not be read) names every file of it.
 */
export function planFetch(
  archive: Archive,
  base: string,
  dates: readonly string[],
  ingested: ReadonlyMap<string, number>,
  listings: ReadonlyMap<string, ReadonlySet<string> | null>,
): PlannedDate[] {
  return dates.map((date): PlannedDate => {
    const have = ingested.get(date) ?? null;
    const listed = archive.listing ? (listings.get(archive.listing(base, date)) ?? null) : null;
    const better = archive
      .alternatives(base, date)
      .filter((a) => have === null || a.rank > have)
      .filter((a) => listed === null || a.files.every((f) => listed.has(f.name)));
    if (better.length > 0) return { date, state: 'fetch', alternatives: better, ingestedRank: have };
    if (have !== null) return { date, state: 'up-to-date' };
    return { date, state: 'missing', why: 'not in the archive listing' };
  });
}
