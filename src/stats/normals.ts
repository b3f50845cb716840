/**
 * Day-of-year normals: a basin's statistics on each day of the water year over reference water
 * years, per zone cell and column: median, mean, 10th and 90th percentiles (linear interpolation
 * between order statistics, numpy's default), min, max and the number of years with a value. The
 * reference series is one ordinary stats query over the reference span, kept in a byte-bounded
 * cache while the dataset's state is unchanged.
 */
import type { Database } from '../db/database.js';
import { SnowdbError } from '../errors.js';
import { waterYearOf } from '../util/dates.js';
import type { Runtime } from '../util/runtime.js';
import { type Cube, columnTable, type ExecuteOptions, executeCube, zonesOf } from './cube.js';
import type { CompactStats } from './engine.js';
import {
  checkAnswerSize,
  type PlanInputs,
  planInputs,
  planStats,
  type StatsPlan,
  type StatsQuery,
} from './plan.js';
import { statsStateKey } from './state.js';
import {
  checkYearSpan,
  DAY_INDEX,
  dayKey,
  defaultReferenceYears,
  WATER_YEAR_DAYS,
  waterYearSpan,
  type YearSpan,
} from './water-year.js';

export type { YearSpan } from './water-year.js';

/** A normals query: a stats query without dates (the reference years select them). */
export interface NormalsQuery extends Omit<StatsQuery, 'dates' | 'validFraction'> {
  /** Reference water years; absent = the default (`defaultReferenceYears`). */
  readonly years?: YearSpan;
}

/** The statistics of each column, in output order. */
export const NORMAL_STATISTICS = ['median', 'mean', 'p10', 'p90', 'min', 'max', 'years'] as const;

/** The reference years behind a set of normals. */
export interface Reference {
  start_water_year: number;
  end_water_year: number;
  /** The water years in the span with at least one date, ascending. */
  water_years: number[];
  /** Whether the span is the default (`defaultReferenceYears`), not asked for. */
  by_default: boolean;
  /** Asked-for water years of the span that hold no date (empty by default). */
  missing_water_years: number[];
  /** Per stat column: the water years that gave it at least one value on the days read. */
  column_water_years?: Record<string, number[]>;
}

/** The compact normals body: zones once, `results` keyed by day (`MM-DD`, water-year order). */
export interface NormalsBody extends Omit<CompactStats, 'results'> {
  reference: Reference;
  results: Record<string, (number | null)[][]>;
}

/** What a table's rows are about: the axes, the column names and the emitted cells. */
export type TableHeader = Omit<CompactStats, 'results'>;

/** The reference values: per day of the water year, cell, column and reference year. */
export interface ReferenceTable {
  readonly reference: Reference;
  readonly header: TableHeader;
  /** Value of (day d, cell k, column c, year y) at ((d × cells + k) × columns + c) × years + y; NaN = none. */
  readonly values: Float64Array;
}

/**
 * The reference water years of a dataset's dates: the asked span's years with any date, or by
 * default every water year before the current one (`defaultReferenceYears`).
 * @throws SnowdbError `no-reference-years` when none has a date.
 */
export function referenceYears(dates: readonly string[], dataset: string, years?: YearSpan): Reference {
  checkYearSpan(years, 'normals_years');
  const held = years
    ? [...new Set(dates.map(waterYearOf))]
        .filter((y) => y >= years.start && y <= years.end)
        .sort((a, b) => a - b)
    : defaultReferenceYears(dates);
  if (held.length === 0) {
    const span = dates.length > 0 ? `dates ${dates[0]} … ${dates.at(-1)}` : 'no dates';
    throw new SnowdbError(
      'no-reference-years',
      years
        ? `'${dataset}' has no date in water years ${years.start}..${years.end} (${span})`
        : `'${dataset}' has no water year before its current one (${span}); name reference years with normals_years=Y1..Y2 (--normals-years Y1..Y2 on the command line)`,
    );
  }
  const missing: number[] = [];
  if (years) for (let y = years.start; y <= years.end; y++) if (!held.includes(y)) missing.push(y);
  return {
    start_water_year: years?.start ?? held[0]!,
    end_water_year: years?.end ?? held.at(-1)!,
    water_years: held,
    by_default: years === undefined,
    missing_water_years: missing,
  };
}

/** The note an answer carries when asked-for reference years hold no date; null when all do. */
export function referenceNote(dataset: string, r: Reference): string | null {
  const n = r.missing_water_years.length;
  if (n === 0) return null;
  const used = r.water_years;
  return `reference water years ${r.start_water_year}..${r.end_water_year} asked; '${dataset}' holds ${used.length} of them (${yearList(used)}), so the normals use those; ${n} hold no date (${yearList(r.missing_water_years)})`;
}

