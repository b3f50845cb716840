/**
 * What doctor needs to know of a series store, read without decoding any block: the block list,
 * stale marks, each page's block set and dates against the ingested dates, and basin pixels in
 * no stored block. (File times are not compared: a copied or restored database reorders them.)
 */
import type { Dataset } from '../datasets/registry.js';
import { namesIn, readFileIfExists } from '../io/fs.js';
import { basinBlocks, readBlockSet } from './blocks.js';
import { datesByPage, dayNumber, parsePageHeader } from './page.js';
import { seriesVariables } from './source.js';
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
      }
    }
    for (const orphan of present)
      problems.push({ target: `series/${v}/${orphan}`, issue: 'holds no ingested date' });
  }
  return { blocks: set.ids.length, stale: await staleSeriesDates(d), missingBlocks, unusedBlocks, problems };
}
