import { readdir, stat } from 'node:fs/promises';
import { resolve } from 'node:path';
import { openDataset } from '../datasets/registry.js';
import type { Database } from '../db/database.js';
import { debrisRoots, sweepDebris } from '../db/debris.js';
import { SnowdbError } from '../errors.js';
import { refreshSeries } from '../series/build.js';
import type { DateResult } from './date.js';
import { ingesterFor } from './ingesters.js';
import type { DateSource } from './types.js';
import { type DateExecutor, runJobs } from './workers.js';

/** Files a source path stands for: itself, or the matching files of a directory. */
async function expand(path: string, pattern: RegExp, recursive: boolean): Promise<string[]> {
  const st = await stat(path).catch(() => null);
  if (st === null) throw new SnowdbError('source-not-found', `${path}: no such file or directory`);
  if (!st.isDirectory()) return [resolve(path)];
  const out: string[] = [];
  for (const e of await readdir(path, { withFileTypes: true })) {
    const p = resolve(path, e.name);
    if (e.isDirectory() && recursive) out.push(...(await expand(p, pattern, true)));
    else if (e.isFile() && pattern.test(e.name)) out.push(p);
  }
  return out.sort();
}

export interface IngestReport {
  readonly dataset: string;
  readonly results: readonly DateResult[];
}

/**
 * `dataset ingest`: plan every source by name (a bad one fails alone), keep the highest-ranked
 * source per date, then ingest the dates in parallel on worker threads (inline when only one),
 * then bring the series store up to date (built on the first ingest).
 */
export async function ingestSources(
  db: Database,
  name: string,
  sources: readonly string[],
  opts: {
    force?: boolean | undefined;
    swapPauseMs?: number | undefined;
    onProgress?: (done: number, total: number) => void;
    /** Where the date jobs run: worker threads here (default), or a queue's workers. */
    execute?: DateExecutor | undefined;
    /** Bring the series store up to date afterwards (default); off when the caller does it once. */
    series?: boolean | undefined;
  } = {},
): Promise<IngestReport> {
  const d = await openDataset(db, name);
  // What an interrupted ingest left: versions no link points to, temp files, stale locks.
  await sweepDebris(debrisRoots(db, [d]), { tmp: false });
  const ingester = ingesterFor(d);
  const failed: DateResult[] = [];
  const planned = new Map<string, DateSource>();
  const expanded: (readonly [string, string[]])[] = [];
  for (const s of sources) {
    const files = await expand(s, ingester.filePattern, ingester.recursive);
    if (files.length === 0)
      throw new SnowdbError('source-not-found', `${s}: no source files (${ingester.filePattern}) there`);
    expanded.push([s, files]);
  }
  // A date of several files (tiles) is planned from every source's files at once.
  const groups =
    ingester.filesPerDate === 'several' && expanded.length > 1
      ? [[sources.join(' '), [...new Set(expanded.flatMap(([, f]) => f))]] as const]
      : expanded;
  for (const [s, files] of groups) {
    let dates: DateSource[];
    try {
      dates = await ingester.plan(files);
    } catch (e) {
      if (!SnowdbError.is(e)) throw e;
      failed.push({ date: '', action: 'failed', source: s, message: e.message });
      continue;
    }
    for (const ds of dates) {
      const prev = planned.get(ds.date);
      if (prev === undefined || ds.rank > prev.rank) planned.set(ds.date, ds);
    }
  }
  const jobs = [...planned.values()].sort((a, b) => (a.date < b.date ? -1 : 1));
  const options = { force: opts.force === true, swapPauseMs: opts.swapPauseMs };
  const results = await (opts.execute ?? runJobs)(db, name, jobs, options, opts.onProgress);
  // A run where every date failed changes nothing, not even by creating the store.
  if (opts.series !== false && results.some((r) => r.action !== 'failed')) await refreshSeries(d);
  return { dataset: name, results: [...failed, ...results] };
}
