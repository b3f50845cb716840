import { readdir, rm, stat } from 'node:fs/promises';
import { basename, join, resolve } from 'node:path';
import type { Dataset } from '../datasets/registry.js';
import { openDataset } from '../datasets/registry.js';
import type { Database } from '../db/database.js';
import { SnowdbError } from '../errors.js';
import { writeCog } from '../raster/cog.writer.js';
import { isoDate as iso } from '../util/dates.js';
import { dateComplete, readManifest, sourceHash, stagingDir, swapIn, withDateLock } from './date-dir.js';
import { ingesterFor } from './ingesters.js';
import type { DateSource } from './types.js';
import { runJobs } from './workers.js';

/** What happened to one date. */
export interface DateResult {
  readonly date: string;
  readonly action: 'ingested' | 'up-to-date' | 'kept-later-stage' | 'failed';
  readonly source: string;
  readonly message?: string;
}

/**
 * Ingest one date into a dataset: skip it when its manifest already carries the same source hash
 * and every COG is present (no decompression), or when a later stage is already there; else
 * decode, write one COG per variable into a staging folder and swap the folder in.
 */
export async function ingestDate(d: Dataset, src: DateSource, force: boolean): Promise<DateResult> {
  const source = src.files.map((f) => basename(f)).join(' ');
  const hash = await sourceHash(src.files);
  return withDateLock(d, src.date, async () => {
    const have = await readManifest(d, src.date);
    if (have !== null && have.rank > src.rank)
      return {
        date: iso(src.date),
        action: 'kept-later-stage',
        source,
        message: `a later stage is ingested (${have.fields.SOURCE_STAGE ?? have.rank})`,
      };
    if (!force && have?.source_hash === hash && (await dateComplete(d, src.date)))
      return { date: iso(src.date), action: 'up-to-date', source };
    const staging = await stagingDir(d, src.date);
    try {
      const written: string[] = [];
      await ingesterFor(d).decode(d, src, async (variable, data, metadata) => {
        const spec = d.config.variables[variable]!;
        await writeCog(join(staging, `${variable}.tif`), d.grid, data, {
          level: 1,
          nodata: spec.nodata,
          description: `${variable} (${spec.unit} × ${spec.scale_factor})`,
          metadata: {
            SOURCE_DATASET: d.name,
            SOURCE_DATE: iso(src.date),
            SOURCE_VARIABLE: variable,
            SOURCE_HASH: hash,
            ...src.fields,
            ...metadata,
          },
        });
        written.push(variable);
      });
      const missing = Object.keys(d.config.variables).filter((v) => !written.includes(v));
      if (missing.length > 0)
        throw new SnowdbError('invalid-source', `${source}: no data for ${missing.join(', ')}`);
      await swapIn(d, src.date, staging, {
        date: iso(src.date),
        source_hash: hash,
        sources: src.files.map((f) => basename(f)),
        fields: src.fields,
        rank: src.rank,
        variables: written.sort(),
        ingested_at: new Date().toISOString(),
      });
      return { date: iso(src.date), action: 'ingested', source };
    } finally {
      await rm(staging, { recursive: true, force: true });
    }
  });
}

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
 * source per date, then ingest the dates in parallel on worker threads (inline when only one).
 */
export async function ingestSources(
  db: Database,
  name: string,
  sources: readonly string[],
  opts: { force?: boolean; onProgress?: (done: number, total: number) => void } = {},
): Promise<IngestReport> {
  const d = await openDataset(db, name);
  const ingester = ingesterFor(d);
  const failed: DateResult[] = [];
  const planned = new Map<string, DateSource>();
  for (const s of sources) {
    const files = await expand(s, ingester.filePattern, ingester.recursive);
    if (files.length === 0)
      throw new SnowdbError('source-not-found', `${s}: no source files (${ingester.filePattern}) there`);
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
  const results = await runJobs(db.root, name, jobs, opts.force === true, opts.onProgress);
  return { dataset: name, results: [...failed, ...results] };
}
