import { aoiHash } from '../datasets/artifacts.js';
import { statNames } from '../datasets/config.js';
import { type CoverageIndex, coverageIndexOf, type IndexedBasin } from '../datasets/coverage-index.js';
import { datesOf } from '../datasets/inventory.js';
import { type Dataset, openActiveDataset } from '../datasets/registry.js';
import type { Database } from '../db/database.js';
import { QueryParameterError, SnowdbError } from '../errors.js';
import { GROUP_SET, groupMembers, unionOf } from '../pourpoints/groups.js';
import type { IndexEntry } from '../pourpoints/index-file.js';
import { indexedEntry, indexOf } from '../pourpoints/store.js';
import { enabledLayers, layerPath, ZONE_LAYERS, type ZoneLayerSpec } from '../zones/layers.js';
import type { Axis } from '../zones/schemes.js';
import { parseZoneTokens } from '../zones/tokens.js';
import { areaOnGrid, type DrawnArea } from './area.js';
import { type DateQuery, emptySelectionNote, selectDates } from './dates.js';
import { MAX_QUERY_VALUES, MAX_ZONE_CELLS } from './limits.js';
import { type Units, unitIn } from './units.js';
import type { YearSpan } from './water-year.js';

/** Whether and against which years an answer carries normals columns. */
export interface NormalsOption {
  /** Reference water years (default: `defaultReferenceYears`). */
  readonly years?: YearSpan;
}

/** The normals columns each mean and volume column adds: median, % of median, rank, rank of. */
export const NORMALS_COLUMNS_PER_STAT = 4;

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
  /** Cap on dates × cells × columns (default MAX_QUERY_VALUES). */
  readonly maxValues?: number;
  /** Depths in mm and volumes in m³ (metric, the default) or inches and acre-feet (us). */
  readonly units?: Units;
  /** Add normals columns (`anomalies.ts`) after the stat columns. */
  readonly normals?: NormalsOption;
}

/** One output column: a variable's mean, volume or valid fraction, in the query's units. */
export interface Column {
  readonly variable: string;
  readonly kind: 'mean' | 'total' | 'valid';
  /** `mean_swe_mm`, `total_swe_acre_ft`, `valid_fraction_swe`: the unit ends the name. */
  readonly name: string;
  /** Stored-unit value ÷ divisor + offset = value in the column's unit (offset ≠ 0 for °F only). */
  readonly divisor: number;
  readonly offset: number;
}

/** Everything a stats query reads and computes, resolved before any raster is opened. */
export interface StatsPlan {
  readonly dataset: Dataset;
  readonly entry: IndexEntry;
  /** Zone axes in order, first most significant. */
  readonly axes: readonly { readonly axis: Axis; readonly layer: ZoneLayerSpec; readonly path: string }[];
  /**
   * Cells per date: the crossing's cells, then (with any axis) one `unclassified` cell for the
   * basin's pixels that some axis leaves in no zone, so cell areas always sum to the basin.
   */
  readonly product: number;
  /** Variable keys read, sorted. */
  readonly variables: readonly string[];
  readonly columns: readonly Column[];
  readonly includeEmptyZones: boolean;
  /** The basin's AOI raster (weights, m²). */
  readonly aoi: string;
  /** A drawn polygon's weights, read instead of `aoi`. */
  readonly drawn?: DrawnArea;
  /** The basin in its dataset's coverage index, current: its weights are read there instead of `aoi`. */
  readonly indexed?: { readonly index: CoverageIndex; readonly basin: IndexedBasin };
  /** Selected dates, ISO, ascending (where each is read from: `reads.ts`). */
  readonly dates: readonly string[];
  /** Files whose stat signatures change whenever the answer could (the ETag signs them). */
  readonly stateFiles: readonly string[];
  /** Signatures already stat'ed for the other plans of the same every-basin query. */
  readonly sharedSignatures?: Map<string, string>;
  /** The query with its defaults made explicit (the ETag signs it). */
  readonly query: StatsQuery;
  /** What the user should know about the answer (no ingested date selected, with the nearest held). */
  readonly notes: readonly string[];
  /** What it was planned from (the reference plan of normals is planned from the same). */
  readonly inputs: PlanInputs;
}

/** What planning needs from the database: the active dataset, the index and its ingested dates. */
export interface PlanInputs {
  readonly dataset: Dataset;
  readonly index: ReadonlyMap<string, IndexEntry>;
  /** Ingested dates, ISO, ascending. */
  readonly dates: readonly string[];
  /** A drawn polygon's weights, standing in for the AOI raster of the index entry it names. */
  readonly drawn?: DrawnArea;
  /** The dataset's coverage index (header), when it has one. */
  readonly coverage?: CoverageIndex | null;
}

/** What the plans of one every-basin query share: their axes, built once, and their files' signatures. */
export interface SharedPlanning {
  readonly axes: StatsPlan['axes'];
  /** File → signature, stat'ed once for all the plans (one request's worth: never kept). */
  readonly signatures: Map<string, string>;
  /** What basins' plans of one query share (variables, columns, dates), per distinct query. */
  readonly common?: Common[];
}

