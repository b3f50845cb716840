/**
 * What doctor needs to know of a series store: the block list, stale marks, each page's block set
 * and dates against the ingested dates, basin pixels in no stored block, and pages whose values
 * are not their COGs' (a COG replaced after its page was written, its stale mark lost). File times
 * only choose which dates to compare by content (those whose COG is newer than their page, and the
 * newest date of each variable); the verdict is the content, so a copied or restored database,
 * whose times are reordered, is compared more, never judged by its times.
 */
import type { Dataset } from '../datasets/registry.js';
import { namesIn, readFileIfExists } from '../io/fs.js';
import { type BlockSet, basinBlocks, readBlockSet } from './blocks.js';
import {
  BLOCK_PIXELS,
  datesByPage,
  dayNumber,
  decodeBlock,
  type PageHeader,
  parsePageHeader,
} from './page.js';
import { BlockValuesCache, seriesVariables } from './source.js';
import { staleSeriesDates } from './stale.js';

export interface SeriesFacts {
  /** The block list: absent (no store), damaged, or how many blocks it holds. */
  readonly blocks: 'absent' | 'damaged' | number;
  /** Dates marked stale (ISO). */
  readonly stale: readonly string[];
  /** Blocks under some basin that the store lacks. */
  readonly missingBlocks: number;
  /** Stored blocks under no basin any more (removed basins): space a rebuild gives back. */
  readonly unusedBlocks: number;
  /** Pages that are missing, damaged, of another block set, or differ from the ingested dates. */
  readonly problems: readonly { readonly target: string; readonly issue: string }[];
}

/**
 * The first of `dates` whose values in the page (its bytes and header) differ from its COG's, with
 * how many blocks differ; null when all agree. A date without its COG is left to the files check.
 */
async function differentDate(
  d: Dataset,
  set: BlockSet,
  variable: string,
  header: PageHeader,
  bytes: Uint8Array,
  dates: readonly string[],
  values: BlockValuesCache,
): Promise<{ date: string; blocks: number } | null> {
  const nd = header.days.length;
  const decoded = Array.from(set.ids, (_, k) =>
    decodeBlock(
      bytes.subarray(
        header.dataStart + header.offsets[k]!,
        header.dataStart + header.offsets[k]! + header.lengths[k]!,
      ),
      header.dtype,
      nd,
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
      const was = new Uint8Array(
        block.buffer,
        block.byteOffset + slot * BLOCK_PIXELS * width,
        BLOCK_PIXELS * width,
      );
      if (Buffer.compare(was, now.subarray(k * BLOCK_PIXELS * width, (k + 1) * BLOCK_PIXELS * width)) !== 0)
        blocks++;
    });
    if (blocks > 0) return { date, blocks };
  }
  return null;
}

export async function seriesFacts(d: Dataset, dates: readonly string[]): Promise<SeriesFacts> {
  const set = await readBlockSet(d).catch(() => 'damaged' as const);
  const none = { stale: [], missingBlocks: 0, unusedBlocks: 0, problems: [] };
  if (set === null) return { blocks: 'absent', ...none };
  if (set === 'damaged') return { blocks: 'damaged', ...none };
  const want = await basinBlocks(d);
  const missingBlocks = [...want].filter((b) => set.ordinal[b] === -1).length;
  const wanted = new Set(want);
  const unusedBlocks = set.ids.filter((b) => !wanted.has(b)).length;
  const problems: { target: string; issue: string }[] = [];
  const pages = datesByPage(dates);
  const values = new BlockValuesCache(64 * 1024 * 1024);
  const newest = [...pages.keys()].at(-1);
  for (const v of seriesVariables(d)) {
    const present = new Set(
      (await namesIn(d.store, d.paths.seriesVariable(v))).filter((n) => n.endsWith('.page')),
    );
    for (const [page, held] of pages) {
      const path = d.paths.seriesPage(v, page);
      const target = `series/${v}/${page}.page`;
      present.delete(`${page}.page`);
      const bytes = await readFileIfExists(d.store, path);
      if (bytes === null) {
        problems.push({ target, issue: `missing (${held.length} ingested dates)` });
        continue;
      }
      let header: ReturnType<typeof parsePageHeader>;
      try {
        header = parsePageHeader(bytes, path);
      } catch (e) {
        problems.push({ target, issue: (e as Error).message });
        continue;
      }
      if (header.blockSet !== set.id) {
        problems.push({ target, issue: 'built for another block list' });
        continue;
      }
      const days = held.map(dayNumber);
      if (header.days.length !== days.length || days.some((x, i) => header.days[i] !== x)) {
        problems.push({ target, issue: `holds ${header.days.length} dates, ${days.length} are ingested` });
        continue;
      }
      const mtime = d.store.stat(path).mtimeMs;
      const compare = held.filter(
        (date, i) =>
          (page === newest && i === held.length - 1) || d.store.stat(d.paths.cog(date, v)).mtimeMs > mtime,
      );
      const differs =
        compare.length === 0 ? null : await differentDate(d, set, v, header, bytes, compare, values);
      if (differs !== null)
        problems.push({
          target,
          issue: `holds other values for ${differs.date} than its COG (${differs.blocks} of ${set.ids.length} blocks differ): the COG changed after the page was written`,
        });
    }
    for (const orphan of present)
      problems.push({ target: `series/${v}/${orphan}`, issue: 'holds no ingested date' });
  }
  return { blocks: set.ids.length, stale: await staleSeriesDates(d), missingBlocks, unusedBlocks, problems };
}
