/**
 * Basin sets: a GeoJSON Feature or FeatureCollection of Polygon/MultiPolygon features, a zipped
 * Shapefile or a GeoPackage layer, turned into basin records (`Feature`s holding the polygon in
 * WGS 84 lon/lat, id `<set>:<id>`, no outlet) and listed as a source the import reads like any
 * folder of records. Every feature is checked before the listing exists: one bad feature (no
 * id, a duplicate id, an empty or non-polygon geometry, a self-crossing ring), an unknown field
 * or an unknown CRS is an error naming it, and nothing is imported.
 */
import { readFile } from 'node:fs/promises';
import { basename } from 'node:path';
import { recordFileName } from '../db/layout.js';
import { SnowdbError } from '../errors.js';
import { readGeoPackage } from '../formats/geopackage.js';
import { readZippedShapefile } from '../formats/shapefile.js';
import { type DeclaredCrs, fieldsOf, type VectorLayer } from '../formats/vector.js';
import { parseRecord } from './record.js';
import { epsgOfName, identifyCrs, toLonLat } from './set-crs.js';
import type { SourceFile, SourceListing } from './sources.js';
import { isTriplet, MEMBER_ID_PATTERN, SET_NAME_PATTERN } from './triplet.js';

export interface SetOptions {
  /** The set's name: ids are `<set>:<id>` (default `user`; none for ids that are station triplets). */
  readonly set?: string | undefined;
  /** The attribute holding each basin's id (default: the feature's own id). */
  readonly idField?: string | undefined;
  /** The attribute holding each basin's name (default: `name`, `NAME` or `Name`, else the id). */
  readonly nameField?: string | undefined;
  /** A layer of a GeoPackage or of a zip of several Shapefiles. */
  readonly layer?: string | undefined;
}

/** Set names snowdb's own ids use: groups, drawn polygons, intervening areas. */
const RESERVED_SETS = ['group', 'drawn', 'minus'];

/** The set when none is named. */
export const DEFAULT_SET = 'user';

const invalid = (message: string) => new SnowdbError('invalid-pourpoint', message);

/** What a file is, by its first bytes: a zip, an SQLite database (GeoPackage), or JSON text. */
export function sniff(bytes: Uint8Array): 'zip' | 'gpkg' | 'json' {
  if (bytes[0] === 0x50 && bytes[1] === 0x4b && bytes[2] === 0x03 && bytes[3] === 0x04) return 'zip';
  if (Buffer.from(bytes.subarray(0, 16)).toString('latin1') === 'SQLite format 3\0') return 'gpkg';
  return 'json';
}

/**
 * Whether a single source file is a basin set rather than a BAGIS record: a zip, a GeoPackage,
 * a FeatureCollection, or a Feature holding a polygon.
 */
export function isBasinSet(bytes: Uint8Array): boolean {
  const kind = sniff(bytes);
  if (kind !== 'json') return true;
  try {
    const doc = JSON.parse(Buffer.from(bytes).toString('utf8')) as {
      type?: unknown;
      geometry?: { type?: unknown };
    };
    return (
      doc.type === 'FeatureCollection' ||
      (doc.type === 'Feature' && (doc.geometry?.type === 'Polygon' || doc.geometry?.type === 'MultiPolygon'))
    );
  } catch {
    return false; // the record parser names the problem
  }
}