/** The basin-independent part of a plan: the same for every basin of one query. */
interface Common {
  /** The query parts it follows from (the same objects for every basin of one query). */
  readonly of: Pick<StatsQuery, 'dates' | 'variables' | 'units' | 'validFraction'>;
  readonly wanted: string[];
  readonly columns: Column[];
  readonly dates: string[];
  /** The query's variables as the answer echoes them (distinct, sorted). */
  readonly echoed: string[];
  /** The state files of a plan without its own AOI file (indexed or drawn), made once. */
  files?: string[];
}

/**
 * A query's zone axes on a dataset, zones built (no I/O; the same for every basin, so every-basin
 * plans build them once).
 * @throws QueryParameterError for a bad zone token or a crossing over the cell cap.
 */
export function planAxes(d: Dataset, q: Pick<StatsQuery, 'zones' | 'maxZoneCells'>): StatsPlan['axes'] {
  return parseZoneTokens(q.zones ?? [], enabledLayers(d), q.maxZoneCells ?? MAX_ZONE_CELLS).map((axis) => {
    const layer = ZONE_LAYERS.find((l) => l.key === axis.layer)!;
    return { axis, layer, path: layerPath(d, layer) };
  });
}

/** The plan's common part, made once per distinct query (dates, variables, units, valid fraction) of `shared`. */
function sharedCommon(inputs: PlanInputs, q: StatsQuery, shared: SharedPlanning | undefined): Common {
  if (shared?.common === undefined) return commonOf(inputs, q);
  let c = shared.common.find(
    ({ of }) =>
      of.dates === q.dates &&
      of.variables === q.variables &&
      of.units === q.units &&
      of.validFraction === q.validFraction,
  );
  if (c === undefined) {
    c = commonOf(inputs, q);
    // A caller making new query parts per basin gains nothing here: the list stays short.
    if (shared.common.length < 8) shared.common.push(c);
  }
  return c;
}

/** Variables (checked), columns in the query's units, and the selected dates. */
function commonOf(inputs: PlanInputs, q: StatsQuery): Common {
  const d = inputs.dataset;
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
  const units = q.units ?? 'metric';
  const columns: Column[] = [];
  for (const v of wanted) {
    for (const s of stats.filter((x) => x.variable === v)) {
      const { unit, divisor, offset } = unitIn(s.unit, units);
      columns.push({
        variable: v,
        kind: s.reducer,
        name: `${s.stat.slice(0, -s.unit.length)}${unit}`,
        divisor,
        offset,
      });
    }
    if (q.validFraction)
      columns.push({ variable: v, kind: 'valid', name: `valid_fraction_${v}`, divisor: 1, offset: 0 });
  }
  return {
    of: { dates: q.dates, variables: q.variables, units: q.units, validFraction: q.validFraction },
    wanted,
    columns,
    dates: selectDates(inputs.dates, q.dates),
    echoed: [...new Set(q.variables ?? [])].sort(),
  };
}

/**
 * Resolve a query without I/O: basin entry and coverage, axes (refused over the cell cap before
 * anything is read), variables and columns, selected dates, and the files the answer rests on.
 * @throws SnowdbError `pourpoint-not-found`, `pourpoint-not-covered`; QueryParameterError for a
 *   bad zone token, a crossing over the cap or an unknown variable.
 */
export function planStats(inputs: PlanInputs, q: StatsQuery, shared?: SharedPlanning): StatsPlan {
  const d = inputs.dataset;
  // Plans sharing their planning name basins of the index itself (already checked ids).
  const entry = (shared && inputs.index.get(q.pourpoint)) || indexedEntry(inputs.index, q.pourpoint);
  if ((entry.coverage[d.name] ?? 'none') === 'none') {
    throw new SnowdbError(
      'pourpoint-not-covered',
      `pourpoint ${entry.triplet} lies outside the grid of '${d.name}'`,
    );
  }
  const axes = shared?.axes ?? planAxes(d, q);
  const crossing = axes.reduce((p, a) => p * a.axis.zones.length, 1);
  const common = sharedCommon(inputs, q, shared);
  const { wanted, columns, dates, echoed } = common;
  const aoi = d.paths.aoi(entry.triplet);
  const drawn = inputs.drawn?.id === entry.triplet ? inputs.drawn : undefined;
  const indexed = drawn ? undefined : currentIn(inputs.coverage, d, entry);
  const product = crossing + (axes.length > 0 ? 1 : 0);
  const width = widthOf(columns, q.normals !== undefined);
  checkAnswerSize(
    dates.length * product * width,
    q.maxValues,
    () =>
      `${dates.length} dates × ${product} cells × ${width} columns${q.normals ? ' (normals included)' : ''}`,
  );
  // Without an AOI file of its own, every such plan of the query has the same state files.
  if ((drawn || indexed) && common.files === undefined)
    common.files = [d.configPath, d.paths.datesDir, ...axes.map((a) => a.path)];
  const stateFiles =
    drawn || indexed ? common.files! : [d.configPath, d.paths.datesDir, aoi, ...axes.map((a) => a.path)];
  return {
    dataset: d,
    entry,
    axes,
    product,
    variables: wanted,
    columns,
    includeEmptyZones: q.includeEmptyZones === true,
    aoi,
    ...(drawn && { drawn }),
    ...(indexed && { indexed }),
    dates,
    // A drawn polygon has no AOI file: its geometry hash is in the entry the ETag signs; an
    // indexed basin's weights follow from its entry and the dataset config, signed already.
    stateFiles,
    ...(shared && { sharedSignatures: shared.signatures }),
    notes: dates.length > 0 ? [] : [emptySelectionNote(d.name, inputs.dates, q.dates)!],
    inputs,
    query: {
      ...q,
      variables: echoed,
      includeEmptyZones: q.includeEmptyZones === true,
      validFraction: q.validFraction === true,
      units: q.units ?? 'metric',
    },
  };
}

