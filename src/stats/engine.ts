import { parseWindowTag } from '../datasets/artifacts.js';
import type { Database } from '../db/database.js';
import { SnowdbError } from '../errors.js';
import { Cog } from '../raster/cog.reader.js';
import type { TypedArray } from '../raster/dtype.js';
import { fullWindow, intersectWindows, type Window } from '../raster/grid.js';
import { FileSource } from '../raster/source.js';
import { mapPool } from '../util/pool.js';
import type { ZoneRef } from '../zones/schemes.js';
import { openStatsPlan, type StatsPlan, type StatsQuery } from './plan.js';

/** The compact stats body (docs/reference.md#stats). */
export interface CompactStats {
  zone_layers: string[];
  variables: string[];
  zones: { zone: ZoneRef[]; area_m2: number }[];
  results: Record<string, (number | null)[][]>;
}

/**
 * Read a stored raster onto window `want` of the dataset grid, `fill` outside the raster. The
 * raster lies at the window its `tag` holds (col row width height), or covers the whole grid when
 * `tag` is null; `want` null = the raster's own window. One open per file; null when it is absent.
 * A raster that covers `want` is returned as read (its own pixel type, no copy).
 */
async function readOnto(
  path: string,
  tag: string | null,
  want: Window | null,
  fill: number,
): Promise<{ data: TypedArray; window: Window } | null> {
  const src = new FileSource(path);
  try {
    const cog = await Cog.open(src).catch((e: NodeJS.ErrnoException) => {
      if (e.code === 'ENOENT') return null;
      throw e;
    });
    if (cog === null) return null;
    const at = tag === null ? fullWindow(cog.grid) : parseWindowTag(cog.metadata.items[tag] ?? null);
    if (at === null) throw new SnowdbError('invalid-raster', `${path}: no ${tag} tag`);
    const w = want ?? at;
    const inter = intersectWindows(at, w);
    const local = inter && { ...inter, col: inter.col - at.col, row: inter.row - at.row };
    if (inter && local && inter.width === w.width && inter.height === w.height)
      return { data: await cog.readWindow(local), window: w };
    const data = new Float64Array(w.width * w.height).fill(fill);
    if (inter && local) {
      const part = await cog.readWindow(local);
      for (let r = 0; r < inter.height; r++) {
        const dst = (inter.row - w.row + r) * w.width + (inter.col - w.col);
        for (let c = 0; c < inter.width; c++) data[dst + c] = part[r * inter.width + c]!;
      }
    }
    return { data, window: w };
  } finally {
    await src.close();
  }
}

/** Each pixel's cell index in the crossed product (−1 = in no cell), first axis most significant. */
async function cellIndex(plan: StatsPlan, w: Window, weights: TypedArray): Promise<Int32Array> {
  const d = plan.dataset;
  const cell = new Int32Array(weights.length);
  for (let i = 0; i < weights.length; i++) cell[i] = weights[i]! > 0 ? 0 : -1;
  const ord = new Int32Array(weights.length);
  for (const { axis, layer: spec, path } of plan.axes) {
    const layer = await readOnto(path, 'SNOWDB_ZONE_WINDOW', w, spec.nodata);
    if (layer === null) {
      throw new SnowdbError(
        'zone-layer-missing',
        `zone layer '${axis.layer}' of '${d.name}' has not been generated (run 'snowdb dataset generate-zones ${d.name}')`,
      );
    }
    axis.classify(layer.data, spec.nodata, ord);
    const n = axis.zones.length;
    for (let i = 0; i < cell.length; i++) {
      const o = ord[i]!;
      cell[i] = cell[i]! < 0 || o < 0 ? -1 : cell[i]! * n + o;
    }
  }
  return cell;
}

/**
 * Execute a plan: per date, per cell of the crossed zone axes, each variable's area-weighted mean
 * (weights = the AOI raster's exact coverage × cell area, over pixels with data) and, for water
 * variables, its volume.
 */
