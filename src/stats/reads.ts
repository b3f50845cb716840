/**
 * Where a plan's rasters are read from, decided before any raster is opened: per variable, the
 * dates series pages give (each page with its header and each date's time slot) and the dates read
 * from their COG windows. `planReads` is pure; its inputs (the store's variables and stale dates,
 * the headers of the pages the plan's dates fall on) are read by `storeInputs`, as the date list
 * is read before the plan. Execution still falls back to the COGs for a page it cannot read.
 */
import type { Dataset } from '../datasets/registry.js';
import { dayNumber, type PageHeader, pageOf } from '../series/page.js';
import { pageHeader, type SeriesView } from '../series/read.js';
import { mapPool } from '../util/pool.js';

/** One series page a variable reads: the plan dates it gives (rows) at their time slots. */
export interface PageRead {
  readonly page: string;
  readonly header: PageHeader;
  /** Plan date indices, ascending. */
  readonly rows: readonly number[];
  /** Each row's time slot in the page (0 … dates held − 1). */
  readonly slots: readonly number[];
}

/** A variable's reads: pages of the store, then the date indices read from their COGs. */
export interface VariableReads {
  readonly variable: string;
  readonly pages: readonly PageRead[];
  /** Plan date indices, ascending: not in the store, stale, on an absent or damaged page. */
  readonly cogs: readonly number[];
}

/** What the store says about a plan's dates: its variables, stale dates and page headers. */
export interface StoreInputs {
  readonly variables: readonly string[];
  /** Dates whose pages wait for an update, ISO. */
  readonly stale: ReadonlySet<string>;
  /** By `variable/page`: the header, or null when the page is absent, damaged or of another set. */
  readonly headers: ReadonlyMap<string, PageHeader | null>;
}

/** What a plan's reads depend on: its dataset (dtypes), dates and variables. */
export interface ReadsQuery {
  readonly dataset: Pick<Dataset, 'config'>;
  /** ISO, ascending. */
  readonly dates: readonly string[];
  readonly variables: readonly string[];
}

/**
 * Decide every read of a plan, in `variables` order. Without a store (`null`), or for a variable
 * it does not hold, every date is a COG read; a page of another dtype than the variable's is too.
 */
export function planReads(q: ReadsQuery, store: StoreInputs | null): VariableReads[] {
  return q.variables.map((variable) => {
    const cogs: number[] = [];
    const pages = new Map<string, { page: string; header: PageHeader; rows: number[]; slots: number[] }>();
    const dtype = q.dataset.config.variables[variable]?.dtype;
    const held = store?.variables.includes(variable) ? store : null;
    q.dates.forEach((date, i) => {
      const page = pageOf(date);
      const header = held && !held.stale.has(date) ? held.headers.get(`${variable}/${page}`) : null;
      const slot = header && header.dtype === dtype ? header.days.indexOf(dayNumber(date)) : -1;
      if (slot < 0) {
        cogs.push(i);
        return;
      }
      const read = pages.get(page) ?? { page, header: header!, rows: [], slots: [] };
      read.rows.push(i);
      read.slots.push(slot);
      pages.set(page, read);
    });
    return { variable, pages: [...pages.values()], cogs };
  });
}

/** Range requests in flight per query on a replica (local reads do not wait). */
export const REMOTE_REQUESTS = 16;

/** The store inputs of a plan's reads: the headers of the pages its fresh dates fall on. */
export async function storeInputs(d: Dataset, view: SeriesView, q: ReadsQuery): Promise<StoreInputs> {
  const pages = [...new Set(q.dates.filter((date) => !view.stale.has(date)).map(pageOf))];
  const wanted = q.variables.filter((v) => view.variables.includes(v));
  const keys = wanted.flatMap((v) => pages.map((p) => [v, p] as const));
  const headers = await mapPool(keys, REMOTE_REQUESTS, ([v, p]) => pageHeader(d, view, v, p));
  return {
    variables: view.variables,
    stale: view.stale,
    headers: new Map(keys.map(([v, p], k) => [`${v}/${p}`, headers[k]!])),
  };
}