/** The entry's basin in a coverage index, when the index holds it with its current AOI hash. */
function currentIn(
  index: CoverageIndex | null | undefined,
  d: Dataset,
  entry: IndexEntry,
): StatsPlan['indexed'] {
  const basin = index?.basins.get(entry.triplet);
  if (!index || !basin || basin.aoiHash !== aoiHash(d, entry.geometryHash)) return undefined;
  return { index, basin };
}

/** An answer's columns: the stat columns, and with normals four more per mean and volume. */
const widthOf = (columns: readonly Column[], normals: boolean): number =>
  columns.length +
  (normals ? NORMALS_COLUMNS_PER_STAT * columns.filter((c) => c.kind !== 'valid').length : 0);

/** The columns of a plan's answer (its stat columns, and the normals columns it asks for). */
export const answerWidth = (p: StatsPlan): number => widthOf(p.columns, p.query.normals !== undefined);

/**
 * Refuse an answer of more than `most` numbers (default MAX_QUERY_VALUES) before any work.
 * @throws SnowdbError `query-too-large` naming the numbers (`how`: what multiplies to them).
 */
export function checkAnswerSize(
  values: number,
  most: number | undefined,
  how: string | (() => string),
  advice = 'ask for fewer dates, zones or variables',
): void {
  const limit = most ?? MAX_QUERY_VALUES;
  if (values > limit)
    throw new SnowdbError(
      'query-too-large',
      `the query asks for ${values.toLocaleString('en-US')} numbers (${typeof how === 'string' ? how : how()}), more than the limit of ${limit.toLocaleString('en-US')}; ${advice}`,
      { limit },
    );
}

/**
 * Plan a query against the database: only active datasets exist for it.
 * @throws SnowdbError `dataset-not-found`, and as `planStats`.
 */
export async function openStatsPlan(db: Database, q: StatsQuery): Promise<StatsPlan> {
  return planStats(await planInputs(db, q.dataset, q.pourpoint), q);
}

/**
 * What planning a basin's query needs, read from the database: only active datasets exist for it.
 * @throws SnowdbError `dataset-not-found`, `pourpoint-not-found` (before any error listing the dates).
 */
export async function planInputs(db: Database, dataset: string, pourpoint: string): Promise<PlanInputs> {
  const d = await openActiveDataset(db, dataset);
  // The date folders are listed (a readdir on the thread pool: ~7 ms for 20 years) while the
  // index is read and parsed; a listing's error still comes after the index's and the basin's.
  const dates = pourpoint.startsWith(`${GROUP_SET}:`) ? null : datesOf(db, d);
  dates?.catch(() => {});
  const index = await indexOf(db);
  if (dates === null) return groupInputs(db, d, index, pourpoint);
  indexedEntry(index, pourpoint);
  return { dataset: d, index, dates: await dates, coverage: await coverageIndexOf(db, d) };
}

/**
 * A group's plan inputs: a synthetic entry `group:<name>` and, standing in for its AOI raster, the
 * exact coverage of its members' union on the dataset grid (kept per members' geometry).
 * @throws SnowdbError `pourpoint-not-found` for an unknown group, `pourpoint-not-covered` outside the grid.
 */
async function groupInputs(
  db: Database,
  d: Dataset,
  index: ReadonlyMap<string, IndexEntry>,
  id: string,
): Promise<PlanInputs> {
  const members = await groupMembers(db, id);
  const hashes = members.map((m) => indexedEntry(index, m).geometryHash);
  const key = `${d.name}\0${d.configPath}\0${id}\0${hashes.join(',')}`;
  const made = await db.runtime
    .cache<{ entry: IndexEntry; drawn: DrawnArea }>(
      'group-coverage',
      (v) => v.drawn.weights.byteLength + 1024,
    )
    .get(key, async () => {
      const made = areaOnGrid(
        d.grid,
        d.name,
        await unionOf(db, members),
        `${members.length} basins: ${members.join(', ')}`,
        () => id,
      );
      if (made === null)
        throw new SnowdbError('pourpoint-not-covered', `group ${id} lies outside the grid of '${d.name}'`);
      return made;
    });
  return { dataset: d, index: new Map([[id, made.entry]]), dates: await datesOf(db, d), drawn: made.drawn };
}
