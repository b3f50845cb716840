/**
 * What doctor needs to know of a series store: the block list, stale marks, each page's block set
 * and dates against the ingested dates (a page of a packed water year read from its pack), basin pixels in no stored block, and pages whose values
 * are not their COGs' (a COG replaced after its page was written, its stale mark lost). File times
 * only choose which dates to compare by content (those whose COG is newer than their page, and the
 * newest date of each variable); the verdict is the content, so a copied or restored database,
 * whose times are reordered, is compared more, never judged by its times.
 */
import type { Dataset } from '../datasets/registry.js';
import { namesIn, readFileIfExists } from '../io/fs.js';
import { type BasinBlocks, BITS, type BlockSet, basinBlocks, MASK_BYTES, readBlockSet } from './blocks.js';
import { type PackIndex, waterYearOfPage } from './pack.js';
import {
  datesByPage,
  dayNumber,
  decodeBlock,
  type PageHeader,
  parsePageHeader,
  streamIn,
  streamRange,
} from './page.js';
import { packYearOf, readPackIndex } from './read.js';
import { BlockValuesCache, seriesVariables } from './source.js';
import { staleSeriesDates } from './stale.js';

export interface SeriesFacts {
  /** The block list: absent (no store), damaged, or how many blocks it holds. */
  readonly blocks: 'absent' | 'damaged' | number;
  /** Dates marked stale (ISO). */
  readonly stale: readonly string[];
  /** Blocks under some basin that the store lacks, or holds without some of the basin's pixels. */
  readonly missingBlocks: number;
  /** Stored pixels under no basin (removed basins, or whole blocks of a store written before masks): space a rebuild gives back. */
  readonly unusedPixels: number;
  /** Pixels stored (every block's mask). */
  readonly storedPixels: number;
  /** Pages that are missing, damaged, of another block set, or differ from the ingested dates. */
  readonly problems: readonly { readonly target: string; readonly issue: string }[];
}

/** Where one page's streams lie: its own file, or its water year's pack. */
interface PageSource {
  readonly target: string;
  readonly header: PageHeader;
  /** The file whose time is compared with the COGs'. */
  readonly file: string;
  stream(k: number): Promise<Uint8Array>;
}

/**
 * The first of `dates` whose values in the page differ from its COG's, with how many blocks
 * differ; null when all agree. A date without its COG is left to the files check.
 */
async function differentDate(
  d: Dataset,
  set: BlockSet,
  variable: string,
  page: PageSource,
  dates: readonly string[],
  values: BlockValuesCache,
): Promise<{ date: string; blocks: number } | null> {
  const { header } = page;
  const decoded = await Promise.all(
    Array.from(set.ids, async (_, k) =>
      decodeBlock(await page.stream(k), header.dtype, header.days.length, set.counts[k]!),
    ),
  );
  const width = decoded[0]?.BYTES_PER_ELEMENT ?? 1;
  for (const date of dates) {
    const slot = header.days.indexOf(dayNumber(date));
    const cog = await values.of(d, date, variable, set).catch(() => null);
    if (cog === null || slot < 0) continue;
    const now = new Uint8Array(cog.buffer, cog.byteOffset, cog.byteLength);
    let blocks = 0;
    decoded.forEach((block, k) => {
      const n = set.counts[k]! * width; // bytes a date
      const was = new Uint8Array(block.buffer, block.byteOffset + slot * n, n);
      if (Buffer.compare(was, now.subarray(set.starts[k]! * width, set.starts[k + 1]! * width)) !== 0)
        blocks++;
    });
    if (blocks > 0) return { date, blocks };
  }
  return null;
}

