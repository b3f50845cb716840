import { SnowdbError } from '../errors.js';
import {
  type AreaGeometry,
  labelPoint,
  type PolygonCoords,
  polygonsOf,
  type Ring,
} from '../raster/geometry.js';
import { antimeridianJump, firstCrossing, polygonArea } from '../raster/validity.js';
import { isBasinId } from './triplet.js';

/** Lon/lat WGS84 position of an outflow point. */
export type LonLat = readonly [number, number];

/** What every record carries: basin id, display name, ids, the outflow point, all properties. */
interface RecordBase {
  /** The basin id: a station triplet, or `<set>:<id>` for a member of an imported set. */
  readonly triplet: string;
  /** `nwccname`, else `name`. */
  readonly name: string;
  readonly awdbId: string | null;
  readonly usgsId: string | null;
  /** The outflow point; without an outlet (a polygon Feature), a point inside the basin (`outlet` false). */
  readonly point: LonLat;
  /** Whether `point` is the basin's outlet. */
  readonly outlet: boolean;
  readonly properties: Readonly<Record<string, unknown>>;
}

/** A record with a basin polygon: it is stored, indexed and queried. */
export interface BasinRecord extends RecordBase {
  readonly kind: 'basin';
  readonly basin: AreaGeometry;
}

/** A point-only `Feature`: it names a station but has no basin, so it is skipped. */
export interface PointOnlyRecord extends RecordBase {
  readonly kind: 'point-only';
}

export type PourpointRecord = BasinRecord | PointOnlyRecord;

/** Thrown inside the parser; `parseRecord` turns it into an `invalid-pourpoint` naming the source. */
class Invalid extends Error {}

type Json = Record<string, unknown>;

function isObject(v: unknown): v is Json {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function position(v: unknown, where: string): LonLat {
  if (!Array.isArray(v) || v.length < 2 || !v.every((c) => typeof c === 'number' && Number.isFinite(c))) {
    throw new Invalid(`${where} is not a position [lon, lat]`);
  }
  const lon = v[0] as number;
  const lat = v[1] as number;
  if (lon < -180 || lon > 180 || lat < -90 || lat > 90) {
    throw new Invalid(`${where} [${lon}, ${lat}] is not a WGS84 lon/lat position`);
  }
  return [lon, lat];
}

function ring(v: unknown, where: string): Ring {
  if (!Array.isArray(v) || v.length < 4) throw new Invalid(`${where} is not a ring of at least 4 positions`);
  const pts = v.map((p, i) => position(p, `${where}[${i}]`));
  const a = pts[0]!;
  const b = pts[pts.length - 1]!;
  if (a[0] !== b[0] || a[1] !== b[1])
    throw new Invalid(`${where} is not closed (first and last positions differ)`);
  return pts;
}

/** Below this planar area (degrees², ~0.01 m²) a polygon has none. */
const NO_AREA = 1e-12;

function polygon(v: unknown, where: string): PolygonCoords {
  if (!Array.isArray(v) || v.length === 0) throw new Invalid(`${where} has no rings`);
  const rings = v.map((r, i) => ring(r, `${where}[${i}]`));
  rings.forEach((r, i) => {
    const jump = antimeridianJump(r);
    if (jump !== null)
      throw new Invalid(
        `${where}[${i}] crosses the antimeridian between positions ${jump.edge} and ${jump.edge + 1} (longitude ${jump.from} to ${jump.to}): no dataset grid reaches it, and snowdb does not split polygons there`,
      );
  });
  const x = firstCrossing(rings);
  if (x !== null) {
    const other = x.b.ring === x.a.ring ? `its edge ${x.b.edge}` : `ring ${x.b.ring}'s edge ${x.b.edge}`;
    throw new Invalid(
      `${where}[${x.a.ring}] edge ${x.a.edge} crosses ${other} at [${x.at.map((c) => c.toFixed(6)).join(', ')}]: a self-intersecting polygon has no single area; repair it (e.g. ogr2ogr -makevalid) and import it again`,
    );
  }
  if (Math.abs(polygonArea(rings)) < NO_AREA)
    throw new Invalid(`${where} has no area (its rings are lines or points)`);
  return rings;
}

function basinGeometry(g: Json, where: string): AreaGeometry {
  if (g.type === 'Polygon')
    return { type: 'Polygon', coordinates: polygon(g.coordinates, `${where} Polygon`) };
  if (!Array.isArray(g.coordinates) || g.coordinates.length === 0) {
    throw new Invalid(`${where} MultiPolygon has no polygons`);
  }
  const coordinates = g.coordinates.map((p, i) => polygon(p, `${where} MultiPolygon[${i}]`));
  return { type: 'MultiPolygon', coordinates };
}

function pointGeometry(g: unknown, where: string): LonLat {
  if (!isObject(g) || g.type !== 'Point') throw new Invalid(`${where} is not a Point`);
  return position(g.coordinates, `${where} Point`);
}

function optionalId(v: unknown): string | null {
  if (typeof v === 'string' && v.length > 0) return v;
  if (typeof v === 'number' && Number.isFinite(v)) return String(v);
  return null;
}

function base(doc: Json, point: LonLat, outlet = true): RecordBase {
  const triplet = doc.id;
  if (typeof triplet !== 'string') throw new Invalid('no "id" member holding the station triplet');
  if (!isBasinId(triplet))
    throw new Invalid(
      `id '${triplet}' is not a station triplet <station>:<state>:<network> or a set member <set>:<id>; to import a basin set give --set, and --id-field naming the attribute that identifies each basin`,
    );
  if (!isObject(doc.properties)) throw new Invalid('no "properties" object');
  const props = doc.properties;
  const name = [props.nwccname, props.name].find(
    (n): n is string => typeof n === 'string' && n.trim() !== '',
  );
  if (name === undefined) throw new Invalid('properties have neither "nwccname" nor "name"');
  return {
    triplet,
    name,
    awdbId: optionalId(props.awdb_id),
    usgsId: optionalId(props.usgs_id),
    point,
    outlet,
    properties: props,
  };
}

function classify(doc: unknown): PourpointRecord {
  if (!isObject(doc)) throw new Invalid('not a JSON object');
  if (doc.type === 'Feature') {
    const g = doc.geometry;
    if (isObject(g) && (g.type === 'Polygon' || g.type === 'MultiPolygon')) {
      // A basin without an outlet: its point is one inside it (for the map), not an outlet.
      const basin = basinGeometry(g, 'geometry');
      return { kind: 'basin', ...base(doc, labelPoint(polygonsOf(basin)), false), basin };
    }
    if (isObject(g) && g.type !== 'Point') {
      throw new Invalid(
        `a Feature record must hold a Point, a Polygon or a MultiPolygon, not a ${String(g.type)}`,
      );
    }
    return { kind: 'point-only', ...base(doc, pointGeometry(g, 'geometry')) };
  }
  if (doc.type !== 'GeometryCollection') {
    throw new Invalid(
      doc.type === 'FeatureCollection'
        ? `type is "FeatureCollection": a basin set; import it with --set <name> (and --id-field, --name-field naming the attributes), e.g. snowdb pourpoint import FILE --set huc12 --id-field huc12 --name-field name`
        : `type is ${JSON.stringify(doc.type)}; expected "Feature" or "GeometryCollection"`,
    );
  }
  const gs = doc.geometries;
  if (!Array.isArray(gs) || gs.length !== 2 || !gs.every(isObject)) {
    throw new Invalid(
      'a GeometryCollection record must hold exactly two geometries: a Point and a (Multi)Polygon',
    );
  }
  const pointAt = gs.findIndex((g) => g.type === 'Point');
  const basinAt = gs.findIndex((g) => g.type === 'Polygon' || g.type === 'MultiPolygon');
  if (pointAt < 0 || basinAt < 0) {
    const types = gs.map((g) => String(g.type)).join(', ');
    throw new Invalid(`geometries are ${types}; expected one Point and one Polygon or MultiPolygon`);
  }
  const point = pointGeometry(gs[pointAt], `geometries[${pointAt}]`);
  const basin = basinGeometry(gs[basinAt]!, `geometries[${basinAt}]`);
  return { kind: 'basin', ...base(doc, point), basin };
}

/**
 * Read a pourpoint record from its bytes: a point-only `Feature`, a `GeometryCollection` with
 * foreign members `id` and `properties` holding one Point and one Polygon/MultiPolygon in either
 * order, or a `Feature` holding a Polygon/MultiPolygon (a basin without an outlet: an imported
 * set's member). Coordinates are WGS84 lon/lat. A ring may touch itself at a point; a polygon whose
 * edges cross (a bow-tie), that has no area, or that jumps across the antimeridian is refused.
 * @param label names the source in errors (a path or URL).
 * @throws SnowdbError `invalid-pourpoint`: `<label>: <reason>`.
 */
export function parseRecord(bytes: Uint8Array, label: string): PourpointRecord {
  let doc: unknown;
  try {
    doc = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(bytes));
  } catch (e) {
    throw new SnowdbError('invalid-pourpoint', `${label}: not valid UTF-8 JSON (${(e as Error).message})`);
  }
  try {
    return classify(doc);
  } catch (e) {
    if (e instanceof Invalid) throw new SnowdbError('invalid-pourpoint', `${label}: ${e.message}`);
    throw e;
  }
}

