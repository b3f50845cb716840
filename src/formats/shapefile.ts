/**
 * A zipped ESRI Shapefile: the .shp shapes (shpjs assembles polygon rings into GeoJSON Polygons and
 * MultiPolygons, holes by orientation), the .dbf attributes (code page from .cpg) and the .prj
 * WKT, read from the archive with snowdb's zip reader (sizes and CRC-32 checked). No
 * reprojection here: the caller identifies the .prj.
 */
import { parseDbf, parseShp } from 'shpjs';
import { SnowdbError } from '../errors.js';
import type { VectorLayer } from './vector.js';
import { listZip, readZipMember, type ZipMember } from './zip.js';

const invalid = (label: string, why: string) => new SnowdbError('invalid-pourpoint', `${label}: ${why}`);

/** Most bytes a Shapefile's members may unpack to (its shapes become GeoJSON in memory: ~4× more). */
export const MAX_SHAPEFILE_BYTES = 512 * 2 ** 20;
/** Most a member may inflate over its compressed size: real Shapefiles deflate ~2–10×, zip bombs ~1000×. */
const MAX_RATIO = 200;
const mib = (n: number) => `${Math.round((n / 2 ** 20) * 10) / 10} MiB`;

/**
 * The layer of a zipped Shapefile: its only .shp, or the one named `layer` (file stem).
 * @throws SnowdbError `invalid-pourpoint` for no or several layers, a missing .dbf, unreadable shapes.
 */
export async function readZippedShapefile(path: string, label: string, layer?: string): Promise<VectorLayer> {
  const members = (await listZip(path)).filter((m) => !m.name.includes('__MACOSX'));
  const stem = (m: ZipMember) => m.name.replace(/\.[^.]*$/, '');
  const layers = members.filter((m) => m.name.toLowerCase().endsWith('.shp')).map(stem);
  const names = layers.map((l) => l.split('/').pop()!);
  if (layers.length === 0) throw invalid(label, 'a zip without a .shp file: not a zipped Shapefile');
  const at = layer === undefined ? (layers.length === 1 ? 0 : -1) : names.indexOf(layer);
  if (at < 0)
    throw invalid(
      label,
      layer === undefined
        ? `holds ${layers.length} Shapefiles (${names.join(', ')}): choose one with --layer`
        : `has no Shapefile '${layer}' (it holds ${names.join(', ')})`,
    );
  const base = layers[at]!;
  const part = (ext: string) => members.find((m) => stem(m) === base && m.name.toLowerCase().endsWith(ext));
  const wanted = ['.shp', '.dbf', '.prj', '.cpg'].map((e) => part(e));
  // Checked on the central directory's sizes before a byte is inflated.
  const total = wanted.reduce((n, m) => n + (m?.size ?? 0), 0);
  if (total > MAX_SHAPEFILE_BYTES)
    throw invalid(
      label,
      `${base} unpacks to ${mib(total)}; snowdb reads zipped Shapefiles of at most ${mib(MAX_SHAPEFILE_BYTES)} unpacked (split the set, or import it as a GeoPackage)`,
    );
  for (const m of wanted)
    if (m !== undefined && m.size > MAX_RATIO * m.compressedSize + 2 ** 20)
      throw invalid(
        label,
        `${m.name} inflates ${Math.round(m.size / Math.max(1, m.compressedSize))}× (${mib(m.size)} from ${m.compressedSize} bytes): not a Shapefile snowdb reads (a zip bomb?)`,
      );
  const [shp, dbf, prj, cpg] = await Promise.all(
    wanted.map((m) => (m === undefined ? undefined : readZipMember(path, m))),
  );
  if (dbf === undefined)
    throw invalid(label, `${base}.shp has no .dbf beside it: no attributes to name the basins`);
  let shapes: ReturnType<typeof parseShp>;
  let records: ReturnType<typeof parseDbf>;
  try {
    shapes = parseShp(shp!);
    records = parseDbf(dbf, cpg?.toString('latin1'));
  } catch (e) {
    throw invalid(label, `${base}: not a readable Shapefile (${(e as Error).message})`);
  }
  if (records.length !== shapes.length)
    throw invalid(label, `${base}: ${shapes.length} shapes but ${records.length} attribute records`);
  const features = shapes.map((geometry, i) => ({ properties: records[i]!, geometry }));
  const fields = Object.keys(records[0] ?? {});
  return { name: names[at]!, crs: prj ? { wkt: prj.toString('utf8') } : null, fields, features };
}