/** An answer's notes: its plan's, then the reference note of each distinct reference span. */
export function answerNotes(
  dataset: string,
  planNotes: readonly string[],
  references: readonly (Reference | undefined)[] = [],
): string[] {
  const notes = [...planNotes];
  for (const r of references) {
    const note = r && referenceNote(dataset, r);
    if (note && !notes.includes(note)) notes.push(note);
  }
  return notes;
}

/** 2004–2006, 2010: ascending years with runs joined. */
function yearList(ys: readonly number[]): string {
  const parts: string[] = [];
  for (let i = 0; i < ys.length; ) {
    let j = i;
    while (j + 1 < ys.length && ys[j + 1] === ys[j]! + 1) j++;
    parts.push(j === i ? String(ys[i]) : `${ys[i]}–${ys[j]}`);
    i = j + 1;
  }
  return parts.join(', ');
}

/** Arrange a cube over the reference span by day, cell, column and year. */
function tabulate(cube: Cube, reference: Reference): ReferenceTable {
  const { plan } = cube;
  const ys = reference.water_years;
  const yearAt = new Map(ys.map((y, i) => [y, i]));
  const K = cube.cells.length;
  const C = plan.columns.length;
  const table = columnTable(cube);
  const values = new Float64Array(WATER_YEAR_DAYS.length * K * C * ys.length).fill(Number.NaN);
  plan.dates.forEach((date, i) => {
    const y = yearAt.get(waterYearOf(date));
    if (y === undefined) return;
    const d = DAY_INDEX.get(dayKey(date))!;
    for (let k = 0; k < K; k++)
      for (let c = 0; c < C; c++) values[((d * K + k) * C + c) * ys.length + y] = table[(i * K + k) * C + c]!;
  });
  // Per column, the years that gave it a value on the days read.
  const column_water_years: Record<string, number[]> = {};
  plan.columns.forEach(({ name }, c) => {
    const got = new Uint8Array(ys.length);
    for (let d = 0; d < WATER_YEAR_DAYS.length; d++)
      for (let k = 0; k < K; k++) {
        const at = ((d * K + k) * C + c) * ys.length;
        for (let y = 0; y < ys.length; y++) if (!Number.isNaN(values[at + y]!)) got[y] = 1;
      }
    column_water_years[name] = ys.filter((_, y) => got[y] === 1);
  });
  const header: TableHeader = {
    zone_layers: plan.axes.map((a) => a.axis.layer),
    variables: plan.columns.map((c) => c.name),
    zones: zonesOf(cube),
  };
  return { reference: { ...reference, column_water_years }, header, values };
}

/** The q-quantile of ascending `xs` (n ≥ 1), linear between order statistics (numpy's default). */
export function quantile(xs: Float64Array, n: number, q: number): number {
  const h = q * (n - 1);
  const lo = Math.floor(h);
  const hi = Math.min(lo + 1, n - 1);
  return xs[lo]! + (h - lo) * (xs[hi]! - xs[lo]!);
}

/** The sorted values of one (day, cell, column) into `buf`, minus year `skip`; returns how many. */
export function gather(
  t: ReferenceTable,
  d: number,
  k: number,
  c: number,
  buf: Float64Array,
  skip = -1,
): number {
  const Y = t.reference.water_years.length;
  const at = ((d * t.header.zones.length + k) * t.header.variables.length + c) * Y;
  let n = 0;
  for (let y = 0; y < Y; y++) {
    const v = t.values[at + y]!;
    if (y !== skip && !Number.isNaN(v)) buf[n++] = v;
  }
  buf.subarray(0, n).sort();
  return n;
}

/** The normals body of a reference table. */
export function normalsOf(t: ReferenceTable): NormalsBody {
  const base = t.header;
  const buf = new Float64Array(t.reference.water_years.length);
  const results: Record<string, (number | null)[][]> = {};
  WATER_YEAR_DAYS.forEach((day, d) => {
    results[day] = base.zones.map((_, k) =>
      base.variables.flatMap((_, c) => {
        const n = gather(t, d, k, c, buf);
        if (n === 0) return [null, null, null, null, null, null, 0];
        let sum = 0;
        for (let i = 0; i < n; i++) sum += buf[i]!;
        return [
          quantile(buf, n, 0.5),
          sum / n,
          quantile(buf, n, 0.1),
          quantile(buf, n, 0.9),
          buf[0]!,
          buf[n - 1]!,
          n,
        ];
      }),
    );
  });
  return {
    zone_layers: base.zone_layers,
    variables: base.variables.flatMap((c) => NORMAL_STATISTICS.map((s) => `${s}_${c}`)),
    zones: base.zones,
    reference: t.reference,
    results,
  };
}