/** The features of a GeoJSON FeatureCollection or Feature, and its declared `crs`. */
function geoJsonLayer(bytes: Uint8Array, label: string): VectorLayer {
  let doc: { type?: unknown; features?: unknown; crs?: { properties?: { name?: unknown } } };
  try {
    doc = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(bytes));
  } catch (e) {
    throw invalid(`${label}: not valid UTF-8 JSON (${(e as Error).message})`);
  }
  const features = doc.type === 'FeatureCollection' ? doc.features : doc.type === 'Feature' ? [doc] : null;
  if (!Array.isArray(features))
    throw invalid(
      `${label}: type is ${JSON.stringify(doc.type)}; a basin set is a FeatureCollection or a Feature`,
    );
  const name = doc.crs?.properties?.name;
  let crs: DeclaredCrs = null;
  if (name !== undefined) {
    const code = typeof name === 'string' ? epsgOfName(name) : null;
    if (code === null)
      throw invalid(`${label}: its crs ${JSON.stringify(name)} is not an EPSG or CRS84 name`);
    crs = { epsg: code };
  }
  const list = features.map((f, i) => {
    if (typeof f !== 'object' || f === null || (f as { type?: unknown }).type !== 'Feature')
      throw invalid(`${label}: features[${i}] is not a Feature`);
    const { id, properties, geometry } = f as {
      id?: string | number;
      properties?: unknown;
      geometry?: unknown;
    };
    return {
      ...(id !== undefined && { id }),
      properties:
        typeof properties === 'object' && properties !== null ? (properties as Record<string, unknown>) : {},
      geometry: (geometry ?? null) as VectorLayer['features'][number]['geometry'],
    };
  });
  return { name: basename(label).replace(/\.[^.]*$/, ''), crs, fields: fieldsOf(list), features: list };
}

/** The layer of a set file: GeoJSON, a zipped Shapefile or a GeoPackage. */
async function readLayer(
  path: string,
  label: string,
  layer: string | undefined,
  bytes: Uint8Array,
): Promise<VectorLayer> {
  const kind = sniff(bytes);
  if (kind === 'zip') return readZippedShapefile(path, label, layer);
  if (kind === 'gpkg') return readGeoPackage(bytes, label, layer);
  if (layer !== undefined)
    throw new SnowdbError('usage-error', '--layer goes with a GeoPackage or a zip of Shapefiles');
  return geoJsonLayer(bytes, label);
}

/** An attribute value as id text: a string as is, an integer in decimal; else null. */
function idText(v: unknown): string | null {
  if (typeof v === 'string' && v.trim() !== '') return v.trim();
  if (typeof v === 'number' && Number.isSafeInteger(v)) return String(v);
  return null;
}

/**
 * Read a basin-set file (a local path, with its bytes when already read; `label` names it in
 * messages) into record files, every feature checked.
 * @throws SnowdbError `invalid-pourpoint` naming the file and the feature; `usage-error` for a bad set name or field.
 */
