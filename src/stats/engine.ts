import { join } from 'node:path';
import { aoiPath, parseWindowTag } from '../datasets/artifacts.js';
import { statNames } from '../datasets/config.js';
import { ingestedDates } from '../datasets/inventory.js';
import { type Dataset, openActiveDataset } from '../datasets/registry.js';
import type { Database } from '../db/database.js';
import { DATES_DIR } from '../db/layout.js';
import { QueryParameterError, SnowdbError } from '../errors.js';
import { indexedEntry } from '../pourpoints/store.js';
import { Cog } from '../raster/cog.reader.js';
import type { TypedArray } from '../raster/dtype.js';
import { fullWindow, intersectWindows, type Window } from '../raster/grid.js';
import { FileSource } from '../raster/source.js';
import { mapPool } from '../util/pool.js';
import { enabledLayers, layerPath, ZONE_LAYERS } from '../zones/layers.js';
import type { Axis, ZoneRef } from '../zones/schemes.js';
import { parseZoneTokens } from '../zones/tokens.js';
import { type DateQuery, selectDates } from './dates.js';

/** Default cap on the number of cells a crossing may have. */
export const MAX_ZONE_CELLS = 10_000;

export interface StatsQuery {
  readonly dataset: string;
  readonly pourpoint: string;
  readonly dates: DateQuery;
  /** Zone tokens, one per axis, in order. */
  readonly zones?: readonly string[];
  /** Variable keys; absent or empty = all of the dataset's. */
  readonly variables?: readonly string[];
  readonly includeEmptyZones?: boolean;
  /** Add `valid_fraction_<var>` after each variable's stats. */
  readonly validFraction?: boolean;
  readonly maxZoneCells?: number;
}

/** The compact stats body (spec §2.3). */
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
async function cellIndex(
  d: Dataset,
  axes: readonly Axis[],
  w: Window,
  weights: TypedArray,
): Promise<Int32Array> {
  const cell = new Int32Array(weights.length);
  for (let i = 0; i < weights.length; i++) cell[i] = weights[i]! > 0 ? 0 : -1;
  const ord = new Int32Array(weights.length);
  for (const axis of axes) {
    const spec = ZONE_LAYERS.find((l) => l.key === axis.layer)!;
    const layer = await readOnto(layerPath(d, spec), 'SNOWDB_ZONE_WINDOW', w, spec.nodata);
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
 * Stratified statistics of one basin (spec §2.3–2.6): per date, per cell of the crossed zone
 * axes, each variable's area-weighted mean (weights = the AOI raster's exact coverage × cell
 * area, over pixels with data) and, for water variables, its volume. Only active datasets.
 */
export async function computeStats(db: Database, q: StatsQuery): Promise<CompactStats> {
  const d = await openActiveDataset(db, q.dataset);
  const entry = indexedEntry(await db.index(), q.pourpoint);
  if ((entry.coverage[d.name] ?? 'none') === 'none') {
    throw new SnowdbError(
      'pourpoint-not-covered',
      `pourpoint ${entry.triplet} lies outside the grid of '${d.name}'`,
    );
  }
  const axes = parseZoneTokens(q.zones ?? [], enabledLayers(d));
  const product = axes.reduce((p, a) => p * a.zones.length, 1);
  const cap = q.maxZoneCells ?? MAX_ZONE_CELLS;
  if (product > cap) {
    throw new QueryParameterError(
      `the zone crossing has ${product} cells, more than the limit of ${cap}; use fewer axes or coarser parameters`,
      { parameter: 'zone' },
    );
  }
  const keys = Object.keys(d.config.variables).sort();
  const wanted = q.variables && q.variables.length > 0 ? [...new Set(q.variables)].sort() : keys;
  for (const v of wanted) {
    if (!keys.includes(v))
      throw new QueryParameterError(`unknown variable '${v}' for '${d.name}'; valid: ${keys.join(', ')}`, {
        parameter: 'variable',
        allowed: keys,
      });
  }
  const stats = statNames(d.config).filter((s) => wanted.includes(s.variable));
  const columns: { variable: string; kind: 'mean' | 'total' | 'valid'; name: string }[] = [];
  for (const v of wanted) {
    for (const s of stats.filter((x) => x.variable === v))
      columns.push({ variable: v, kind: s.reducer, name: s.stat });
    if (q.validFraction) columns.push({ variable: v, kind: 'valid', name: `valid_fraction_${v}` });
  }

  const aoi = await readOnto(aoiPath(d, entry.triplet), 'SNOWDB_AOI_WINDOW', null, 0);
  if (aoi === null) {
    throw new SnowdbError(
      'basin-raster-missing',
      `no AOI raster for ${entry.triplet} in '${d.name}' (run 'snowdb pourpoint rasterize ${entry.triplet}')`,
    );
  }
  const { data: weights, window: w } = aoi;
  const cellOf = await cellIndex(d, axes, w, weights);
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

  const dates = selectDates(await ingestedDates(d), q.dates);
  const keep: number[] = [];
  for (let k = 0; k < product; k++) if (q.includeEmptyZones || area[k]! > 0) keep.push(k);
  const results: Record<string, (number | null)[][]> = {};
  const rows = await mapPool(dates, 8, async (date) => {
    const perVar = new Map<string, { sw: Float64Array; sv: Float64Array }>();
    for (const v of wanted) {
      const spec = d.config.variables[v]!;
      const path = join(d.dir, DATES_DIR, date.replaceAll('-', ''), `${v}.tif`);
      const raster = await readOnto(path, null, w, spec.nodata);
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
  dates.forEach((date, i) => {
    results[date] = rows[i]!;
  });
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