/** A table's bytes: its values (8 per number), plus 4 bytes per character of its header and reference as JSON (their objects, measured on Node 20 and 26, take 2–3.5). */
export const tableBytes = (t: ReferenceTable): number =>
  t.values.byteLength + 4 * JSON.stringify([t.header, t.reference]).length;

/** Reference tables by state key. */
const tables = (rt: Runtime) => rt.cache<ReferenceTable>('normals', tableBytes);

/** How a reference table is computed: `cached: false` reads every year again (benchmarks). */
export interface NormalsOptions extends ExecuteOptions {
  readonly cached?: boolean;
}

/** A normals query resolved without reading a raster: the reference years and the stats plan over them. */
export interface NormalsPlan {
  readonly reference: Reference;
  /** The reference span's dates (only `days` of them when given), valid fractions off. */
  readonly stats: StatsPlan;
  /** The days of the water year read (`MM-DD`); absent = all. */
  readonly days?: ReadonlySet<string>;
}

/**
 * Plan a basin's normals (pure): the reference years (`referenceYears`) and one stats plan over
 * their dates; with `days`, only those days of each year.
 */
export function planNormals(inputs: PlanInputs, q: NormalsQuery, days?: ReadonlySet<string>): NormalsPlan {
  const reference = referenceYears(inputs.dates, inputs.dataset.name, q.years);
  const dates = {
    type: 'DateRange' as const,
    start_date: waterYearSpan(reference.water_years[0]!).first,
    end_date: waterYearSpan(reference.water_years.at(-1)!).last,
  };
  const held = days === undefined ? inputs.dates : inputs.dates.filter((d) => days.has(dayKey(d)));
  const stats = planStats(
    { ...inputs, dates: held },
    { ...q, dates, validFraction: false, normals: undefined },
  );
  return { reference, stats, ...(days && { days }) };
}

/** A key that changes whenever a normals plan's answer could (its stats plan's state and its days). */
export function normalsStateKey(p: NormalsPlan): string {
  return `${statsStateKey(p.stats)}/${p.days === undefined ? '*' : [...p.days].sort().join(',')}`;
}

/**
 * The reference table of a normals plan, from the cache while nothing it reads has changed.
 * `o.signal` abandons the wait; the shared fill stops once every query waiting on it has left.
 */
export async function executeNormals(p: NormalsPlan, o: NormalsOptions = {}): Promise<ReferenceTable> {
  const { cached = true, ...exec } = o;
  const compute = async (signal?: AbortSignal) =>
    tabulate(await executeCube(p.stats, { ...exec, signal }), p.reference);
  return cached
    ? tables(p.stats.dataset.runtime).get(normalsStateKey(p), compute, exec.signal)
    : compute(exec.signal);
}

/**
 * The reference table of a basin query; with `days` (`MM-DD`), only those days are read (the
 * rest stay NaN). Valid fractions are not part of normals.
 */
export async function referenceTable(
  inputs: PlanInputs,
  q: NormalsQuery,
  days?: ReadonlySet<string>,
  o: NormalsOptions = {},
): Promise<ReferenceTable> {
  return executeNormals(planNormals(inputs, q, days), o);
}

/**
 * Plan a basin's normals answer against the database: its size (every day of the water year ×
 * cell × column × statistic, not the dates read) checked against the query's cap first.
 * @throws SnowdbError `query-too-large`; as `planNormals`.
 */
export async function openNormalsPlan(db: Database, q: NormalsQuery): Promise<NormalsPlan> {
  const p = planNormals(await planInputs(db, q.dataset, q.pourpoint), q);
  const [D, K, C, S] = [
    WATER_YEAR_DAYS.length,
    p.stats.product,
    p.stats.columns.length,
    NORMAL_STATISTICS.length,
  ];
  checkAnswerSize(D * K * C * S, q.maxValues, `${D} days × ${K} cells × ${C} columns × ${S} statistics`);
  return p;
}

/** Day-of-year normals of one basin in an active dataset. */
export async function computeNormals(
  db: Database,
  q: NormalsQuery,
  o: NormalsOptions = {},
): Promise<NormalsBody> {
  return normalsOf(await executeNormals(await openNormalsPlan(db, q), o));
}
