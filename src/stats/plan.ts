import { statNames } from '../datasets/config.js';
import { ingestedDates } from '../datasets/inventory.js';
import { type Dataset, openActiveDataset } from '../datasets/registry.js';
import type { Database } from '../db/database.js';
import { QueryParameterError, SnowdbError } from '../errors.js';
import type { IndexEntry } from '../pourpoints/index-file.js';
import { indexedEntry, indexOf } from '../pourpoints/store.js';
import { enabledLayers, layerPath, ZONE_LAYERS, type ZoneLayerSpec } from '../zones/layers.js';
import type { Axis } from '../zones/schemes.js';
import { parseZoneTokens } from '../zones/tokens.js';
import { type DateQuery, selectDates } from './dates.js';
import { MAX_ZONE_CELLS } from './limits.js';

export { MAX_ZONE_CELLS } from './limits.js';

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

/** One output column: a variable's mean, volume or valid fraction. */
export interface Column {
  readonly variable: string;
  readonly kind: 'mean' | 'total' | 'valid';
  readonly name: string;
}

/** Everything a stats query reads and computes, resolved before any raster is opened. */
export interface StatsPlan {
  readonly dataset: Dataset;
  readonly entry: IndexEntry;
  /** Zone axes in order, first most significant; `product` = cells of their crossing. */
  readonly axes: readonly { readonly axis: Axis; readonly layer: ZoneLayerSpec; readonly path: string }[];
  readonly product: number;
  /** Variable keys read, sorted. */
  readonly variables: readonly string[];
  readonly columns: readonly Column[];
  readonly includeEmptyZones: boolean;
  /** The basin's AOI raster (weights, m²). */
  readonly aoi: string;
  /** Selected dates (ISO, ascending), each with one COG path per variable (in `variables` order). */
  readonly dates: readonly { readonly date: string; readonly cogs: readonly string[] }[];
  /** Files whose stat signatures change whenever the answer could (the ETag signs them). */
  readonly stateFiles: readonly string[];
  /** The query with its defaults made explicit (the ETag signs it). */
  readonly query: StatsQuery;
}

/** What planning needs from the database: the active dataset, the index and its ingested dates. */
export interface PlanInputs {
  readonly dataset: Dataset;
  readonly index: ReadonlyMap<string, IndexEntry>;
  /** Ingested dates, ISO, ascending. */
  readonly dates: readonly string[];
}

/**
 * Resolve a query without I/O: basin entry and coverage, axes (refused over the cell cap before
 * anything is read), variables and columns, selected dates and every file to read.
 * @throws SnowdbError `pourpoint-not-found`, `pourpoint-not-covered`; QueryParameterError for a
 *   bad zone token, a crossing over the cap or an unknown variable.
 */
export function planStats(inputs: PlanInputs, q: StatsQuery): StatsPlan {
  const d = inputs.dataset;
  const entry = indexedEntry(inputs.index, q.pourpoint);
  if ((entry.coverage[d.name] ?? 'none') === 'none') {
    throw new SnowdbError(
      'pourpoint-not-covered',
      `pourpoint ${entry.triplet} lies outside the grid of '${d.name}'`,
    );
  }
  const axes = parseZoneTokens(q.zones ?? [], enabledLayers(d)).map((axis) => {
    const layer = ZONE_LAYERS.find((l) => l.key === axis.layer)!;
    return { axis, layer, path: layerPath(d, layer) };
  });
  const product = axes.reduce((p, a) => p * a.axis.zones.length, 1);
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
  const columns: Column[] = [];
  for (const v of wanted) {
    for (const s of stats.filter((x) => x.variable === v))
      columns.push({ variable: v, kind: s.reducer, name: s.stat });
    if (q.validFraction) columns.push({ variable: v, kind: 'valid', name: `valid_fraction_${v}` });
  }
  const aoi = d.paths.aoi(entry.triplet);
  return {
    dataset: d,
    entry,
    axes,
    product,
    variables: wanted,
    columns,
    includeEmptyZones: q.includeEmptyZones === true,
    aoi,
    dates: selectDates(inputs.dates, q.dates).map((date) => ({
      date,
      cogs: wanted.map((v) => d.paths.cog(date, v)),
    })),
    stateFiles: [d.configPath, d.paths.datesDir, aoi, ...axes.map((a) => a.path)],
    query: {
      ...q,
      variables: [...new Set(q.variables ?? [])].sort(),
      includeEmptyZones: q.includeEmptyZones === true,
      validFraction: q.validFraction === true,
    },
  };
}

/** A dataset's ingested dates, re-listed only when its `cogs/` folder changed (one stat). */
export function datesOf(db: Database, d: Dataset): Promise<string[]> {
  return db.memo(d.paths.datesDir, () => ingestedDates(d));
}

/**
 * Plan a query against the database: only active datasets exist for it.
 * @throws SnowdbError `dataset-not-found`, and as `planStats`.
 */
export async function openStatsPlan(db: Database, q: StatsQuery): Promise<StatsPlan> {
  const dataset = await openActiveDataset(db, q.dataset);
  const index = await indexOf(db);
  indexedEntry(index, q.pourpoint); // an unknown basin fails before the dates are listed
  return planStats({ dataset, index, dates: await datesOf(db, dataset) }, q);
}
