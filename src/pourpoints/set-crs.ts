/**
 * The CRS a basin-set file declares, identified among those snowdb knows (raster/crs.ts: EPSG
 * 4326, 4269, 5070 and UTM zones on WGS 84 or NAD83), and its geometries reprojected to WGS 84
 * lon/lat with proj4. A .prj's WKT is identified by its EPSG authority where it names one, else
 * by the names ESRI writes (GCS_WGS_1984, GCS_North_American_1983, NAD_1983_UTM_Zone_12N,
 * WGS_1984_UTM_Zone_12N, an Albers on NAD83 with CONUS parameters). Anything else is refused.
 */
import proj4 from 'proj4';
import type { DeclaredCrs } from '../formats/vector.js';
import { type Crs, crsFromEpsg } from '../raster/crs.js';

/** EPSG code of a GeoJSON `crs` name (`urn:ogc:def:crs:EPSG::5070`, `EPSG:4269`, CRS84), or null. */
export function epsgOfName(name: string): number | null {
  if (/CRS84$/i.test(name)) return 4326;
  const m = /EPSG:{1,2}(\d+)$/i.exec(name);
  return m ? Number(m[1]) : null;
}

/** The last AUTHORITY["EPSG","n"] of WKT 1 (the whole CRS's), or ID["EPSG",n] of WKT 2. */
function authorityOf(wkt: string): number | null {
  const all = [...wkt.matchAll(/(?:AUTHORITY|ID)\[\s*"EPSG"\s*,\s*"?(\d+)"?\s*\]/gi)];
  return all.length > 0 ? Number(all.at(-1)![1]) : null;
}

const param = (wkt: string, name: string): number | null => {
  const m = new RegExp(`PARAMETER\\[\\s*"${name}"\\s*,\\s*([-0-9.eE+]+)`, 'i').exec(wkt);
  return m ? Number(m[1]) : null;
};

/** EPSG code of ESRI-style WKT by its names and parameters, or null. */
function esriCode(wkt: string): number | null {
  const projcs = /^\s*PROJCS\[\s*"([^"]+)"/i.exec(wkt)?.[1];
  const nad83 = /North_American_1983|NAD_?1983|NAD83/i.test(wkt);
  const wgs84 = /WGS_?1984|WGS 84/i.test(wkt);
  if (projcs === undefined) {
    if (!/^\s*GEOGCS\[/i.test(wkt)) return null;
    return nad83 ? 4269 : wgs84 ? 4326 : null;
  }
  const utm = /UTM[_ ]Zone[_ ](\d{1,2})([NS])?/i.exec(projcs);
  if (utm) {
    const zone = Number(utm[1]);
    const south = utm[2]?.toUpperCase() === 'S';
    if (nad83 && !south) return 26900 + zone;
    if (wgs84) return (south ? 32700 : 32600) + zone;
    return null;
  }
  const albers = /Albers/i.test(wkt);
  const conus =
    param(wkt, 'Standard_Parallel_1') === 29.5 &&
    param(wkt, 'Standard_Parallel_2') === 45.5 &&
    param(wkt, 'Central_Meridian') === -96 &&
    param(wkt, 'Latitude_Of_Origin') === 23 &&
    (param(wkt, 'False_Easting') ?? 0) === 0 &&
    (param(wkt, 'False_Northing') ?? 0) === 0;
  return albers && nad83 && conus ? 5070 : null;
}

/**
 * The CRS a layer declares, or why it cannot be used: none declared is WGS 84 lon/lat (GeoJSON).
 * @returns the CRS, or a message naming what was declared.
 */
export function identifyCrs(declared: DeclaredCrs): Crs | string {
  if (declared === null) return crsFromEpsg(4326)!;
  const code = 'epsg' in declared ? declared.epsg : (authorityOf(declared.wkt) ?? esriCode(declared.wkt));
  const crs = code === null ? null : crsFromEpsg(code);
  if (crs !== null) return crs;
  const what =
    'epsg' in declared
      ? `EPSG:${declared.epsg}`
      : `${declared.wkt.slice(0, 80)}${declared.wkt.length > 80 ? '…' : ''}`;
  return `its CRS (${what}) is not one snowdb knows (EPSG 4326, 4269, 5070, UTM zones on WGS 84 or NAD83); reproject it first, e.g. ogr2ogr -t_srs EPSG:4326 out.geojson in.shp`;
}

type Coords = unknown;

/** Geometry coordinates reprojected from `crs` to WGS 84 lon/lat (lon/lat ones are kept as they are). */
export function toLonLat(coords: Coords, crs: Crs): Coords {
  if (crs.geographic) return coords;
  const t = proj4(crs.proj4, 'EPSG:4326');
  const walk = (c: unknown): unknown =>
    Array.isArray(c) && typeof c[0] === 'number'
      ? t.forward([c[0] as number, c[1] as number])
      : Array.isArray(c)
        ? c.map(walk)
        : c;
  return walk(coords);
}
