/**
 * Reading the series store: a per-dataset view (block set, stale dates, page and pack listing)
 * reloaded only when one of its files changes, page headers and pack indexes read once; the views
 * are the runtime's. The blocks themselves are read by block-reads.ts.
 */
import type { Dataset } from '../datasets/registry.js';
import { namesIn } from '../io/fs.js';
import { fileSignature } from '../io/memo.js';
import type { Store } from '../io/store.js';
import type { TypedArray } from '../raster/dtype.js';
import type { AsyncLru } from '../util/lru.js';
import { type BlockSet, readBlockSet } from './blocks.js';
import { PACK_PROBE, type PackIndex, packHeaderLength, parsePack, waterYearOfPage } from './pack.js';
import { headerBound, headerLength, isoOfDay, type PageHeader, pageOf, parsePageHeader } from './page.js';
import { seriesVariables } from './source.js';
import { staleSeriesDates } from './stale.js';

/** A consistent read-only view of one dataset's store. */
export interface SeriesView {
  /** Where the pages are read from (the dataset's store). */
  readonly store: Store;
  readonly set: BlockSet;
  /** Dates whose pages wait for an update (read from the COGs meanwhile), ISO. */
  readonly stale: ReadonlySet<string>;
  readonly variables: readonly string[];
  /** Pages present per variable. */
  readonly pages: ReadonlyMap<string, ReadonlySet<string>>;
  /** Water years packed per variable (a pack holds its year's pages: its own page files are leftovers). */
  readonly packs: ReadonlyMap<string, ReadonlySet<number>>;
  readonly generation: number;
  readonly headers: Map<string, PageHeader | null>;
  /** Pack indexes by `variable/wy`, read once; null when damaged or of another block set. */
  readonly packIndex: Map<string, Promise<PackIndex | null>>;
  /** Decoded blocks by view generation, page file and block (the runtime's block cache). */
  readonly blocks: AsyncLru<TypedArray>;
}

type Views = Map<string, { key: string; view: SeriesView | null; at: number }>;
/** Numbers views across runtimes (a block cache key must not outlive its view's files). */
let generation = 0;

/** The dataset's store as it is now, or null when it has none (one stat per file it rests on). */
export async function seriesView(d: Dataset): Promise<SeriesView | null> {
  const variables = seriesVariables(d);
  const files = [
    d.paths.seriesBlocks,
    d.paths.seriesStaleDir,
    ...variables.map((v) => d.paths.seriesVariable(v)),
  ];
  const key = files.map((f) => fileSignature(d.store, f)).join('|');
  const views = d.runtime.held<Views>('series-views', () => new Map());
  const hit = views.get(d.dir);
  // A view loaded within 100 ms of a change may have missed a same-tick rewrite: reload it.
  if (hit !== undefined && hit.key === key && Date.now() - hit.at > 100) return hit.view;
  const set = await readBlockSet(d).catch(() => null);
  let view: SeriesView | null = null;
  if (set !== null) {
    const pages = new Map<string, Set<string>>();
    const packs = new Map<string, Set<number>>();
    for (const v of variables) {
      const names = await namesIn(d.store, d.paths.seriesVariable(v));
      pages.set(v, new Set(names.filter((n) => n.endsWith('.page')).map((n) => n.slice(0, -5))));
      packs.set(v, new Set(names.flatMap((n) => packYearOf(n) ?? [])));
    }
    view = {
      store: d.store,
      set,
      stale: new Set(await staleSeriesDates(d)),
      variables,
      pages,
      packs,
      generation: ++generation,
      headers: new Map(),
      packIndex: new Map(),
      blocks: d.runtime.cache<TypedArray>('series-blocks', (b) => b.byteLength),
    };
  }
  views.set(d.dir, { key, view, at: hit?.key === key ? hit.at : Date.now() });
  return view;
}

/** The water year of a pack's file name (`wy2024.pack`), or null for another name. */
export function packYearOf(name: string): number | null {
  const m = /^wy(\d{4})\.pack$/.exec(name);
  return m === null ? null : Number(m[1]);
}

/** Read a pack's index (two reads), or null when absent or damaged. */
export async function readPackIndex(store: Store, path: string): Promise<PackIndex | null> {
  try {
    const len = packHeaderLength(await store.readAt(path, 0, PACK_PROBE), path);
    return parsePack(await store.readAt(path, 0, len), path, (day) => pageOf(isoOfDay(day)));
  } catch {
    return null; // absent or damaged: the dates read from the COGs; doctor reports it
  }
}

/** A pack's block-set id from its first bytes alone (no index read), or null when absent or not a pack. */
export async function packBlockSet(store: Store, path: string): Promise<number | null> {
  try {
    const first = await store.readAt(path, 0, PACK_PROBE);
    packHeaderLength(first, path);
    return Buffer.from(first.buffer, first.byteOffset, first.byteLength).readUInt32LE(12);
  } catch {
    return null;
  }
}

/** A pack's index through the view (read once), or null when absent, damaged or of another set. */
function packIndex(d: Dataset, view: SeriesView, variable: string, wy: number): Promise<PackIndex | null> {
  const key = `${variable}/${wy}`;
  let hit = view.packIndex.get(key);
  if (hit === undefined) {
    hit = readPackIndex(d.store, d.paths.seriesPack(variable, wy)).then((p) =>
      p !== null && p.blockSet === view.set.id ? p : null,
    );
    view.packIndex.set(key, hit);
  }
  return hit;
}

/**
 * A page's header, or null when the page is absent, damaged or of another block set. A page of a
 * packed water year is read from its pack, never from a page file left beside it.
 */
export async function pageHeader(
  d: Dataset,
  view: SeriesView,
  variable: string,
  page: string,
): Promise<PageHeader | null> {
  const key = `${variable}/${page}`;
  if (view.headers.has(key)) return view.headers.get(key)!;
  let header: PageHeader | null = null;
  const wy = waterYearOfPage(page);
  if (view.packs.get(variable)?.has(wy)) {
    const index = await packIndex(d, view, variable, wy);
    const i = index?.pages.indexOf(page) ?? -1;
    header = index !== null && i >= 0 ? index.header(i) : null;
    if (header !== null && header.blocks !== view.set.ids.length) header = null;
  } else if (view.pages.get(variable)?.has(page)) {
    const path = d.paths.seriesPage(variable, page);
    const store = d.store;
    try {
      let buf = await store.readAt(path, 0, headerBound(view.set.ids.length));
      const len = headerLength(buf, path);
      if (len > buf.length) buf = await store.readAt(path, 0, len);
      header = parsePageHeader(buf.subarray(0, len), path);
      if (header.blockSet !== view.set.id || header.blocks !== view.set.ids.length) header = null;
    } catch {
      header = null; // absent or damaged: the dates read from the COGs; doctor reports it
    }
  }
  view.headers.set(key, header);
  return header;
}
