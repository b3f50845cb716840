/**
 * The one executor of a stats plan: a typed cube of sums. Per variable, Σ weight with data and
 * Σ value × weight per (date, cell), the cells' in-basin areas, and which cells an answer emits.
 * Every answer (the compact body, CSV, normals, anomalies, water-year summaries, every basin) is
 * a view of cubes (`columnTable`, `zonesOf`), not of another answer's wire format.
 */

import { totalOf } from '../datasets/config.js';
import { dateIncomplete, type RasterSession, readOnto } from '../datasets/read-onto.js';
import { firstAbsent } from '../io/fs.js';
import { type SeriesView, seriesView } from '../series/read.js';
import { mapPool } from '../util/pool.js';
import { Slicer } from '../util/slices.js';
import type { ZoneRef } from '../zones/schemes.js';
import { accumulateRuns, preparedBasin } from './basin.js';
import type { StatsPlan } from './plan.js';
import { planReads, storeInputs } from './reads.js';
import { reduceFromSeries, type Sums } from './series-path.js';
import { M2_PER_ACRE } from './units.js';

export interface ExecuteOptions {
  /** false: read every date from its COG, ignoring the series store (the straightforward engine). */
  readonly series?: boolean;
  /** Decoded bytes above which a variable's store scan runs in worker threads (default 32 MiB). */
  readonly threadsAbove?: number;
  /** Abandons the work at its next check (between dates, pages and worker jobs). */
  readonly signal?: AbortSignal;
  /** Rasters shared with the other cubes of one answer (every basin at once). */
  readonly rasters?: RasterSession;
  /** The series store's view for every cube of one answer (every basin at once), looked up once. */
  readonly seriesView?: SeriesView | null;
  /** Bytes of sums one every-basin pass holds at most (default 64 MiB; more basins run in further passes). */
  readonly sweepBytes?: number;
  /** Basins a pass must hold for a range of over 31 dates to be swept (default 1,000). */
  readonly sweepFrom?: number;
}

/** A plan executed: typed sums per variable over the plan's dates and cells. */
export interface Cube {
  readonly plan: StatsPlan;
  /** In-basin area of each cell of the crossing (then the unclassified cell), m². */
  readonly area: Float64Array;
  /**
   * The cells an answer emits, ascending: those with area, or with `includeEmptyZones` every
   * cell of the crossing (the unclassified one still only with area).
   */
  readonly cells: Int32Array;
  /** Per variable, in `plan.variables` order: sums flat by date index × product + cell. */
  readonly sums: readonly Sums[];
}

/**
 * Execute a plan: per date, per cell of the crossed zone axes, each variable's sums (weights = the
 * AOI raster's exact coverage × cell area, over pixels with data). The reads are decided first
 * (`planReads`, from the store's page headers): dates on current series pages are read from them,
 * the rest (and those of a page that turns out unreadable) from their COGs.
 */
export async function executeCube(plan: StatsPlan, opts: ExecuteOptions = {}): Promise<Cube> {
  const { dataset: d, product } = plan;
  // The store's view (its block set and year folders) is looked up while the basin is prepared;
  // the basin's errors still come first.
  const viewing = Promise.resolve(
    opts.series === false ? null : opts.seriesView !== undefined ? opts.seriesView : seriesView(d),
  );
  viewing.catch(() => {});
  const basin = await preparedBasin(plan, opts.rasters);
  const { area } = basin;
  const nd = plan.dates.length;
  const view = await viewing;
  const reads = planReads(plan, view && (await storeInputs(d, view, plan)));
  const sums: Sums[] = [];
  for (const [vi, v] of plan.variables.entries()) {
    opts.signal?.throwIfAborted();
    const spec = d.config.variables[v]!;
    const all: Sums = { sw: new Float64Array(nd * product), sv: new Float64Array(nd * product) };
    // The store answers only for dates whose COGs are whole on disk, as the COG path does.
    const paged = reads[vi]!.pages.flatMap((p) => p.rows.map((i) => plan.dates[i]!));
    const gone = firstAbsent(
      d.store,
      paged.map((date) => d.paths.cog(date, v)),
    );
    if (gone >= 0) throw dateIncomplete(d.name, paged[gone]!, v);
    const fromSeries =
      view === null ? new Set<number>() : await reduceFromSeries(plan, basin, view, reads[vi]!, all, opts);
    const rest = plan.dates.flatMap((_date, i) => (fromSeries.has(i) ? [] : [i]));
    await mapPool(rest, 8, async (i) => {
      opts.signal?.throwIfAborted();
      const date = plan.dates[i]!;
      const raster = await readOnto(d.store, d.paths.cog(date, v), null, basin.window, spec.nodata, {
        session: opts.rasters,
      });
      if (raster === null) {
        throw dateIncomplete(d.name, date, v);
      }
      accumulateRuns(
        basin,
        0,
        basin.runCell.length,
        { vals: raster.data, base: 0, idx: basin.at, nodata: spec.nodata },
        { sw: all.sw, sv: all.sv, at: i * product },
      );
    });
    sums.push(all);
  }
  return { plan, area, cells: emittedCells(plan, area), sums };
}