/**
 * The geometry a drawn area's GeoJSON holds: the document bare, a Feature's, or the one Feature's
 * of a FeatureCollection; null for a FeatureCollection without exactly one Feature.
 */
export function areaGeometryOf(doc: unknown): { readonly geometry: unknown } | null {
  let g = doc;
  if (isObject(g) && g.type === 'FeatureCollection') {
    const fs = g.features;
    if (!Array.isArray(fs) || fs.length !== 1) return null;
    g = fs[0];
  }
  return { geometry: isObject(g) && g.type === 'Feature' ? g.geometry : g };
}

/**
 * A drawn or uploaded area: a GeoJSON Polygon or MultiPolygon in WGS 84 lon/lat, bare or as the
 * geometry of a Feature (or the one Feature of a FeatureCollection), checked as a basin polygon is.
 * @throws SnowdbError `invalid-geometry`: `<label>: <reason>`.
 */
export function parseAreaGeometry(doc: unknown, label: string): AreaGeometry {
  try {
    const inner = areaGeometryOf(doc);
    if (inner === null)
      throw new Invalid(
        'a FeatureCollection must hold exactly one Feature here (import a basin set instead)',
      );
    const g = inner.geometry;
    if (!isObject(g) || (g.type !== 'Polygon' && g.type !== 'MultiPolygon'))
      throw new Invalid(
        `expected a Polygon or MultiPolygon (bare or in a Feature), not ${isObject(g) ? JSON.stringify(g.type) : JSON.stringify(g)}`,
      );
    return basinGeometry(g, 'geometry');
  } catch (e) {
    if (e instanceof Invalid) throw new SnowdbError('invalid-geometry', `${label}: ${e.message}`);
    throw e;
  }
}