export async function seriesFacts(
  d: Dataset,
  dates: readonly string[],
  current?: ReadonlyMap<string, string>,
): Promise<SeriesFacts> {
  const set = await readBlockSet(d).catch(() => 'damaged' as const);
  const none = { stale: [], missingBlocks: 0, unusedPixels: 0, storedPixels: 0, problems: [] };
  if (set === null) return { blocks: 'absent', ...none };
  if (set === 'damaged') return { blocks: 'damaged', ...none };
  const want = await basinBlocks(d, current, true); // an unreadable AOI raster: the AOI checks name it
  const { missingBlocks, usedPixels } = coverage(set, want);
  const storedPixels = set.starts[set.ids.length]!;
  const unusedPixels = storedPixels - usedPixels;
  const problems: { target: string; issue: string }[] = [];
  const pages = datesByPage(dates);
  const values = new BlockValuesCache(64 * 1024 * 1024);
  const newest = [...pages.keys()].at(-1);
  for (const v of seriesVariables(d)) {
    const present = new Set(await namesIn(d.store, d.paths.seriesVariable(v)));
    const packs = await packsOf(d, set, v, present, problems);
    for (const [page, held] of pages) {
      const wy = waterYearOfPage(page);
      present.delete(`${page}.page`); // a page file beside its year's pack is a leftover, not read
      const source = present.has(`wy${wy}.pack`)
        ? packedPage(d, v, wy, packs.get(wy), page, held, problems)
        : await pageFile(d, set, v, page, held, problems);
      if (source === null) continue;
      const days = held.map(dayNumber);
      const { header } = source;
      if (header.days.length !== days.length || days.some((x, i) => header.days[i] !== x)) {
        problems.push({
          target: source.target,
          issue: `holds ${header.days.length} dates, ${days.length} are ingested`,
        });
        continue;
      }
      const mtime = d.store.stat(source.file).mtimeMs;
      const compare = held.filter(
        (date, i) =>
          (page === newest && i === held.length - 1) || d.store.stat(d.paths.cog(date, v)).mtimeMs > mtime,
      );
      const differs = compare.length === 0 ? null : await differentDate(d, set, v, source, compare, values);
      if (differs !== null)
        problems.push({
          target: source.target,
          issue: `holds other values for ${differs.date} than its COG (${differs.blocks} of ${set.ids.length} blocks differ): the COG changed after the page was written`,
        });
    }
    for (const [wy, index] of packs) {
      present.delete(`wy${wy}.pack`);
      for (const page of index?.pages ?? [])
        if (!pages.has(page))
          problems.push({
            target: `series/${v}/wy${wy}.pack`,
            issue: `holds page ${page}, of no ingested date`,
          });
    }
    for (const orphan of present)
      if (orphan.endsWith('.page') || packYearOf(orphan) !== null)
        problems.push({ target: `series/${v}/${orphan}`, issue: 'holds no ingested date' });
  }
  return {
    blocks: set.ids.length,
    stale: await staleSeriesDates(d),
    missingBlocks,
    unusedPixels,
    storedPixels,
    problems,
  };
}

/**
 * The basins' pixels against the store's masks, in one pass: blocks whose basin pixels the store
 * lacks (the block, or some of its pixels), and stored pixels some basin covers.
 */
function coverage(set: BlockSet, want: BasinBlocks): { missingBlocks: number; usedPixels: number } {
  let missingBlocks = 0;
  let usedPixels = 0;
  want.ids.forEach((id, i) => {
    const k = set.ordinal[id] ?? -1;
    let wanted = 0;
    let held = 0;
    for (let x = 0; x < MASK_BYTES; x++) {
      const w = want.masks[i * MASK_BYTES + x]!;
      wanted += BITS[w]!;
      if (k >= 0) held += BITS[w & set.masks[k * MASK_BYTES + x]!]!;
    }
    if (held < wanted) missingBlocks++;
    usedPixels += held;
  });
  return { missingBlocks, usedPixels };
}

/** The variable's packs by water year (null: damaged or of another block list, reported). */
async function packsOf(
  d: Dataset,
  set: BlockSet,
  v: string,
  names: ReadonlySet<string>,
  problems: { target: string; issue: string }[],
): Promise<Map<number, PackIndex | null>> {
  const out = new Map<number, PackIndex | null>();
  for (const n of names) {
    const wy = packYearOf(n);
    if (wy === null) continue;
    const index = await readPackIndex(d.store, d.paths.seriesPack(v, wy));
    if (index === null) problems.push({ target: `series/${v}/${n}`, issue: 'damaged series pack' });
    else if (index.blockSet !== set.id)
      problems.push({ target: `series/${v}/${n}`, issue: 'built for another block list' });
    out.set(wy, index !== null && index.blockSet === set.id ? index : null);
  }
  return out;
}

/** A page read from its year's pack; null when the pack cannot serve it (reported). */
function packedPage(
  d: Dataset,
  v: string,
  wy: number,
  index: PackIndex | null | undefined,
  page: string,
  held: readonly string[],
  problems: { target: string; issue: string }[],
): PageSource | null {
  if (!index) return null; // damaged or of another block list: reported once
  const target = `series/${v}/wy${wy}.pack`;
  const i = index.pages.indexOf(page);
  if (i < 0) {
    problems.push({ target, issue: `lacks page ${page} (${held.length} ingested dates)` });
    return null;
  }
  const header = index.header(i);
  return {
    target: `${target} (page ${page})`,
    header,
    file: index.path,
    stream: (k) => {
      const [from, to] = streamRange(header, k);
      return d.store.readAt(index.path, from, to - from);
    },
  };
}

/** A page read from its own file; null when missing, damaged or of another block list (reported). */
async function pageFile(
  d: Dataset,
  set: BlockSet,
  v: string,
  page: string,
  held: readonly string[],
  problems: { target: string; issue: string }[],
): Promise<PageSource | null> {
  const path = d.paths.seriesPage(v, page);
  const target = `series/${v}/${page}.page`;
  const bytes = await readFileIfExists(d.store, path);
  if (bytes === null) {
    problems.push({ target, issue: `missing (${held.length} ingested dates)` });
    return null;
  }
  let header: PageHeader;
  try {
    header = parsePageHeader(bytes, path);
  } catch (e) {
    problems.push({ target, issue: (e as Error).message });
    return null;
  }
  if (header.blockSet !== set.id) {
    problems.push({ target, issue: 'built for another block list' });
    return null;
  }
  return { target, header, file: path, stream: async (k) => streamIn(header, bytes, k) };
}