/** The cells an answer emits: those with area (the last, unzoned, cell only then), or every zone with `includeEmptyZones`. */
export function emittedCells(plan: StatsPlan, area: Float64Array): Int32Array {
  const keep: number[] = [];
  const unclassified = plan.axes.length > 0 ? plan.product - 1 : -1;
  for (let k = 0; k < plan.product; k++)
    if (area[k]! > 0 || (plan.includeEmptyZones && k !== unclassified)) keep.push(k);
  return Int32Array.from(keep);
}

/**
 * Every column's value per date and emitted cell, in the columns' units, flat: (date index ×
 * emitted cells + j) × columns + c; NaN where the answer says null (no pixel with data, or no area
 * for a valid fraction).
 */
export function columnTable(cube: Cube): Float64Array {
  const out = new Float64Array(cube.plan.dates.length * cube.cells.length * cube.plan.columns.length);
  fillColumns(cube, out, 0, cube.plan.dates.length);
  return out;
}

/**
 * `columnTable`, computed date by date with a turn of the event loop every ~8 ms (a server's
 * cheap requests go on meanwhile); stops when `signal` aborts.
 */
export async function columnTableSliced(cube: Cube, signal?: AbortSignal): Promise<Float64Array> {
  const nd = cube.plan.dates.length;
  const out = new Float64Array(nd * cube.cells.length * cube.plan.columns.length);
  const slicer = new Slicer(signal);
  for (let i = 0; i < nd; i++) {
    fillColumns(cube, out, i, i + 1);
    await slicer.pause();
  }
  return out;
}

/** The table's rows of dates [i0, i1). */
function fillColumns(cube: Cube, out: Float64Array, i0: number, i1: number): void {
  const { plan, area, cells, sums } = cube;
  const { product, columns } = plan;
  const K = cells.length;
  const C = columns.length;
  columns.forEach((col, c) => {
    const { sw: SW, sv: SV } = sums[plan.variables.indexOf(col.variable)]!;
    const spec = plan.dataset.config.variables[col.variable]!;
    const perUnit = totalOf(col.variable, spec)?.perUnit ?? 0; // total per (unit × m²): m (volumes) or 0.01 (areas)
    for (let i = i0; i < i1; i++)
      for (let j = 0; j < K; j++) {
        const k = cells[j]!;
        const sw = SW[i * product + k]!;
        const sv = SV[i * product + k]!;
        let v: number;
        if (col.kind === 'valid') v = area[k]! > 0 ? sw / area[k]! : Number.NaN;
        else if (!(sw > 0)) v = Number.NaN;
        else if (col.kind === 'mean') v = sv / sw / spec.scale_factor / col.divisor + col.offset;
        else v = ((sv / spec.scale_factor) * perUnit) / col.divisor; // m³ (or m²) = Σ value(unit) × perUnit × m²
        out[(i * K + j) * C + c] = v;
      }
  });
}

/** An emitted cell: its zone on each axis and its in-basin area (m², and acres with US units). */
export interface CubeZone {
  zone: ZoneRef[];
  area_m2: number;
  area_acres?: number;
}

/** The emitted cells' zones and areas, in cube order. */
export function zonesOf(cube: Cube): CubeZone[] {
  const { plan, area, cells } = cube;
  const axes = plan.axes.map((a) => a.axis);
  const unclassified = axes.length > 0 ? plan.product - 1 : -1;
  // With US units each zone also names its area in acres (area_m2 stays: the spec's member).
  const areas = (k: number) =>
    plan.query.units === 'us'
      ? { area_m2: area[k]!, area_acres: area[k]! / M2_PER_ACRE }
      : { area_m2: area[k]! };
  return Array.from(cells, (k) => {
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
  });
}
