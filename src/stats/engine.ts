/**
 * The compact stats body (docs/reference.md#stats): the cube of a plan, boxed for the wire.
 */
import type { Database } from '../db/database.js';
import { type Cube, type CubeZone, columnTable, type ExecuteOptions, executeCube, zonesOf } from './cube.js';
import { openStatsPlan, type StatsPlan, type StatsQuery } from './plan.js';

export type { ExecuteOptions } from './cube.js';

/** The compact stats body (docs/reference.md#stats). */
export interface CompactStats {
  zone_layers: string[];
  variables: string[];
  /** Cells: their zone refs and in-basin area, m² (and acres with US units). */
  zones: CubeZone[];
  results: Record<string, (number | null)[][]>;
}

/** A table's rows by key: per key, per emitted cell, its C values of `table` from `at(key index)`; NaN → null. */
export function boxRows(
  keys: readonly string[],
  cells: number,
  columns: number,
  table: Float64Array,
): Record<string, (number | null)[][]> {
  const results: Record<string, (number | null)[][]> = {};
  keys.forEach((key, i) => {
    const rows: (number | null)[][] = new Array(cells);
    for (let j = 0; j < cells; j++) {
      const row: (number | null)[] = new Array(columns);
      const at = (i * cells + j) * columns;
      for (let c = 0; c < columns; c++) {
        const v = table[at + c]!;
        row[c] = Number.isNaN(v) ? null : v;
      }
      rows[j] = row;
    }
    results[key] = rows;
  });
  return results;
}

/** The compact body of a cube (`table`: its `columnTable`, when made already): header, zones, per-date rows. */
export function compactOf(cube: Cube, table = columnTable(cube)): CompactStats {
  const { plan } = cube;
  return {
    zone_layers: plan.axes.map((a) => a.axis.layer),
    variables: plan.columns.map((c) => c.name),
    zones: zonesOf(cube),
    results: boxRows(plan.dates, cube.cells.length, plan.columns.length, table),
  };
}

/** Execute a plan into its compact body. */
export async function executeStats(plan: StatsPlan, opts: ExecuteOptions = {}): Promise<CompactStats> {
  return compactOf(await executeCube(plan, opts));
}

/** Stratified statistics of one basin in an active dataset: plan, then execute. */
export async function computeStats(db: Database, q: StatsQuery): Promise<CompactStats> {
  return executeStats(await openStatsPlan(db, q));
}
