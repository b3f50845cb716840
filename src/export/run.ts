/**
 * Execute an export plan: chunk by chunk, every basin's sums for the chunk's dates in one pass per
 * group of basins (`eachBasinSwept`: each date read once for the group), then basin by basin its
 * answer, handed to the sink and dropped. Memory holds one group's sums (64 MiB at most) and one
 * basin's answer for one chunk (a water year; a month for the per-date layout, whose rows are held
 * until its files are written) and, for Parquet, one row group.
 */
import type { Database } from '../db/database.js';
import { eachBasinSwept } from '../stats/all-basins.js';
import { answerWithNormals } from '../stats/anomalies.js';
import type { ExecuteOptions } from '../stats/engine.js';
import { planAxes, planStats, type SharedPlanning, type StatsPlan } from '../stats/plan.js';
import { VERSION } from '../version.js';
import { type ExportPlan, type ExportQuery, planExport } from './plan.js';
import { sinkFor, sweepDebris } from './writers.js';

export interface ExportReport {
  readonly out: string;
  readonly basins: number;
  readonly dates: number;
  readonly rows: number;
  /** Largest resident set seen while exporting, bytes. */
  readonly peakRssBytes: number;
}

/** The stats plans of one chunk: every basin over the chunk's first to last date. */
function chunkPlans(p: ExportPlan, dates: readonly string[], shared: SharedPlanning): StatsPlan[] {
  const q = p.query;
  const inputs = { ...p.covered.inputs, dates };
  // One query for the chunk (its parts the same objects for every basin: planned once, shared).
  const chunk = {
    dataset: q.dataset,
    dates: { type: 'DateRange', start_date: dates[0]!, end_date: dates.at(-1)! } as const,
    zones: q.zones,
    variables: q.variables,
    units: q.units,
    normals: q.normals,
  };
  return p.covered.pourpoints.map((pourpoint) => planStats(inputs, { ...chunk, pourpoint }, shared));
}

/**
 * Export to `out` (a file; a folder for the per-basin and per-date CSV layouts). Nothing appears
 * at `out` until all is written; a failure or an abort leaves it as it was.
 */
export async function runExport(
  p: ExportPlan,
  out: string,
  opts: ExecuteOptions & { progress?: (line: string) => void } = {},
): Promise<ExportReport> {
  const q = p.query;
  const meta = {
    generator: `snowdb ${VERSION}`,
    dataset: q.dataset,
    units: q.units ?? 'metric',
    zones: (q.zones ?? []).join(' '),
    dates: `${p.chunks[0]![0]}/${p.chunks.at(-1)!.at(-1)}`,
  };
  for (const f of await sweepDebris(out))
    opts.progress?.(`removed ${f}: what an export killed before it finished left`);
  const shared: SharedPlanning = {
    axes: planAxes(p.covered.inputs.dataset, q),
    signatures: new Map(),
    common: [],
  };
  const index = p.covered.inputs.index;
  const sink = await sinkFor(
    q.format,
    q.layout,
    out,
    meta,
    {
      pourpoints: p.covered.pourpoints,
      names: p.covered.pourpoints.map((b) => index.get(b)?.name ?? b),
      dates: p.chunks.flat(),
      axes: shared.axes,
    },
    { stat: q.stat, day: q.day },
  );
  let rows = 0;
  let peak = process.memoryUsage().rss;
  try {
    for (const [i, dates] of p.chunks.entries()) {
      const plans = chunkPlans(p, dates, shared);
      let k = 0;
      for await (const body of eachBasinSwept(plans, opts, answerWithNormals)) {
        await sink.basin(plans[k]!.query.pourpoint, body);
        rows += Object.keys(body.results).length * body.zones.length;
        k++;
      }
      await sink.chunkEnd();
      peak = Math.max(peak, process.memoryUsage().rss);
      opts.progress?.(
        `${dates[0]}…${dates.at(-1)}: ${plans.length} basins (chunk ${i + 1} of ${p.chunks.length})`,
      );
    }
    await sink.finish();
  } catch (e) {
    await sink.abort();
    throw e;
  }
  return { out, basins: p.covered.pourpoints.length, dates: p.dates, rows, peakRssBytes: peak };
}

/** Plan and run an export. */
export async function exportStats(
  db: Database,
  q: ExportQuery,
  out: string,
  opts: ExecuteOptions & { progress?: (line: string) => void } = {},
): Promise<ExportReport> {
  return runExport(await planExport(db, q), out, opts);
}
