/**
 * A GeoPackage feature layer (OGC 12-128r18), read with sql.js (SQLite in WebAssembly): the
 * layer's rows, its geometry column decoded from the GeoPackage binary header (magic `GP`,
 * version, flags: envelope kind and byte order, srs_id) and the WKB that follows (Polygon and
 * MultiPolygon, 2-D, Z, M or ZM: only x and y are kept), and the layer's EPSG code from
 * gpkg_spatial_ref_sys.
 */
import initSqlJs, { type SqlDatabase } from 'sql.js';
import { SnowdbError } from '../errors.js';
import type { VectorFeature, VectorLayer } from './vector.js';

/** Largest GeoPackage read into memory (SQLite in WebAssembly holds the whole file), bytes. */
export const MAX_GEOPACKAGE_BYTES = 1 << 30;

const invalid = (label: string, why: string) => new SnowdbError('invalid-pourpoint', `${label}: ${why}`);

/** Bytes of the envelope by the flags' envelope indicator (0 none, 1 xy, 2 xyz, 3 xym, 4 xyzm). */
const ENVELOPE = [0, 32, 48, 48, 64];

type Geometry = { type: string; coordinates: unknown };

/** Decode one geometry blob: the GeoPackage header, then WKB. */
export function gpkgGeometry(blob: Uint8Array): Geometry | null {
  const view = new DataView(blob.buffer, blob.byteOffset, blob.byteLength);
  if (blob.length < 8 || blob[0] !== 0x47 || blob[1] !== 0x50)
    throw new Error('no GeoPackage geometry header (GP)');
  const flags = blob[3]!;
  if (flags & 0x10) return null; // the empty-geometry flag
  const envelope = ENVELOPE[(flags >> 1) & 7];
  if (envelope === undefined) throw new Error(`envelope indicator ${(flags >> 1) & 7} is not defined`);
  return readWkb(view, 8 + envelope).geometry;
}

/** Read WKB at `at`: a Polygon or a MultiPolygon (x, y kept), with where it ends. */
function readWkb(view: DataView, at: number): { geometry: Geometry; end: number } {
  const le = view.getUint8(at) === 1;
  const raw = view.getUint32(at + 1, le);
  // ISO WKB: 1000s for Z, 2000s for M, 3000s for ZM; EWKB-style high bits also say Z and M.
  const base = (raw & 0xffff) % 1000;
  const iso = Math.floor((raw & 0xffff) / 1000);
  const dims =
    2 +
    (iso === 1 || iso === 2 ? 1 : iso === 3 ? 2 : 0) +
    (raw & 0x80000000 ? 1 : 0) +
    (raw & 0x40000000 ? 1 : 0);
  let p = at + 5;
  const polygon = (): number[][][] => {
    const rings: number[][][] = [];
    const n = view.getUint32(p, le);
    p += 4;
    for (let r = 0; r < n; r++) {
      const m = view.getUint32(p, le);
      p += 4;
      const ring: number[][] = [];
      for (let i = 0; i < m; i++, p += 8 * dims)
        ring.push([view.getFloat64(p, le), view.getFloat64(p + 8, le)]);
      rings.push(ring);
    }
    return rings;
  };
  if (base === 3) return { geometry: { type: 'Polygon', coordinates: polygon() }, end: p };
  if (base === 6) {
    const n = view.getUint32(p, le);
    p += 4;
    const polys: unknown[] = [];
    for (let i = 0; i < n; i++) {
      const part = readWkb(view, p);
      if (part.geometry.type !== 'Polygon') throw new Error('a MultiPolygon part is not a Polygon');
      polys.push(part.geometry.coordinates);
      p = part.end;
    }
    return { geometry: { type: 'MultiPolygon', coordinates: polys }, end: p };
  }
  const names: Record<number, string> = {
    1: 'Point',
    2: 'LineString',
    4: 'MultiPoint',
    5: 'MultiLineString',
    7: 'GeometryCollection',
  };
  return { geometry: { type: names[base] ?? `WKB type ${raw}`, coordinates: null }, end: p };
}

/** A name from the file, quoted, with control bytes shown as escapes (never echoed raw). */
const printable = (name: string) => JSON.stringify(name.slice(0, 200)).replace(/^"|"$/g, "'");

const quote = (name: string) => `"${name.replaceAll('"', '""')}"`;

/**
 * A feature layer of a GeoPackage: its only one, or the one named `layer`.
 * @throws SnowdbError `invalid-pourpoint` for a file that is no GeoPackage, no or several layers, bad geometry.
 */
