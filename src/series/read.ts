/**
 * Reading the series store: a per-dataset view (block set, stale dates, page listing) reloaded
 * only when one of its files changes, page headers read once, decoded blocks in the runtime's
 * cache ('series-blocks'); the views are the runtime's too. Local page bytes are read with positional reads on a synchronously opened descriptor: they
 * are small page-cache reads, cheaper than thread-pool round trips, and a query makes thousands.
 * A replica's pages are read with one range request per run of adjacent blocks.
 */
import type { Dataset } from '../datasets/registry.js';
import { namesIn } from '../io/fs.js';
import { fileSignature } from '../io/memo.js';
import { OpenFiles } from '../io/open-files.js';
import type { Store } from '../io/store.js';
import type { DType, TypedArray } from '../raster/dtype.js';
import type { AsyncLru } from '../util/lru.js';
import { type BlockSet, readBlockSet } from './blocks.js';
import { PACK_PROBE, type PackIndex, packHeaderLength, parsePack, waterYearOfPage } from './pack.js';
import {
  decodeBlock,
  headerBound,
  headerLength,
  isoOfDay,
  type PageHeader,
  pageOf,
  parsePageHeader,
} from './page.js';
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
    if (header !== null && header.offsets.length !== view.set.ids.length) header = null;
  } else if (view.pages.get(variable)?.has(page)) {
    const path = d.paths.seriesPage(variable, page);
    const store = d.store;
    try {
      let buf = await store.readAt(path, 0, headerBound(view.set.ids.length));
      const len = headerLength(buf, path);
      if (len > buf.length) buf = await store.readAt(path, 0, len);
      header = parsePageHeader(buf.subarray(0, len), path);
      if (header.blockSet !== view.set.id || header.offsets.length !== view.set.ids.length) header = null;
    } catch {
      header = null; // absent or damaged: the dates read from the COGs; doctor reports it
    }
  }
  view.headers.set(key, header);
  return header;
}

/** Where some blocks of one page lie: plain data, so a worker thread can read them. */
export interface BlockRanges {
  readonly path: string;
  readonly dtype: DType;
  /** Dates the page holds (each block is dates × BLOCK_PIXELS samples). */
  readonly dates: number;
  /** Per wanted block: its stream's absolute offset in the file and its length, bytes. */
  readonly starts: readonly number[];
  readonly lengths: readonly number[];
}

/** The ranges of blocks `ordinals` (block-set ordinals) of a page whose header is `header`. */
export function blockRanges(header: PageHeader, ordinals: readonly number[]): BlockRanges {
  return {
    path: header.path,
    dtype: header.dtype,
    dates: header.days.length,
    starts: ordinals.map((k) => header.dataStart + header.offsets[k]!),
    lengths: ordinals.map((k) => header.lengths[k]!),
  };
}

/** Runs [i, j) of wanted streams that follow each other in the file (one read each). */
function adjacentRuns(r: BlockRanges, want: readonly number[]): [number, number][] {
  const runs: [number, number][] = [];
  for (let i = 0; i < want.length; ) {
    let j = i + 1;
    while (j < want.length && r.starts[want[j]!] === r.starts[want[j - 1]!]! + r.lengths[want[j - 1]!]!) j++;
    runs.push([i, j]);
    i = j;
  }
  return runs;
}

/** Decode run [i, j) of wanted streams from `bytes`, which start at the run's first stream. */
function decodeRun(
  r: BlockRanges,
  want: readonly number[],
  i: number,
  j: number,
  bytes: Uint8Array,
): TypedArray[] {
  const first = r.starts[want[i]!]!;
  const out: TypedArray[] = [];
  for (let m = i; m < j; m++) {
    const at = r.starts[want[m]!]! - first;
    out.push(decodeBlock(bytes.subarray(at, at + r.lengths[want[m]!]!), r.dtype, r.dates));
  }
  return out;
}

/** Decode every run's streams, `parts[k]` holding run k's bytes. */
const decodeRuns = (
  r: BlockRanges,
  want: readonly number[],
  runs: readonly [number, number][],
  parts: readonly Uint8Array[],
): TypedArray[] => runs.flatMap(([i, j], k) => decodeRun(r, want, i, j, parts[k]!));

/** Every stream of `r`, as wanted indices. */
const everyStream = (r: BlockRanges): number[] => r.starts.map((_s, i) => i);

/** Bytes of run [i, j) of wanted streams. */
const runLength = (r: BlockRanges, want: readonly number[], i: number, j: number): number =>
  r.starts[want[j - 1]!]! + r.lengths[want[j - 1]!]! - r.starts[want[i]!]!;

/**
 * Read and decode blocks `which` (indices into `r`; all when omitted) of a local page, adjacent
 * streams in one read. Synchronous: worker threads run it. With `files`, the file is opened once
 * there and left open (a scan reads many pages of one pack); the caller closes them.
 */
export function readBlocks(r: BlockRanges, which?: readonly number[], files?: OpenFiles): TypedArray[] {
  const want = which ?? everyStream(r);
  const out: TypedArray[] = [];
  const open = files ?? new OpenFiles();
  try {
    for (const [i, j] of adjacentRuns(r, want)) {
      const bytes = open.read(r.path, r.starts[want[i]!]!, runLength(r, want, i, j));
      out.push(...decodeRun(r, want, i, j, bytes));
    }
  } finally {
    if (files === undefined) open.close();
  }
  return out;
}

