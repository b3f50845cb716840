/**
 * When water years are packed (pack.ts): a closed year once a refresh leaves it alone, every
 * closed year after a rebuild or an import; and when a pack opens back into pages (a refresh
 * writing into its year, an import adding blocks).
 */
import { rm } from 'node:fs/promises';
import type { Dataset } from '../datasets/registry.js';
import { SnowdbError } from '../errors.js';
import { namesIn } from '../io/fs.js';
import type { BlockSet } from './blocks.js';
import { packYear, unpackYear, waterYearOfPage, yearClosed } from './pack.js';
import { datesByPage, pageOf } from './page.js';
import { packBlockSet, packYearOf, readPackIndex } from './read.js';
import { seriesVariables } from './source.js';
import { staleSeriesDates } from './stale.js';

/**
 * Turn the packs of water years `years` (every pack when null) of a variable back into page
 * files, so single pages can be rewritten, except packs on block set `keep`; a damaged pack is
 * removed (its dates are then read from the COGs until a rebuild, and doctor names the missing
 * pages).
 * @returns the water years of the packs kept.
 */
export async function unpackYears(
  d: Dataset,
  variable: string,
  years: ReadonlySet<number> | null,
  keep?: number,
): Promise<Set<number>> {
  const kept = new Set<number>();
  for (const n of await namesIn(d.store, d.paths.seriesVariable(variable))) {
    const wy = packYearOf(n);
    if (wy === null || (years !== null && !years.has(wy))) continue;
    const path = d.paths.seriesPack(variable, wy);
    const index = await readPackIndex(d.store, path);
    if (index === null) await rm(path, { force: true });
    else if (index.blockSet === keep) kept.add(wy);
    else await unpackYear(index, (page) => d.paths.seriesPage(variable, page));
  }
  return kept;
}

/**
 * Pack every closed water year whose pages are all written on `set` (pages copied, then removed);
 * page files left beside a pack on `set` (a kill between the two steps) are removed, a pack on
 * another set or damaged is removed instead. A year in `leave`,
 * with a stale date or with a damaged page stays in pages (a later refresh or a rebuild packs it).
 * @returns the packs written.
 */
export async function packClosedYears(
  d: Dataset,
  set: BlockSet,
  ingested: readonly string[],
  today: string,
  leave: ReadonlySet<number> = new Set(),
): Promise<number> {
  let packs = 0;
  const stale = new Set((await staleSeriesDates(d)).map((date) => waterYearOfPage(pageOf(date))));
  for (const wy of leave) stale.add(wy);
  const byYear = new Map<number, string[]>();
  for (const page of datesByPage(ingested).keys()) {
    const wy = waterYearOfPage(page);
    byYear.set(wy, [...(byYear.get(wy) ?? []), page]);
  }
  for (const v of seriesVariables(d)) {
    const names = new Set(await namesIn(d.store, d.paths.seriesVariable(v)));
    for (const [wy, pages] of byYear) {
      if (!yearClosed(wy, today) || stale.has(wy)) continue;
      if (names.has(`wy${wy}.pack`)) {
        const pack = d.paths.seriesPack(v, wy);
        const left = pages.filter((p) => names.has(`${p}.page`));
        // The common case, every ingest for every closed year: a pack on the set, no page beside
        // it. Its first bytes say so (20 years: ~0.5 s of index reads and page removals saved).
        if (left.length === 0 && (await packBlockSet(d.store, pack)) === set.id) continue;
        const index = await readPackIndex(d.store, pack);
        if (index !== null && index.blockSet === set.id) {
          for (const p of left) await rm(d.paths.seriesPage(v, p), { force: true }); // leftovers of a kill after packing
          continue;
        }
        await rm(pack, { force: true }); // damaged, or left by a rebuild killed before it removed it
      }
      if (!pages.every((p) => names.has(`${p}.page`))) continue;
      const paths = pages.map((p) => d.paths.seriesPage(v, p));
      await packYear(d.paths.seriesPack(v, wy), paths, set.id, d.config.variables[v]!.dtype).then(
        () => packs++,
        (e) => {
          if (!(e instanceof SnowdbError)) throw e; // a damaged page: left for doctor and rebuild
        },
      );
    }
  }
  return packs;
}