export async function executeStats(plan: StatsPlan): Promise<CompactStats> {
  const { dataset: d, entry, product, columns } = plan;
  const aoi = await readOnto(plan.aoi, 'SNOWDB_AOI_WINDOW', null, 0);
  if (aoi === null) {
    throw new SnowdbError(
      'basin-raster-missing',
      `no AOI raster for ${entry.triplet} in '${d.name}' (run 'snowdb pourpoint rasterize ${entry.triplet}')`,
    );
  }
  const { data: weights, window: w } = aoi;
  const cellOf = await cellIndex(plan, w, weights);
  // The basin's pixels in some cell, as parallel lists: window offset, cell, weight (m²).
  let n = 0;
  for (let i = 0; i < cellOf.length; i++) if (cellOf[i]! >= 0) n++;
  const at = new Int32Array(n);
  const cell = new Int32Array(n);
  const weight = new Float64Array(n);
  const area = new Float64Array(product); // m² per cell
  for (let i = 0, j = 0; i < cellOf.length; i++) {
    const c = cellOf[i]!;
    if (c < 0) continue;
    at[j] = i;
    cell[j] = c;
    weight[j] = weights[i]!;
    area[c] = area[c]! + weights[i]!;
    j++;
  }

  const keep: number[] = [];
  for (let k = 0; k < product; k++) if (plan.includeEmptyZones || area[k]! > 0) keep.push(k);
  const results: Record<string, (number | null)[][]> = {};
  const rows = await mapPool(plan.dates, 8, async ({ date, cogs }) => {
    const perVar = new Map<string, { sw: Float64Array; sv: Float64Array }>();
    for (const [vi, v] of plan.variables.entries()) {
      const spec = d.config.variables[v]!;
      const raster = await readOnto(cogs[vi]!, null, w, spec.nodata);
      if (raster === null) {
        throw new SnowdbError(
          'date-incomplete',
          `${d.name} ${date} has no '${v}' raster (re-ingest that date)`,
        );
      }
      const data = raster.data;
      const sw = new Float64Array(product); // Σ weight of pixels with data, m²
      const sv = new Float64Array(product); // Σ stored value × weight
      for (let j = 0; j < n; j++) {
        const x = data[at[j]!]!;
        if (x === spec.nodata || Number.isNaN(x)) continue;
        const c = cell[j]!;
        sw[c] = sw[c]! + weight[j]!;
        sv[c] = sv[c]! + x * weight[j]!;
      }
      perVar.set(v, { sw, sv });
    }
    return keep.map((k) =>
      columns.map((col) => {
        const { sw, sv } = perVar.get(col.variable)!;
        const spec = d.config.variables[col.variable]!;
        if (col.kind === 'valid') return area[k]! > 0 ? sw[k]! / area[k]! : null;
        if (!(sw[k]! > 0)) return null;
        if (col.kind === 'mean') return sv[k]! / sw[k]! / spec.scale_factor;
        return (sv[k]! / spec.scale_factor) * spec.volume_m_per_unit!; // m³ = Σ value(unit) × m/unit × m²
      }),
    );
  });
  plan.dates.forEach(({ date }, i) => {
    results[date] = rows[i]!;
  });
  const axes = plan.axes.map((a) => a.axis);
  return {
    zone_layers: axes.map((a) => a.layer),
    variables: columns.map((c) => c.name),
    zones: keep.map((k) => {
      const zone: ZoneRef[] = [];
      let rest = k;
      for (let a = axes.length - 1; a >= 0; a--) {
        const n = axes[a]!.zones.length;
        zone.unshift(axes[a]!.zones[rest % n]!);
        rest = Math.floor(rest / n);
      }
      return { zone, area_m2: area[k]! };
    }),
    results,
  };
}

/** Stratified statistics of one basin in an active dataset: plan, then execute. */
export async function computeStats(db: Database, q: StatsQuery): Promise<CompactStats> {
  return executeStats(await openStatsPlan(db, q));
}
