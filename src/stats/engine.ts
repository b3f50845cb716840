/**
 * The compact stats body (docs/reference.md#stats): the cube of a plan, boxed for the wire.
 */
import type { Database } from '../db/database.js';
import { type Cube, type CubeZone, columnTable, type ExecuteOptions, executeCube, zonesOf } from './cube.js';
import { openStatsPlan, type StatsPlan, type StatsQuery } from './plan.js';

export type { ExecuteOptions } from './cube.js';

/** Per key (a date), per emitted cell, its values; null = no data. */
export type BoxedRows = Record<string, (number | null)[][]>;

/**
 * The compact stats body (docs/reference.md#stats); `R`, its results: boxed, or (an answer
 * going out as JSON) kept as the table they are read from.
 */
export interface CompactStats<R = BoxedRows> {
  zone_layers: string[];
  variables: string[];
  /** Cells: their zone refs and in-basin area, m² (and acres with US units). */
  zones: CubeZone[];
  results: R;
}

/**
 * A table's rows by key, kept as the table: its JSON text made straight from the numbers, a key
 * at a time (`jsonPieces`: no boxed array per row, so a large answer leaves the heap small), or
 * boxed on demand (`toJSON`). Text identical to `JSON.stringify(boxRows(…))`.
 */
export class TableRows {
  constructor(
    readonly keys: readonly string[],
    readonly cells: number,
    readonly columns: number,
    readonly table: Float64Array,
  ) {}

  toJSON(): BoxedRows {
    return boxRows(this.keys, this.cells, this.columns, this.table);
  }

  /** `{"key":[[v,…],…],…}` a key at a time; numbers as JSON writes them (String of a finite number; else null). */
  *jsonPieces(): Generator<string> {
    const { keys, cells, columns: C, table } = this;
    yield '{';
    const parts: string[] = new Array(cells);
    const row: string[] = new Array(C);
    for (let i = 0; i < keys.length; i++) {
      for (let j = 0; j < cells; j++) {
        const at = (i * cells + j) * C;
        for (let c = 0; c < C; c++) {
          const v = table[at + c]!;
          row[c] = Number.isFinite(v) ? String(v) : 'null';
        }
        parts[j] = `[${row.join(',')}]`;
      }
      yield `${i > 0 ? ',' : ''}${JSON.stringify(keys[i])}:[${parts.join(',')}]`;
    }
    yield '}';
  }
}

/** A table's rows by key: per key, per emitted cell, its C values of `table` from `at(key index)`; NaN → null. */
export function boxRows(
  keys: readonly string[],
  cells: number,
  columns: number,
  table: Float64Array,
): BoxedRows {
  const results: BoxedRows = {};
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
  const t = tableOf(cube, table);
  return { ...t, results: t.results.toJSON() };
}

/** The compact body of a cube with its rows kept as the table (an answer going out as JSON). */
export function tableOf(cube: Cube, table = columnTable(cube)): CompactStats<TableRows> {
  const { plan } = cube;
  return {
    zone_layers: plan.axes.map((a) => a.axis.layer),
    variables: plan.columns.map((c) => c.name),
    zones: zonesOf(cube),
    results: new TableRows(plan.dates, cube.cells.length, plan.columns.length, table),
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
