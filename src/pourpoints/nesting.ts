/**
 * Nesting: which basins lie inside which, from their polygons. A child nests in a parent when at
 * least NESTED_SHARE of its area lies in the parent, measured by exact coverage of both polygons
 * on a lon/lat grid fitted to the child (about 128 cells across): Σ min(child, parent) covered
 * fraction × cell area over the child's. Both polygons follow one watershed divide where they
 * meet, so a digitized border shared to a few metres still nests; a neighbour sharing a border
 * scores near 0. Kept per index version (one pass over every stored polygon after an import).
 */
import type { Database } from '../db/database.js';
import { FileMemo } from '../io/memo.js';
import { rowAreas } from '../raster/cell-area.js';
import { type CoverageFractions, polygonCoverage } from '../raster/coverage.js';
import { crsFromEpsg } from '../raster/crs.js';
import { type AreaGeometry, containsPoint, labelPoint, polygonsOf } from '../raster/geometry.js';
import type { Grid } from '../raster/grid.js';
import { byString } from '../util/compare.js';
import { Slicer } from '../util/slices.js';
import type { IndexEntry } from './index-file.js';
import { indexOf, readStoredBasin } from './store.js';

/** Share of a child's area that must lie inside a parent, in [0, 1]. */
export const NESTED_SHARE = 0.99;

export interface Nesting {
  /** Per basin, the basins it lies in, the smallest (its direct parent) first. */
  readonly parents: ReadonlyMap<string, readonly string[]>;
  /** Per basin, the basins directly inside it (whose direct parent it is), sorted by id. */
  readonly children: ReadonlyMap<string, readonly string[]>;
}

/** The share of `child`'s area inside `parent` (0 when they do not meet). */
export function shareInside(child: AreaGeometry, box: IndexEntry['basinBbox'], parent: AreaGeometry): number {
  const [w, s, e, n] = box;
  const size = Math.max(e - w, n - s) / 128 || 1e-6;
  const grid: Grid = {
    crs: crsFromEpsg(4326)!,
    originX: w - size,
    originY: n + size,
    cellWidth: size,
    cellHeight: size,
    width: Math.ceil((e - w) / size) + 2,
    height: Math.ceil((n - s) / size) + 2,
    tileSize: 16,
  };
  const c = polygonCoverage(grid, child);
  const p = polygonCoverage(grid, parent);
  if (c === null || p === null) return 0;
  const areas = rowAreas(grid);
  const at = (cov: CoverageFractions, col: number, row: number) => {
    const x = col - cov.window.col;
    const y = row - cov.window.row;
    return x < 0 || y < 0 || x >= cov.window.width || y >= cov.window.height
      ? 0
      : cov.fractions[y * cov.window.width + x]!;
  };
  let inside = 0;
  let total = 0;
  for (let y = 0; y < c.window.height; y++) {
    const row = c.window.row + y;
    for (let x = 0; x < c.window.width; x++) {
      const col = c.window.col + x;
      const fc = c.fractions[y * c.window.width + x]!;
      total += fc * areas[row]!;
      inside += Math.min(fc, at(p, col, row)) * areas[row]!;
    }
  }
  return total > 0 ? inside / total : 0;
}

/** Whether box `a` lies inside box `b`, give or take `slack` degrees. */
const within = (a: IndexEntry['basinBbox'], b: IndexEntry['basinBbox'], slack: number) =>
  a[0] >= b[0] - slack && a[1] >= b[1] - slack && a[2] <= b[2] + slack && a[3] <= b[3] + slack;

/** The nesting of indexed basins (`polygon`: a basin's polygon by id). */
export async function nestingOfEntries(
  entries: readonly IndexEntry[],
  polygon: (id: string) => Promise<AreaGeometry>,
): Promise<Nesting> {
  const inside = new Map<string, IndexEntry[]>();
  // Hundreds of basins: measured in slices, so a server's other requests go on meanwhile.
  const slicer = new Slicer();
  for (const child of entries) {
    await slicer.pause();
    const [w, s, e, n] = child.basinBbox;
    const slack = 0.01 * Math.max(e - w, n - s);
    for (const parent of entries) {
      if (parent === child || parent.areaMeters <= child.areaMeters) continue;
      if (!within(child.basinBbox, parent.basinBbox, slack)) continue;
      const [inner, outer] = [await polygon(child.triplet), await polygon(parent.triplet)];
      // A point well inside the child lies in any basin that holds it: a cheap first test.
      const [x, y] = labelPoint(polygonsOf(inner));
      if (!containsPoint(polygonsOf(outer), x, y)) continue;
      if (shareInside(inner, child.basinBbox, outer) < NESTED_SHARE) continue;
      const list = inside.get(child.triplet) ?? [];
      list.push(parent);
      inside.set(child.triplet, list);
    }
  }
  const parents = new Map<string, string[]>();
  const children = new Map<string, string[]>();
  for (const [id, list] of inside) {
    list.sort((a, b) => a.areaMeters - b.areaMeters);
    parents.set(
      id,
      list.map((p) => p.triplet),
    );
    const direct = list[0]!.triplet;
    children.set(direct, [...(children.get(direct) ?? []), id].sort(byString));
  }
  return { parents, children };
}

const memos = new WeakMap<Database, FileMemo<Nesting>>();

/** The database's nesting, recomputed when the index changes. */
export function nestingOf(db: Database): Promise<Nesting> {
  let m = memos.get(db);
  if (m === undefined) {
    m = new FileMemo(db.store, db.paths.pourpointIndex, async () => {
      const entries = [...(await indexOf(db)).values()];
      const polygons = new Map<string, Promise<AreaGeometry>>();
      const polygon = (id: string) => {
        let p = polygons.get(id);
        if (p === undefined) {
          p = readStoredBasin(db, id).then((r) => r.basin);
          polygons.set(id, p);
        }
        return p;
      };
      return nestingOfEntries(entries, polygon);
    });
    memos.set(db, m);
  }
  return m.get();
}
