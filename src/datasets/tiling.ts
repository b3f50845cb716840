/**
 * How a basin set's members tile a dataset's grid, from their exact coverage weights (the
 * coverage index): where they overlap (a cell whose members' weights add to more than the cell's
 * area) and where they leave an interior gap (a cell the members cover only partly while all four
 * of its neighbours are covered). Both areas are lower bounds of the true overlap and gap areas
 * (what lies inside such cells); the members named are those weighing in those cells.
 */
import { rowAreas } from '../raster/cell-area.js';
import { unionWindows, type Window } from '../raster/grid.js';
import { indexedWeightsOf, readCoverageIndex, type SparseWeights } from './coverage-index.js';
import type { Dataset } from './registry.js';

/** Relative slack on a cell's area: sums of exact weights round by ~1e-15 (float64). */
const SLACK = 1e-9;
/** Members named per finding. */
const NAMED = 5;

export interface TilingFinding {
  /** Cells with the finding. */
  readonly cells: number;
  /** The area they hold of it (excess for overlaps, uncovered for gaps), m². */
  readonly areaM2: number;
  /** How many members weigh in those cells, and the first few of them (triplet order). */
  readonly members: number;
  readonly named: readonly string[];
}

export interface TilingReport {
  readonly dataset: string;
  /** Members with weights in the dataset's coverage index (current or not). */
  readonly basins: number;
  readonly overlaps: TilingFinding;
  readonly gaps: TilingFinding;
}

/** The tiling of `members` (triplets) on dataset `d`; null when its coverage index holds none of them. */
export async function tilingOf(d: Dataset, members: readonly string[]): Promise<TilingReport | null> {
  const index = await readCoverageIndex(d.store, d.paths.coverageIndex).catch(() => null);
  const held = index ? members.filter((t) => index.basins.has(t)).sort() : [];
  if (index === null || held.length === 0) return null;
  const weights = await indexedWeightsOf(
    d.store,
    index,
    held.map((t) => index.basins.get(t)!),
  );
  return tilingOfWeights(d, new Map(held.map((t, i) => [t, weights[i]!])));
}

/** The tiling of basins given with their weights (triplet → weights), in triplet order. */
export function tilingOfWeights(d: Dataset, basins: ReadonlyMap<string, SparseWeights>): TilingReport | null {
  const held = [...basins.keys()].sort();
  if (held.length === 0) return null;
  const weights = held.map((t) => basins.get(t)!);
  const U = unionWindows(weights.map((w) => w.window))!;
  const { col: c0, row: r0 } = U;
  const cellArea = rowAreas(d.grid);
  // Σ weight of the members per cell of the union window, m².
  const sum = new Float64Array(U.width * U.height);
  const at = (w: Window, a: number) =>
    (w.row - r0 + Math.floor(a / w.width)) * U.width + (w.col - c0 + (a % w.width));
  for (const w of weights) for (let k = 0; k < w.at.length; k++) sum[at(w.window, w.at[k]!)]! += w.weight[k]!;
  // Each cell's finding: 1 overlap, 2 interior gap, 0 none.
  const kind = new Uint8Array(sum.length);
  const out = { overlaps: { cells: 0, areaM2: 0 }, gaps: { cells: 0, areaM2: 0 } };
  for (let r = 0; r < U.height; r++) {
    const area = cellArea[U.row + r]!;
    for (let c = 0; c < U.width; c++) {
      const i = r * U.width + c;
      const s = sum[i]!;
      if (s > area * (1 + SLACK)) {
        kind[i] = 1;
        out.overlaps.cells++;
        out.overlaps.areaM2 += s - area;
      } else if (
        s > 0 &&
        s < area * (1 - SLACK) &&
        r > 0 &&
        c > 0 &&
        r < U.height - 1 &&
        c < U.width - 1 &&
        sum[i - 1]! > 0 &&
        sum[i + 1]! > 0 &&
        sum[i - U.width]! > 0 &&
        sum[i + U.width]! > 0
      ) {
        kind[i] = 2;
        out.gaps.cells++;
        out.gaps.areaM2 += area - s;
      }
    }
  }
  const inKind = [new Set<string>(), new Set<string>()];
  weights.forEach((w, b) => {
    for (let k = 0; k < w.at.length; k++) {
      const f = kind[at(w.window, w.at[k]!)]!;
      if (f !== 0) inKind[f - 1]!.add(held[b]!);
    }
  });
  const finding = (x: { cells: number; areaM2: number }, members: Set<string>): TilingFinding => ({
    ...x,
    members: members.size,
    named: [...members].slice(0, NAMED),
  });
  return {
    dataset: d.name,
    basins: held.length,
    overlaps: finding(out.overlaps, inKind[0]!),
    gaps: finding(out.gaps, inKind[1]!),
  };
}

/** One line of a report: `snodas: 2 of 986 basins overlap in 14 cells (3.2 km² at least: huc12:…, …)`. */
export function tilingLines(r: TilingReport): string[] {
  const km2 = (m2: number) => `${(m2 / 1e6).toPrecision(3)} km²`;
  const names = (f: TilingFinding) => `${f.named.join(', ')}${f.members > f.named.length ? ', …' : ''}`;
  const lines: string[] = [];
  if (r.overlaps.cells > 0)
    lines.push(
      `${r.dataset}: ${r.overlaps.members} of ${r.basins} basins overlap in ${r.overlaps.cells} cell(s) (${km2(r.overlaps.areaM2)} at least): ${names(r.overlaps)}`,
    );
  if (r.gaps.cells > 0)
    lines.push(
      `${r.dataset}: ${r.gaps.cells} cell(s) between ${r.gaps.members} of ${r.basins} basins are left uncovered (${km2(r.gaps.areaM2)} at least): ${names(r.gaps)}`,
    );
  return lines;
}