export async function readBasinSet(
  path: string,
  label: string,
  opts: SetOptions,
  bytes?: Uint8Array,
): Promise<SourceListing> {
  if (opts.set !== undefined && !SET_NAME_PATTERN.test(opts.set))
    throw new SnowdbError(
      'usage-error',
      `--set '${opts.set}': a set name is lower-case letters, digits and '-', starting with a letter (at most 32), e.g. huc12`,
    );
  if (opts.set !== undefined && RESERVED_SETS.includes(opts.set))
    throw new SnowdbError(
      'usage-error',
      `--set '${opts.set}' is reserved (${RESERVED_SETS.join(', ')} name groups, drawn and derived areas)`,
    );
  const layer = await readLayer(path, label, opts.layer, bytes ?? (await readFile(path)));
  for (const [flag, field] of [
    ['--id-field', opts.idField],
    ['--name-field', opts.nameField],
  ] as const)
    if (field !== undefined && !layer.fields.includes(field))
      throw new SnowdbError(
        'usage-error',
        `${flag} '${field}': ${label} has no such field (it has ${layer.fields.join(', ') || 'none'})`,
      );
  const crs = identifyCrs(layer.crs);
  if (typeof crs === 'string') throw invalid(`${label}: ${crs}`);
  if (layer.features.length === 0)
    throw invalid(
      `${label}: no features (a basin set is a FeatureCollection of Polygon or MultiPolygon features)`,
    );
  const stem = basename(label)
    .replace(/\.[^.]*$/, '')
    .replace(/[^A-Za-z0-9-]+/g, '-');
  /** Feature i's id as the source gives it, and as stored (`<set>:<id>`, or a station triplet). */
  const idOf = (f: (typeof layer.features)[number], i: number): { raw: string; id: string } => {
    const where = `${label} feature ${i + 1}`;
    const raw =
      opts.idField !== undefined
        ? idText(f.properties[opts.idField])
        : (idText(f.id) ?? (layer.features.length === 1 ? stem : null));
    if (raw === null)
      throw invalid(
        opts.idField !== undefined
          ? `${where}: its ${opts.idField} (${JSON.stringify(f.properties[opts.idField])}) is not an id`
          : `${where} has no id: name the attribute that identifies each basin with --id-field (fields: ${layer.fields.join(', ')})`,
      );
    // Station triplets stay as they are without a set; any other id joins its set.
    const id = opts.set === undefined && isTriplet(raw) ? raw : `${opts.set ?? DEFAULT_SET}:${raw}`;
    if (!isTriplet(id) && !MEMBER_ID_PATTERN.test(raw))
      throw invalid(
        `${where}: id '${raw}' holds characters other than letters, digits and '-' (or is longer than 64)`,
      );
    return { raw, id };
  };
  const ids = layer.features.map(idOf);
  duplicateIds(
    label,
    ids.map((x) => x.id),
  );
  const files: SourceFile[] = layer.features.map((f, i) => {
    const where = `${label} feature ${i + 1}`;
    const { raw, id } = ids[i]!;
    const g = f.geometry;
    if (g === null || g.coordinates === null || (Array.isArray(g.coordinates) && g.coordinates.length === 0))
      throw invalid(`${where} (${id}): empty geometry`);
    if (g.type !== 'Polygon' && g.type !== 'MultiPolygon')
      throw invalid(`${where} (${id}): a ${g.type}, not a Polygon or MultiPolygon`);
    const named =
      opts.nameField !== undefined
        ? f.properties[opts.nameField]
        : ['name', 'NAME', 'Name']
            .map((k) => f.properties[k])
            .find((v) => typeof v === 'string' && v.trim() !== '');
    const name =
      typeof named === 'string' && named.trim() !== ''
        ? named.trim()
        : typeof named === 'number'
          ? String(named)
          : raw;
    const record = {
      type: 'Feature',
      id,
      properties: {
        ...f.properties,
        name,
        set: id.includes(':') && !isTriplet(id) ? id.slice(0, id.indexOf(':')) : null,
        source_id: raw,
      },
      geometry: { type: g.type, coordinates: toLonLat(g.coordinates, crs) },
    };
    const bytes = new TextEncoder().encode(`${JSON.stringify(record)}\n`);
    parseRecord(bytes, `${where} (${id})`); // every check of a stored record, now
    return { name: recordFileName(id), label: `${where} (${id})`, read: async () => bytes };
  });
  return { description: `${label} (${layer.name}, ${files.length} basins)`, files };
}

/** Every id given to more than one feature, named with its features (the first few), in one error. */
function duplicateIds(label: string, ids: readonly string[]): void {
  const at = new Map<string, number[]>();
  ids.forEach((id, i) => {
    const list = at.get(id);
    if (list) list.push(i + 1);
    else at.set(id, [i + 1]);
  });
  const twice = [...at].filter(([, fs]) => fs.length > 1);
  if (twice.length === 0) return;
  const features = twice.reduce((n, [, fs]) => n + fs.length, 0);
  const named = twice
    .slice(0, 5)
    .map(([id, fs]) => `${id} (features ${fs.slice(0, 4).join(', ')}${fs.length > 4 ? ', …' : ''})`)
    .join('; ');
  throw invalid(
    `${label}: ${twice.length} id(s) given to more than one feature, ${features} features in all: ${named}${twice.length > 5 ? '; …' : ''}; each basin of a set needs its own id (name the identifying field with --id-field)`,
  );
}
