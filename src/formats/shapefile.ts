/**
 * A zipped ESRI Shapefile: the .shp shapes (shpjs assembles polygon rings into GeoJSON Polygons and
 * MultiPolygons, holes by orientation), the .dbf attributes (code page from .cpg) and the .prj
 * WKT, read from the archive with snowdb's zip reader (sizes and CRC-32 checked). No
 * reprojection here: the caller identifies the .prj.
 */
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseDbf, parseShp } from 'shpjs';
import { SnowdbError } from '../errors.js';
import type { VectorLayer } from './vector.js';
import { extractZipMember, listZip, type ZipMember } from './zip.js';

const invalid = (label: string, why: string) => new SnowdbError('invalid-pourpoint', `${label}: ${why}`);

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
  const dir = await mkdtemp(join(tmpdir(), 'snowdb-shp-'));
  try {
    const bytes = async (m: ZipMember | undefined) => {
      if (m === undefined) return undefined;
      const target = join(dir, m.name.toLowerCase().slice(-4));
      await extractZipMember(path, m, target);
      return readFile(target);
    };
    const [shp, dbf, prj, cpg] = await Promise.all(
      ['.shp', '.dbf', '.prj', '.cpg'].map((e) => bytes(part(e))),
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
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