/** The bytes of each run of adjacent wanted streams, from the page's store (a range request each on a remote one). */
function fetchRuns(
  store: Store,
  r: BlockRanges,
  want: readonly number[],
  runs: [number, number][],
): Promise<Uint8Array[]> {
  return Promise.all(
    runs.map(([i, j]) => store.readAt(r.path, r.starts[want[i]!]!, runLength(r, want, i, j))),
  );
}

/** As `readBlocks`, from the store the page lies on. */
async function readBlocksFromStore(
  store: Store,
  r: BlockRanges,
  want: readonly number[],
): Promise<TypedArray[]> {
  if (store.local) return readBlocks(r, want);
  const runs = adjacentRuns(r, want);
  return decodeRuns(r, want, runs, await fetchRuns(store, r, want, runs));
}

/** Every block's bytes of `r`, still compressed, one array per run of adjacent streams: fetched here, decoded by a worker. */
export function fetchBlockRuns(store: Store, r: BlockRanges): Promise<Uint8Array[]> {
  const want = everyStream(r);
  return fetchRuns(store, r, want, adjacentRuns(r, want));
}

/** Decode every block of `r` from the runs `fetchBlockRuns` gave. */
export function decodeBlockRuns(r: BlockRanges, runs: readonly Uint8Array[]): TypedArray[] {
  const want = everyStream(r);
  return decodeRuns(r, want, adjacentRuns(r, want), runs);
}

/**
 * Runs of block `j`'s streams across pages `rs` of one file that lie side by side (a pack keeps a
 * block's pages in order): [first byte, end byte, page indices in file order].
 */
function acrossRuns(rs: readonly BlockRanges[], j: number): [number, number, number[]][] {
  const order = rs.map((_r, m) => m).sort((a, b) => rs[a]!.starts[j]! - rs[b]!.starts[j]!);
  const runs: [number, number, number[]][] = [];
  for (const m of order) {
    const start = rs[m]!.starts[j]!;
    const end = start + rs[m]!.lengths[j]!;
    const last = runs.at(-1);
    if (last !== undefined && last[1] === start) {
      last[1] = end;
      last[2].push(m);
    } else runs.push([start, end, [m]]);
  }
  return runs;
}

/** Decode block `j` of each page of `rs` from its run's bytes, into `out` (pages' order). */
function decodeAcross(
  rs: readonly BlockRanges[],
  j: number,
  run: [number, number, number[]],
  bytes: Uint8Array,
  out: TypedArray[],
): void {
  for (const m of run[2]) {
    const at = rs[m]!.starts[j]! - run[0];
    out[m] = decodeBlock(bytes.subarray(at, at + rs[m]!.lengths[j]!), rs[m]!.dtype, rs[m]!.dates);
  }
}

/**
 * Block `j` of several pages of one local file, decoded, in `rs` order: one read per run of
 * streams side by side (a pack: one read for a block's whole year). Synchronous: worker threads run it.
 */
export function readAcross(rs: readonly BlockRanges[], j: number, files: OpenFiles): TypedArray[] {
  const out: TypedArray[] = [];
  for (const run of acrossRuns(rs, j))
    decodeAcross(rs, j, run, files.read(rs[0]!.path, run[0], run[1] - run[0]), out);
  return out;
}

/**
 * As `readAcross`, through the runtime's block cache, from the file's store: `files` when local, a
 * range request per run on a remote one.
 */
export async function cachedAcross(
  view: SeriesView,
  rs: readonly BlockRanges[],
  j: number,
  files: OpenFiles,
): Promise<TypedArray[]> {
  const key = (m: number) => `${view.generation}|${rs[m]!.path}@${rs[m]!.starts[j]}`;
  const out = rs.map((_r, m) => view.blocks.peek(key(m)));
  const missing = out.flatMap((v, m) => (v === undefined ? [m] : []));
  if (missing.length > 0) {
    const sub = missing.map((m) => rs[m]!);
    const read = (async () => {
      const decoded: TypedArray[] = [];
      const runs = acrossRuns(sub, j);
      // Local reads on the thread pool: a query's blocks in flight together overlap a cold disk's waits.
      const bytes = await Promise.all(
        runs.map(([from, to]) =>
          view.store.local
            ? files.readAsync(sub[0]!.path, from, to - from)
            : view.store.readAt(sub[0]!.path, from, to - from),
        ),
      );
      runs.forEach((run, k) => decodeAcross(sub, j, run, bytes[k]!, decoded));
      return decoded;
    })();
    missing.forEach((m, k) => {
      out[m] = view.blocks.put(
        key(m),
        read.then((d) => d[k]!),
      );
    });
  }
  return Promise.all(out as Promise<TypedArray>[]);
}

/** Decoded blocks of one page through the runtime's block cache (small, repeated queries). */
export async function cachedBlocks(
  view: SeriesView,
  r: BlockRanges,
  ordinals: readonly number[],
): Promise<TypedArray[]> {
  const key = (k: number) => `${view.generation}|${r.path}@${r.starts[k]}`; // a pack holds many pages
  const out = ordinals.map((_, k) => view.blocks.peek(key(k)));
  const missing = out.flatMap((v, i) => (v === undefined ? [i] : []));
  if (missing.length > 0) {
    // One read for every missing block (adjacent ones in one run), each then held on its own.
    const read = readBlocksFromStore(view.store, r, missing);
    missing.forEach((i, m) => {
      out[i] = view.blocks.put(
        key(i),
        read.then((blocks) => blocks[m]!),
      );
    });
  }
  return Promise.all(out as Promise<TypedArray>[]);
}
