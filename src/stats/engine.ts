import type { Database } from '../db/database.js';
import { SnowdbError } from '../errors.js';
import { seriesView } from '../series/read.js';
import { mapPool } from '../util/pool.js';
import type { ZoneRef } from '../zones/schemes.js';
import { accumulateRuns, preparedBasin, readOnto } from './basin.js';
import { openStatsPlan, type StatsPlan, type StatsQuery } from './plan.js';
import { reduceFromSeries, type Sums } from './series-path.js';
import { M2_PER_ACRE } from './units.js';

/** The compact stats body (docs/reference.md#stats). */
export interface CompactStats {
  zone_layers: string[];
  variables: string[];
  /** Cells: their zone refs and in-basin area, m² (and acres with US units). */
  zones: { zone: ZoneRef[]; area_m2: number; area_acres?: number }[];
  results: Record<string, (number | null)[][]>;
}

export interface ExecuteOptions {
  /** false: read every date from its COG, ignoring the series store (the straightforward engine). */
  readonly series?: boolean;
  /** Decoded bytes above which a variable's store scan runs in worker threads (default 32 MiB). */
  readonly threadsAbove?: number;
  /** Abandons the work at its next check (between dates, pages and worker jobs). */
  readonly signal?: AbortSignal;
}

/**
 * Execute a plan: per date, per cell of the crossed zone axes, each variable's area-weighted mean
 * (weights = the AOI raster's exact coverage × cell area, over pixels with data) and, for water
 * variables, its volume. Dates the series store holds are read from it; the rest from their COGs.
 */
export async function executeStats(plan: StatsPlan, opts: ExecuteOptions = {}): Promise<CompactStats> {
  const { dataset: d, product, columns } = plan;
  const basin = await preparedBasin(plan);
  const { area } = basin;
  const keep: number[] = [];
  // The last cell holds the basin's unzoned pixels (with any axis): kept only when it has area.
  const unclassified = plan.axes.length > 0 ? product - 1 : -1;
  for (let k = 0; k < product; k++)
    if (area[k]! > 0 || (plan.includeEmptyZones && k !== unclassified)) keep.push(k);
  // Per variable: Σ weight with data and Σ value × weight, per plan date and cell.
  const sums = new Map<string, Sums>();
  const nd = plan.dates.length;
  const view = opts.series === false ? null : await seriesView(d);
  for (const [vi, v] of plan.variables.entries()) {
    opts.signal?.throwIfAborted();
    const spec = d.config.variables[v]!;
    const all: Sums = { sw: new Float64Array(nd * product), sv: new Float64Array(nd * product) };
    const fromSeries =
      view === null ? new Set<number>() : await reduceFromSeries(plan, basin, view, v, all, opts);
    const rest = plan.dates.flatMap((_date, i) => (fromSeries.has(i) ? [] : [i]));
    await mapPool(rest, 8, async (i) => {
      opts.signal?.throwIfAborted();
      const { date, cogs } = plan.dates[i]!;
      const raster = await readOnto(cogs[vi]!, null, basin.window, spec.nodata);
      if (raster === null) {
        throw new SnowdbError(
          'date-incomplete',
          `${d.name} ${date} has no '${v}' raster (re-ingest that date)`,
        );
      }
      accumulateRuns(
        basin,
        0,
        basin.runCell.length,
        raster.data,
        0,
        basin.at,
        spec.nodata,
        all.sw,
        all.sv,
        i * product,
      );
    });
    sums.set(v, all);
  }
  const results: Record<string, (number | null)[][]> = {};
  plan.dates.forEach(({ date }, i) => {
    results[date] = keep.map((k) =>
      columns.map((col) => {
        const { sw: SW, sv: SV } = sums.get(col.variable)!;
        const sw = SW[i * product + k]!;
        const sv = SV[i * product + k]!;
        const spec = d.config.variables[col.variable]!;
        if (col.kind === 'valid') return area[k]! > 0 ? sw / area[k]! : null;
        if (!(sw > 0)) return null;
        if (col.kind === 'mean') return sv / sw / spec.scale_factor / col.divisor + col.offset;
        return ((sv / spec.scale_factor) * spec.volume_m_per_unit!) / col.divisor; // m³ = Σ value(unit) × m/unit × m²
      }),
    );
  });
  const axes = plan.axes.map((a) => a.axis);
  // With US units each zone also names its area in acres (area_m2 stays: the spec's member).
  const areas = (k: number) =>
    plan.query.units === 'us'
      ? { area_m2: area[k]!, area_acres: area[k]! / M2_PER_ACRE }
      : { area_m2: area[k]! };
  return {
    zone_layers: axes.map((a) => a.layer),
    variables: columns.map((c) => c.name),
    zones: keep.map((k) => {
      if (k === unclassified)
        return { zone: axes.map((a) => ({ kind: 'unclassified', layer: a.layer })), ...areas(k) };
      const zone: ZoneRef[] = [];
      let rest = k;
      for (let a = axes.length - 1; a >= 0; a--) {
        const n = axes[a]!.zones.length;
        zone.unshift(axes[a]!.zones[rest % n]!);
        rest = Math.floor(rest / n);
      }
      return { zone, ...areas(k) };
    }),
    results,
  };
}

/** Stratified statistics of one basin in an active dataset: plan, then execute. */
export async function computeStats(db: Database, q: StatsQuery): Promise<CompactStats> {
  return executeStats(await openStatsPlan(db, q));
}
