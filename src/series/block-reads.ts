/**
 * Reading and decoding a page's blocks: the ranges a page header gives, adjacent streams of one
 * page in one read, one block across the pages of a pack in one read, through the runtime's
 * decoded-block cache or (worker threads) directly. Local bytes are read with positional reads on
 * descriptors kept open per scan; a replica's with one range request per run.
 */
import { OpenFiles } from '../io/open-files.js';
import type { Store } from '../io/store.js';
import type { DType, TypedArray } from '../raster/dtype.js';
import type { BlockSet } from './blocks.js';
import { blockBytes, decodeBlock, type PageHeader } from './page.js';
import type { SeriesView } from './read.js';

/** Where some blocks of one page lie: plain data, so a worker thread can read them. */
export interface BlockRanges {
  readonly path: string;
  readonly dtype: DType;
  /** Dates the page holds (each block is dates × its count samples). */
  readonly dates: number;
  /** Per wanted block: its stream's absolute offset in the file and its length, bytes. */
  readonly starts: readonly number[];
  readonly lengths: readonly number[];
  /** Per wanted block: samples per date (the pixels its mask stores). */
  readonly counts: readonly number[];
}

/** The ranges of blocks `ordinals` of `set` in a page of that set whose header is `header`. */
export function blockRanges(
  header: PageHeader,
  set: Pick<BlockSet, 'counts'>,
  ordinals: readonly number[],
): BlockRanges {
  return {
    path: header.path,
    dtype: header.dtype,
    dates: header.days.length,
    starts: ordinals.map((k) => header.dataStart + header.offset(k)),
    lengths: ordinals.map((k) => header.length(k)),
    counts: ordinals.map((k) => set.counts[k]!),
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
    out.push(
      decodeBlock(bytes.subarray(at, at + r.lengths[want[m]!]!), r.dtype, r.dates, r.counts[want[m]!]!),
    );
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

/**
 * Decode block `j` of each page of `rs` from its run's bytes, into `out` (pages' order): with
 * `scratch`, page m's values go into `scratch[m]` (grown when too small), valid until the next call.
 */
function decodeAcross(
  rs: readonly BlockRanges[],
  j: number,
  run: [number, number, number[]],
  bytes: Uint8Array,
  out: TypedArray[],
  scratch?: Uint8Array[],
): void {
  for (const m of run[2]) {
    const r = rs[m]!;
    const at = r.starts[j]! - run[0];
    let into: Uint8Array | undefined;
    if (scratch !== undefined) {
      const need = blockBytes(r.dtype, r.dates, r.counts[j]!);
      if ((scratch[m]?.byteLength ?? 0) < need) scratch[m] = Buffer.allocUnsafeSlow(need);
      into = scratch[m];
    }
    out[m] = decodeBlock(bytes.subarray(at, at + r.lengths[j]!), r.dtype, r.dates, r.counts[j]!, into);
  }
}

/**
 * Block `j` of several pages of one local file, decoded, in `rs` order: one read per run of
 * streams side by side (a pack: one read for a block's whole year). Synchronous: worker threads
 * run it. With `scratch` (a scan's, reduced block by block) the values live in it until the next
 * call: a worker's year-long scan then leaves no decoded garbage (which V8 frees only past ~64 MB).
 */
export function readAcross(
  rs: readonly BlockRanges[],
  j: number,
  files: OpenFiles,
  scratch?: Uint8Array[],
): TypedArray[] {
  const out: TypedArray[] = [];
  for (const run of acrossRuns(rs, j))
    decodeAcross(rs, j, run, files.read(rs[0]!.path, run[0], run[1] - run[0]), out, scratch);
  return out;
}

/**
 * Decoded blocks by `keys` through the runtime's block cache: the hits as held, the misses by one
 * call of `readMissing` (their indices into `keys`), each then held on its own.
 */
function throughCache(
  view: SeriesView,
  keys: readonly string[],
  readMissing: (missing: number[]) => Promise<TypedArray[]>,
): Promise<TypedArray[]> {
  const out = keys.map((k) => view.blocks.peek(k));
  const missing = out.flatMap((v, i) => (v === undefined ? [i] : []));
  if (missing.length > 0) {
    const read = readMissing(missing);
    missing.forEach((i, m) => {
      out[i] = view.blocks.put(
        keys[i]!,
        read.then((blocks) => blocks[m]!),
      );
    });
  }
  return Promise.all(out as Promise<TypedArray>[]);
}

/** A block stream's cache key: a pack holds many pages, so the file and the stream's offset. */
const blockKey = (view: SeriesView, path: string, start: number) => `${view.generation}|${path}@${start}`;

/**
 * As `readAcross`, through the runtime's block cache, from the file's store: on the thread pool
 * (`files`) when local, so a query's blocks in flight overlap a cold disk's waits; a range request
 * per run on a remote one.
 */
export function cachedAcross(
  view: SeriesView,
  rs: readonly BlockRanges[],
  j: number,
  files: OpenFiles,
): Promise<TypedArray[]> {
  const keys = rs.map((r) => blockKey(view, r.path, r.starts[j]!));
  return throughCache(view, keys, async (missing) => {
    const sub = missing.map((m) => rs[m]!);
    const runs = acrossRuns(sub, j);
    const bytes = await Promise.all(
      runs.map(([from, to]) =>
        view.store.local
          ? files.readAsync(sub[0]!.path, from, to - from)
          : view.store.readAt(sub[0]!.path, from, to - from),
      ),
    );
    const decoded: TypedArray[] = [];
    runs.forEach((run, k) => {
      decodeAcross(sub, j, run, bytes[k]!, decoded);
    });
    return decoded;
  });
}

/** Decoded blocks of one page through the runtime's block cache (adjacent missing ones in one read). */
export function cachedBlocks(view: SeriesView, r: BlockRanges): Promise<TypedArray[]> {
  const keys = r.starts.map((start) => blockKey(view, r.path, start));
  return throughCache(view, keys, (missing) => readBlocksFromStore(view.store, r, missing));
}
