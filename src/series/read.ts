/**
 * Reading the series store: a per-dataset view (block set, stale dates, page listing) reloaded
 * only when one of its files changes, page headers read once, decoded blocks in one process-wide
 * LRU. Page bytes are read with positional reads on a synchronously opened descriptor: they are
 * small page-cache reads, cheaper than thread-pool round trips, and a query makes thousands.
 */
import { closeSync, openSync, readSync } from 'node:fs';
import type { Dataset } from '../datasets/registry.js';
import { namesIn } from '../io/fs.js';
import { fileSignature } from '../io/memo.js';
import type { DType, TypedArray } from '../raster/dtype.js';
import { type BlockSet, readBlockSet } from './blocks.js';
import { staleSeriesDates } from './build.js';
import { decodeBlock, HEADER_PROBE, headerLength, type PageHeader, parsePageHeader } from './page.js';
import { seriesVariables } from './source.js';

/** A consistent read-only view of one dataset's store. */
export interface SeriesView {
  readonly set: BlockSet;
  /** Dates whose pages wait for an update (read from the COGs meanwhile), ISO. */
  readonly stale: ReadonlySet<string>;
  readonly variables: readonly string[];
  /** Pages present per variable. */
  readonly pages: ReadonlyMap<string, ReadonlySet<string>>;
  readonly generation: number;
  readonly headers: Map<string, PageHeader | null>;
}

const views = new Map<string, { key: string; view: SeriesView | null; at: number }>();
let generation = 0;

/** Decoded blocks by page (key: view generation and page file), LRU by bytes (≤ 64 MiB). */
const cached = new Map<string, { blocks: Map<number, TypedArray>; bytes: number }>();
let cachedBytes = 0;
const MAX_CACHED_BYTES = 64 * 1024 * 1024;

/** The dataset's store as it is now, or null when it has none (one stat per file it rests on). */
export async function seriesView(d: Dataset): Promise<SeriesView | null> {
  const variables = seriesVariables(d);
  const files = [
    d.paths.seriesBlocks,
    d.paths.seriesStaleDir,
    ...variables.map((v) => d.paths.seriesVariable(v)),
  ];
  const key = files.map(fileSignature).join('|');
  const hit = views.get(d.dir);
  // A view loaded within 100 ms of a change may have missed a same-tick rewrite: reload it.
  if (hit !== undefined && hit.key === key && Date.now() - hit.at > 100) return hit.view;
  const set = await readBlockSet(d).catch(() => null);
  let view: SeriesView | null = null;
  if (set !== null) {
    const pages = new Map<string, Set<string>>();
    for (const v of variables)
      pages.set(
        v,
        new Set(
          (await namesIn(d.paths.seriesVariable(v)))
            .filter((n) => n.endsWith('.page'))
            .map((n) => n.slice(0, -5)),
        ),
      );
    view = {
      set,
      stale: new Set(await staleSeriesDates(d)),
      variables,
      pages,
      generation: ++generation,
      headers: new Map(),
    };
  }
  views.set(d.dir, { key, view, at: hit?.key === key ? hit.at : Date.now() });
  return view;
}

/** A page's header, or null when the page is absent, damaged or of another block set. */
export function pageHeader(d: Dataset, view: SeriesView, variable: string, page: string): PageHeader | null {
  const key = `${variable}/${page}`;
  if (view.headers.has(key)) return view.headers.get(key)!;
  let header: PageHeader | null = null;
  if (view.pages.get(variable)?.has(page)) {
    const path = d.paths.seriesPage(variable, page);
    try {
      const fd = openSync(path, 'r');
      try {
        let buf = Buffer.allocUnsafe(HEADER_PROBE);
        const n = readSync(fd, buf, 0, buf.length, 0);
        const len = headerLength(buf.subarray(0, n), path);
        if (len > n) {
          buf = Buffer.allocUnsafe(len);
          readSync(fd, buf, 0, len, 0);
        }
        header = parsePageHeader(buf.subarray(0, len), path);
        if (header.blockSet !== view.set.id || header.offsets.length !== view.set.ids.length) header = null;
      } finally {
        closeSync(fd);
      }
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
export function blockRanges(
  d: Dataset,
  variable: string,
  page: string,
  header: PageHeader,
  ordinals: readonly number[],
): BlockRanges {
  return {
    path: d.paths.seriesPage(variable, page),
    dtype: header.dtype,
    dates: header.days.length,
    starts: ordinals.map((k) => header.dataStart + header.offsets[k]!),
    lengths: ordinals.map((k) => header.lengths[k]!),
  };
}

/** Read and decode blocks `which` (indices into `r`; all when omitted); adjacent streams in one read. */
export function readBlocks(r: BlockRanges, which?: readonly number[]): TypedArray[] {
  const want = which ?? r.starts.map((_s, i) => i);
  const out: TypedArray[] = [];
  const fd = openSync(r.path, 'r');
  try {
    for (let i = 0; i < want.length; ) {
      let j = i + 1; // a run [i, j) of streams that follow each other in the file
      while (j < want.length && r.starts[want[j]!] === r.starts[want[j - 1]!]! + r.lengths[want[j - 1]!]!)
        j++;
      const first = r.starts[want[i]!]!;
      const last = want[j - 1]!;
      const bytes = Buffer.allocUnsafe(r.starts[last]! + r.lengths[last]! - first);
      readSync(fd, bytes, 0, bytes.length, first);
      for (let m = i; m < j; m++) {
        const at = r.starts[want[m]!]! - first;
        out.push(decodeBlock(bytes.subarray(at, at + r.lengths[want[m]!]!), r.dtype, r.dates));
      }
      i = j;
    }
  } finally {
    closeSync(fd);
  }
  return out;
}

/** Decoded blocks of one page through the process-wide block cache (small, repeated queries). */
export function cachedBlocks(view: SeriesView, r: BlockRanges, ordinals: readonly number[]): TypedArray[] {
  const key = `${view.generation}|${r.path}`;
  const page = cached.get(key) ?? { blocks: new Map<number, TypedArray>(), bytes: 0 };
  cached.delete(key); // most recently used goes last
  cached.set(key, page);
  const out = ordinals.map((k) => page.blocks.get(k));
  const missing = out.flatMap((v, i) => (v === undefined ? [i] : []));
  if (missing.length > 0)
    readBlocks(r, missing).forEach((v, m) => {
      const i = missing[m]!;
      page.blocks.set(ordinals[i]!, v);
      page.bytes += v.byteLength;
      cachedBytes += v.byteLength;
      out[i] = v;
    });
  while (cachedBytes > MAX_CACHED_BYTES && cached.size > 1) {
    const [k, oldest] = cached.entries().next().value as [string, { bytes: number }];
    cached.delete(k);
    cachedBytes -= oldest.bytes;
  }
  return out as TypedArray[];
}
