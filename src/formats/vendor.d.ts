// The parts of two untyped npm packages snowdb calls.

declare module 'shpjs' {
  /** Shapes of a .shp file as GeoJSON geometries (`prj` absent: coordinates as stored). */
  export function parseShp(shp: Uint8Array, prj?: string): ({ type: string; coordinates: unknown } | null)[];
  /** Records of a .dbf file (`cpg`: its code page file's text). */
  export function parseDbf(dbf: Uint8Array, cpg?: string): Record<string, unknown>[];
}

declare module 'sql.js' {
  interface QueryResult {
    columns: string[];
    values: unknown[][];
  }
  export interface SqlDatabase {
    exec(sql: string, params?: unknown[]): QueryResult[];
    close(): void;
  }
  interface SqlJs {
    Database: new (data?: Uint8Array) => SqlDatabase;
  }
  export default function initSqlJs(config?: object): Promise<SqlJs>;
}
