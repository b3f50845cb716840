/**
 * Nesting: which basins lie inside which, from their polygons. A child nests in a parent when at
 * least NESTED_SHARE of its area lies in the parent, measured by exact coverage of both polygons
 * on a lon/lat grid fitted to the child (about 128 cells across): Σ min(child, parent) covered
 * fraction × cell area over the child's. Both polygons follow one watershed divide where they
 * meet, so a digitized border shared to a few metres still nests; a neighbour sharing a border
 * scores near 0. Measured around one basin at a time, from its candidates' polygons only: the
 * basins whose boxes meet its box, found in an R-tree of every basin's box (built once per index).
 */
import Flatbush from 'flatbush';
import type { Database } from '../db/database.js';
import { fileSignature } from '../io/memo.js';
import { rowAreas } from '../raster/cell-area.js';
import { type CoverageFractions, polygonCoverage } from '../raster/coverage.js';
import { crsFromEpsg } from '../raster/crs.js';
import { type AreaGeometry, containsPoint, labelPoint, polygonsOf } from '../raster/geometry.js';
import type { Grid } from '../raster/grid.js';
import { byString } from '../util/compare.js';
import type { Runtime } from '../util/runtime.js';
import { Slicer } from '../util/slices.js';
import { weakMemo } from '../util/weak-memo.js';
import type { IndexEntry } from './index-file.js';
import { indexedEntry, indexOf, readStoredBasin } from './store.js';

/** Share of a child's area that must lie inside a parent, in [0, 1]. */
export const NESTED_SHARE = 0.99;

/** A basin's place among the others. */
export interface Nesting {
  /** The basins it lies in, the smallest (its direct parent) first. */
  readonly parents: readonly string[];
  /** The basins directly inside it (whose direct parent it is), sorted by id. */
  readonly children: readonly string[];
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

/** A basin's slack for `within`: 1 % of its box's larger side, degrees. */
const slackOf = ([w, s, e, n]: IndexEntry['basinBbox']) => 0.01 * Math.max(e - w, n - s);

/** Whether box `a` lies inside box `b`, give or take `slack` degrees. */
const within = (a: IndexEntry['basinBbox'], b: IndexEntry['basinBbox'], slack: number) =>
  a[0] >= b[0] - slack && a[1] >= b[1] - slack && a[2] <= b[2] + slack && a[3] <= b[3] + slack;

/** Whether `child` nests in `parent` (`polygon`: a basin's polygon by id). */
async function nests(
  child: IndexEntry,
  parent: IndexEntry,
  polygon: (id: string) => Promise<AreaGeometry>,
): Promise<boolean> {
  if (parent === child || parent.areaMeters <= child.areaMeters) return false;
  if (!within(child.basinBbox, parent.basinBbox, slackOf(child.basinBbox))) return false;
  const [inner, outer] = [await polygon(child.triplet), await polygon(parent.triplet)];
  // A point well inside the child lies in any basin that holds it: a cheap first test.
  const [x, y] = labelPoint(polygonsOf(inner));
  if (!containsPoint(polygonsOf(outer), x, y)) return false;
  return shareInside(inner, child.basinBbox, outer) >= NESTED_SHARE;
}

/**
 * The nesting around one basin, from the polygons it needs (its candidates by bounding box and
 * area only): the basins it lies in, the smallest first, and the basins directly inside it (those
 * no smaller basin inside it holds).
 * @throws SnowdbError `pourpoint-not-found`.
 */
export async function nestingAround(db: Database, id: string): Promise<Nesting> {
  // Its candidates' records parsed and their polygons crossed: tens of ms a basin, computed once
  // while the index (every basin's geometry hash) is unchanged. Signed before the index is read:
  // an index replaced meanwhile is kept under the older signature, which nobody asks for again.
  const key = `${id}\0${fileSignature(db.store, db.paths.pourpointIndex)}`;
  const index = await indexOf(db);
  const me = indexedEntry(index, id);
  return nestings(db.runtime).get(key, () => computeNesting(db, index, me));
}

/** Nestings by basin and index signature: their JSON's UTF-16 bytes and the objects. */
const nestings = (rt: Runtime) => rt.cache<Nesting>('nesting', (n) => 2 * JSON.stringify(n).length + 512);

/** Every basin of an index in an R-tree of its basin box (lon/lat degrees), built once per index read. */
interface BoxTree {
  readonly tree: Flatbush;
  /** The entries in the tree's item order. */
  readonly entries: readonly IndexEntry[];
}

const boxTree = weakMemo((index: ReadonlyMap<string, IndexEntry>): BoxTree => {
  const entries = [...index.values()];
  const tree = new Flatbush(entries.length); // ≥ 1: the basin asked about is in the index
  for (const e of entries) tree.add(...e.basinBbox);
  tree.finish();
  return { tree, entries };
});

/** The entries whose boxes meet `box` grown by `slack` degrees. */
function meeting(t: BoxTree, box: IndexEntry['basinBbox'], slack: number): IndexEntry[] {
  const [w, s, e, n] = box;
  return t.tree.search(w - slack, s - slack, e + slack, n + slack).map((k) => t.entries[k]!);
}

async function computeNesting(
  db: Database,
  index: ReadonlyMap<string, IndexEntry>,
  me: IndexEntry,
): Promise<Nesting> {
  const tree = boxTree(index);
  const polygons = new Map<string, Promise<AreaGeometry>>();
  const polygon = (t: string) => {
    let p = polygons.get(t);
    if (p === undefined) {
      p = readStoredBasin(db, t).then((r) => r.basin);
      polygons.set(t, p);
    }
    return p;
  };
  // Candidates are few: the basins whose boxes meet; sliced for a server.
  const slicer = new Slicer();
  const holding = async (child: IndexEntry, smallerThan = Number.POSITIVE_INFINITY) => {
    const out: IndexEntry[] = [];
    for (const p of meeting(tree, child.basinBbox, slackOf(child.basinBbox))) {
      if (p.areaMeters >= smallerThan || !(await nests(child, p, polygon))) continue;
      out.push(p);
      await slicer.pause();
    }
    return out.sort((a, b) => a.areaMeters - b.areaMeters);
  };
  const parents = (await holding(me)).map((p) => p.triplet);
  const children: string[] = [];
  // A child's box lies in this one's, give or take the child's slack (≤ 1 % of this box's side).
  for (const c of meeting(tree, me.basinBbox, slackOf(me.basinBbox))) {
    if (!(await nests(c, me, polygon))) continue;
    // Direct: no basin smaller than this one holds it.
    if ((await holding(c, me.areaMeters)).length === 0) children.push(c.triplet);
    await slicer.pause();
  }
  return { parents, children: children.sort(byString) };
}