export async function readGeoPackage(bytes: Uint8Array, label: string, layer?: string): Promise<VectorLayer> {
  if (bytes.length > MAX_GEOPACKAGE_BYTES)
    throw invalid(
      label,
      `${bytes.length} bytes: larger than the ${MAX_GEOPACKAGE_BYTES} bytes snowdb reads from a GeoPackage`,
    );
  const SQL = await initSqlJs();
  const db = new SQL.Database(bytes);
  try {
    return readLayer(db, label, layer);
  } catch (e) {
    if (SnowdbError.is(e)) throw e;
    // SQLite's own words for a damaged file ("database disk image is malformed", "file is not a database").
    throw invalid(label, `a damaged GeoPackage: SQLite cannot read it (${(e as Error).message})`);
  } finally {
    db.close();
  }
}

function readLayer(db: SqlDatabase, label: string, layer: string | undefined): VectorLayer {
  {
    const rows = (sql: string, params: unknown[] = []) => {
      const r = db.exec(sql, params)[0];
      return r ? r.values.map((v) => Object.fromEntries(r.columns.map((c, i) => [c, v[i]]))) : [];
    };
    let layers: Record<string, unknown>[];
    try {
      layers = rows(
        "SELECT c.table_name AS name, g.column_name AS geom, g.srs_id AS srs FROM gpkg_contents c JOIN gpkg_geometry_columns g ON g.table_name = c.table_name WHERE c.data_type = 'features' ORDER BY c.table_name",
      );
    } catch (e) {
      // A SQLite file without the GeoPackage tables; a damaged one is said so by the caller.
      if (!/no such (table|column)/.test((e as Error).message)) throw e;
      throw invalid(label, `not a GeoPackage (${(e as Error).message})`);
    }
    // Only real tables are read: a view (an endless recursive one grows without bound) or a
    // virtual table is refused by name.
    const refused = new Map<string, string>();
    for (const l of layers) {
      const kind = rows('SELECT type, sql FROM sqlite_master WHERE name = ?', [String(l.name)])[0];
      if (kind === undefined) refused.set(String(l.name), 'listed in gpkg_contents but not in the file');
      else if (kind.type !== 'table')
        refused.set(String(l.name), `a ${String(kind.type)}, not a feature table`);
      else if (/^\s*create\s+virtual\b/i.test(String(kind.sql)))
        refused.set(String(l.name), 'a virtual table, not a feature table');
    }
    const why = (n: string) => `layer ${printable(n)} is ${refused.get(n)}: snowdb reads feature tables only`;
    if (layer !== undefined && refused.has(layer)) throw invalid(label, why(layer));
    layers = layers.filter((l) => !refused.has(String(l.name)));
    const names = layers.map((l) => String(l.name));
    if (layers.length === 0)
      throw invalid(
        label,
        refused.size === 0 ? 'a GeoPackage without a feature layer' : [...refused.keys()].map(why).join('; '),
      );
    const at = layer === undefined ? (layers.length === 1 ? 0 : -1) : names.indexOf(layer);
    if (at < 0)
      throw invalid(
        label,
        layer === undefined
          ? `holds ${layers.length} feature layers (${names.join(', ')}): choose one with --layer`
          : `has no feature layer ${printable(layer)} (it holds ${names.join(', ')})`,
      );
    const { name, geom, srs } = layers[at] as { name: string; geom: string; srs: number };
    const srsRow = rows(
      'SELECT organization AS org, organization_coordsys_id AS code, definition AS wkt FROM gpkg_spatial_ref_sys WHERE srs_id = ?',
      [srs],
    )[0];
    const crs =
      srsRow === undefined
        ? null
        : String(srsRow.org).toUpperCase() === 'EPSG'
          ? { epsg: Number(srsRow.code) }
          : { wkt: String(srsRow.wkt) };
    const columns = rows(`PRAGMA table_info(${quote(name)})`);
    const pk = columns.find((c) => Number(c.pk) === 1)?.name as string | undefined;
    const fields = columns.map((c) => String(c.name)).filter((c) => c !== geom && c !== pk);
    const features: VectorFeature[] = rows(`SELECT * FROM ${quote(name)}`).map((r, i) => {
      const blob = r[geom];
      let geometry: Geometry | null = null;
      try {
        geometry = blob instanceof Uint8Array ? gpkgGeometry(blob) : null;
      } catch (e) {
        throw invalid(label, `${name} row ${i + 1}: unreadable geometry (${(e as Error).message})`);
      }
      const properties = Object.fromEntries(fields.map((f) => [f, r[f]]));
      return { ...(pk !== undefined && { id: r[pk] as number }), properties, geometry };
    });
    return { name, crs: srs === 4326 && crs === null ? { epsg: 4326 } : crs, fields, features };
  }
}
