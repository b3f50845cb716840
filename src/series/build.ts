import { mkdir, readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { ingestedDates } from '../datasets/inventory.js';
import type { Dataset } from '../datasets/registry.js';
import { SnowdbError } from '../errors.js';
import { writeFileAtomic } from '../io/atomic.js';
import { namesIn, pathExists } from '../io/fs.js';
import { withFileLock } from '../io/lock.js';
import { allocate, type TypedArray } from '../raster/dtype.js';
import {
  type BlockSet,
  basinBlocks,
  blockSetOf,
  grownBlockSet,
  readBlockSet,
  writeBlockSet,
} from './blocks.js';
import { todayIso, waterYearOfPage } from './pack.js';
import {
  appendBlock,
  BLOCK_PIXELS,
  datesByPage,
  dayNumber,
  decodeBlock,
  encodeBlock,
  encodePage,
  type PageHeader,
  pageBlockSet,
  pageOf,
  parsePageHeader,
  streamIn,
} from './page.js';
import { BlockValuesCache, seriesVariables } from './source.js';
import { clearMarksSeen, staleMarks, staleSeriesDates } from './stale.js';
import { packClosedYears, unpackYears } from './years.js';

export interface SeriesBuildReport {
  readonly variables: string[];
  readonly blocks: number;
  /** Pages written; then closed water years packed (one file per variable and year). */
  readonly pages: number;
  readonly packs: number;
  readonly dates: number;
  readonly bytes: number;
}

/** A page file as stored: header and whole bytes, or null when absent or damaged. */
async function readPage(path: string): Promise<{ header: PageHeader; bytes: Buffer } | null> {
  const bytes = await readFile(path).catch(() => null);
  if (bytes === null) return null;
  try {
    return { header: parsePageHeader(bytes, path), bytes };
  } catch {
    return null;
  }
}

/** An old page whose streams may be kept: those of blocks `reuse` says hold the same pixels at the same ordinal. */
interface OldPage {
  readonly header: PageHeader;
  readonly bytes: Buffer;
  reuse(k: number): boolean;
}

/**
 * Write one page of `variable` for `dates`. Block k's values for date t come from `old` (a
 * current page whose block k `old.reuse`s) unless t is in `fresh` or the page lacks it; then from
 * the date's COG. Other blocks are always read from the COGs. When the page only gains later dates
 * (a daily ingest), each old stream is kept and the new dates' values appended (page.ts
 * `appendBlock`): nothing old is decoded or compressed again.
 */
async function writePage(
  d: Dataset,
  variable: string,
  page: string,
  set: BlockSet,
  dates: readonly string[],
  cache: BlockValuesCache,
  old: OldPage | null,
  fresh: ReadonlySet<string>,
): Promise<number> {
  const dtype = d.config.variables[variable]!.dtype;
  const days = dates.map(dayNumber);
  const oldIndex = new Map<number, number>();
  old?.header.days.forEach((day, i) => {
    oldIndex.set(day, i);
  });
  const fromCog = dates.map((date, t) => fresh.has(date) || !oldIndex.has(days[t]!));
  const cogValues = await Promise.all(
    dates.map((date, t) => (fromCog[t] || old === null ? cache.of(d, date, variable, set) : null)),
  );
  const needCog = (k: number) => old === null || !old.reuse(k);
  const held = old?.header.days.length ?? 0;
  // The old dates, unchanged, then only later ones: old streams are continued.
  const appends =
    old?.header.appendable &&
    dates.length > held &&
    fromCog.every((f, t) => f === t >= held) &&
    days.slice(0, held).every((day, t) => old.header.days[t] === day);
  // Old streams kept byte for byte when the page gains only new blocks.
  const sameDates = old !== null && fromCog.every((f) => !f) && held === days.length;
  const streams: Uint8Array[] = [];
  let appendable = true;
  const values = allocate(dtype, dates.length * BLOCK_PIXELS);
  const oldStream = (k: number) => streamIn(old!.header, old!.bytes, k);
  const fromCogInto = async (into: TypedArray, t: number, at: number, k: number) => {
    const src = (cogValues[t] ?? (await cache.of(d, dates[t]!, variable, set))) as TypedArray;
    into.set(src.subarray(set.starts[k]!, set.starts[k + 1]!) as never, at);
  };
  for (let k = 0; k < set.ids.length; k++) {
    const n = set.counts[k]!; // samples per date
    if (!needCog(k) && sameDates) {
      streams.push(oldStream(k));
      appendable &&= old!.header.appendable;
      continue;
    }
    if (!needCog(k) && appends) {
      const later = values.subarray(0, (dates.length - held) * n);
      for (let t = held; t < dates.length; t++) await fromCogInto(later, t, (t - held) * n, k);
      streams.push(appendBlock(oldStream(k), later));
      continue;
    }
    const prior = needCog(k) ? null : decodeBlock(oldStream(k), dtype, held, n);
    for (let t = 0; t < dates.length; t++) {
      const dst = t * n;
      if (prior !== null && !fromCog[t]) {
        const i = oldIndex.get(days[t]!)! * n;
        values.set(prior.subarray(i, i + n) as never, dst);
      } else await fromCogInto(values, t, dst, k);
    }
    streams.push(encodeBlock(values.subarray(0, dates.length * n)));
  }
  return writeFileAtomic(d.paths.seriesPage(variable, page), [
    encodePage(set.id, dtype, days, streams, appendable),
  ]);
}

/** One page of a full rebuild: what a worker writes (on the block set the rebuild wrote). */
export interface PageTask {
  readonly variable: string;
  /** Page key (datesByPage). */
  readonly page: string;
  /** ISO, ascending. */
  readonly dates: readonly string[];
  /** The block set's id the page must be written on. */
  readonly blockSet: number;
}

/** Writes rebuild pages and returns their sizes (bytes), in the tasks' order. */
export type PageWriter = (
  d: Dataset,
  tasks: readonly PageTask[],
  progress: (done: number, total: number) => void,
) => Promise<number[]>;

/** Write the pages here, in order, sharing one decoded-block cache. */
const writePagesHere: PageWriter = async (d, tasks, progress) => {
  const set = await readBlockSet(d);
  const cache = new BlockValuesCache();
  const out: number[] = [];
  for (const t of tasks) {
    out.push(await writeTaskPage(d, t, set, cache));
    progress(out.length, tasks.length);
  }
  return out;
};

async function writeTaskPage(
  d: Dataset,
  t: PageTask,
  set: BlockSet | null,
  cache: BlockValuesCache,
): Promise<number> {
  if (set === null || set.id !== t.blockSet)
    throw new Error(
      `the series store of '${d.name}' is on another block set than its rebuild's page ${t.page}`,
    );
  return writePage(d, t.variable, t.page, set, t.dates, cache, null, new Set());
}

/** Write one rebuild page (a queue worker's job); the rebuild holds the store's lock meanwhile. */
export async function writeRebuildPage(d: Dataset, t: PageTask): Promise<number> {
  return writeTaskPage(d, t, await readBlockSet(d), new BlockValuesCache());
}

/**
 * Build the whole store from the COGs: the block set from every AOI raster, every page of every
 * series variable (written by `pages`: here, or by queue workers); pages of other dates or
 * variables are removed, stale marks cleared.
 */
export function rebuildSeries(
  d: Dataset,
  progress: (done: number, total: number) => void = () => {},
  pages: PageWriter = writePagesHere,
  today = todayIso(),
  current?: ReadonlyMap<string, string>,
): Promise<SeriesBuildReport> {
  return withSeriesLock(d, () => rebuildLocked(d, progress, pages, today, current));
}

async function rebuildLocked(
  d: Dataset,
  progress: (done: number, total: number) => void,
  writePages: PageWriter,
  today: string,
  current: ReadonlyMap<string, string> | undefined,
): Promise<SeriesBuildReport> {
  // The marks before any COG is read: an ingest that swaps a date meanwhile leaves a newer one.
  const seen = await staleMarks(d);
  const want = await basinBlocks(d, current);
  const set = blockSetOf(d.grid, want.ids, want.masks);
  await mkdir(d.paths.seriesDir, { recursive: true });
  await writeBlockSet(d, set);
  const dates = await ingestedDates(d);
  const pages = datesByPage(dates);
  const variables = seriesVariables(d);
  const tasks: PageTask[] = [];
  for (const v of variables) {
    await mkdir(d.paths.seriesVariable(v), { recursive: true });
    for (const [page, ds] of pages) tasks.push({ variable: v, page, dates: ds, blockSet: set.id });
  }
  const sizes = await writePages(d, tasks, progress);
  for (const v of variables)
    for (const n of await namesIn(d.store, d.paths.seriesVariable(v)))
      if (!pages.has(n.replace(/\.page$/, ''))) await rm(join(d.paths.seriesVariable(v), n), { force: true });
  for (const n of await namesIn(d.store, d.paths.seriesDir))
    if (!n.startsWith('.') && n !== 'blocks.bin' && n !== 'stale' && !variables.includes(n))
      await rm(join(d.paths.seriesDir, n), { recursive: true, force: true });
  await clearMarksSeen(d, seen);
  const packs = await packClosedYears(d, set, dates, today);
  const bytes = sizes.reduce((a, b) => a + b, 0);
  return { variables, blocks: set.ids.length, pages: tasks.length, packs, dates: dates.length, bytes };
}

/** Run `fn` holding the store's lock (one writer at a time, across processes). */
function withSeriesLock<T>(d: Dataset, fn: () => Promise<T>): Promise<T> {
  const lock = join(d.paths.seriesDir, '.lock');
  return withFileLock(
    lock,
    fn,
    (pid) =>
      new SnowdbError(
        'series-locked',
        `the series store of '${d.name}' stays locked by process ${pid} (${lock})`,
      ),
  );
}

/**
 * Bring the pages of stale dates up to date from their COGs (a date no longer ingested leaves its
 * page), then clear the marks. The store is created on the first call for a dataset without one.
 * @returns the number of pages written.
 */
export async function refreshSeries(d: Dataset, today = todayIso()): Promise<number> {
  if ((await pathExists(d.paths.seriesBlocks)) && (await staleSeriesDates(d)).length === 0) return 0;
  return withSeriesLock(d, () => refreshLocked(d, today));
}

async function refreshLocked(d: Dataset, today: string): Promise<number> {
  const set = await readBlockSet(d);
  if (set === null) return (await rebuildLocked(d, () => {}, writePagesHere, today, undefined)).pages;
  const seen = await staleMarks(d);
  const stale = [...seen.keys()];
  if (stale.length === 0) return 0;
  const ingested = await ingestedDates(d);
  const all = datesByPage(ingested);
  const cache = new BlockValuesCache();
  let written = 0;
  const years = new Set(stale.map((date) => waterYearOfPage(pageOf(date))));
  for (const v of seriesVariables(d)) {
    await mkdir(d.paths.seriesVariable(v), { recursive: true });
    await unpackYears(d, v, years);
    for (const page of datesByPage(stale).keys()) {
      const path = d.paths.seriesPage(v, page);
      const dates = all.get(page) ?? [];
      if (dates.length === 0) {
        await rm(path, { force: true });
        continue;
      }
      const old = await readPage(path);
      const usable = old !== null && old.header.blockSet === set.id ? { ...old, reuse: () => true } : null;
      await writePage(d, v, page, set, dates, cache, usable, new Set(stale));
      written++;
    }
  }
  await clearMarksSeen(d, seen);
  // The years written to stay in pages until a refresh leaves them alone: a backfill of a year,
  // batch after batch, then packs it once, when it moves on.
  await packClosedYears(d, set, ingested, today, years);
  return written;
}

/**
 * After basins were imported: add the blocks and pixels of new AOI rasters to every page (old
 * blocks whose mask is unchanged are copied as stored; new blocks, and old ones that gained
 * pixels, read from the COGs). The pages are written first and the block list
 * last: a kill in between leaves pages readers ignore (another block set) and the next call, with
 * the same new blocks, finishes them; a page already on the new set is kept. No-op without a store.
 * @returns the number of blocks added or grown.
 */
export async function extendSeries(d: Dataset, current?: ReadonlyMap<string, string>): Promise<number> {
  if (!(await pathExists(d.paths.seriesBlocks))) return 0;
  return withSeriesLock(d, () => extendLocked(d, current));
}

async function extendLocked(d: Dataset, current: ReadonlyMap<string, string> | undefined): Promise<number> {
  const old = await readBlockSet(d);
  if (old === null) return 0;
  // Old blocks keep their ordinals; new ones follow, so old streams are reused as they are.
  const { set, grown } = grownBlockSet(d.grid, old, await basinBlocks(d, current));
  const changed = set.ids.length - old.ids.length + grown.reduce((a, g) => a + g, 0);
  const reuse = (k: number) => k < old.ids.length && grown[k] === 0;
  const cache = new BlockValuesCache();
  const ingested = await ingestedDates(d);
  const pages = datesByPage(ingested);
  for (const v of seriesVariables(d)) {
    await mkdir(d.paths.seriesVariable(v), { recursive: true });
    // Packs already on the new set are done (a kill before the block list was written); others open up.
    const done = await unpackYears(d, v, null, set.id);
    for (const [page, dates] of pages) {
      if (done.has(waterYearOfPage(page))) continue;
      if ((await pageBlockSet(d.paths.seriesPage(v, page))) === set.id) continue;
      const prev = await readPage(d.paths.seriesPage(v, page));
      const usable = prev !== null && prev.header.blockSet === old.id ? { ...prev, reuse } : null;
      await writePage(d, v, page, set, dates, cache, usable, new Set());
    }
  }
  await packClosedYears(d, set, ingested, todayIso());
  if (changed > 0) await writeBlockSet(d, set);
  return changed;
}
