import { type Crs, crsFromEpsg, MODIS_SINUSOIDAL } from '../crs.js';
import { GeoKey, USER_DEFINED } from './tags.js';

/** GeoKey values as read: SHORT keys are numbers, DOUBLE keys numbers, ASCII keys strings. */
export type GeoKeys = ReadonlyMap<number, number | string>;

/** The three GeoTIFF tag payloads for a CRS. */
export interface GeoKeyTags {
  readonly directory: Uint16Array;
  readonly doubles: Float64Array;
  readonly ascii: string;
}

type Entry = { key: number; short?: number; double?: number; ascii?: string };

/** Encode a CRS as GeoKeys: EPSG codes where there are any, a user-defined sinusoid otherwise. */
export function geoKeysFor(crs: Crs): GeoKeyTags {
  const e: Entry[] = [{ key: GeoKey.GTRasterType, short: 1 }];
  if (crs.geographic && crs.epsg !== undefined) {
    e.push({ key: GeoKey.GTModelType, short: 2 }, { key: GeoKey.GeographicType, short: crs.epsg });
    e.push({ key: GeoKey.GeogAngularUnits, short: 9102 });
  } else if (crs.epsg !== undefined) {
    e.push({ key: GeoKey.GTModelType, short: 1 }, { key: GeoKey.ProjectedCSType, short: crs.epsg });
    e.push({ key: GeoKey.ProjLinearUnits, short: 9001 });
  } else if (crs.method === 'sinusoidal') {
    const r = crs.ellipsoid.a;
    e.push(
      { key: GeoKey.GTModelType, short: 1 },
      { key: GeoKey.GTCitation, ascii: 'MODIS Sinusoidal' },
      { key: GeoKey.GeographicType, short: USER_DEFINED },
      { key: GeoKey.GeogCitation, ascii: 'Unknown datum based upon the custom spheroid' },
      { key: GeoKey.GeogGeodeticDatum, short: USER_DEFINED },
      { key: GeoKey.GeogPrimeMeridian, short: 8901 },
      { key: GeoKey.GeogAngularUnits, short: 9102 },
      { key: GeoKey.GeogEllipsoid, short: USER_DEFINED },
      { key: GeoKey.GeogSemiMajorAxis, double: r },
      { key: GeoKey.GeogSemiMinorAxis, double: r },
      { key: GeoKey.ProjectedCSType, short: USER_DEFINED },
      { key: GeoKey.Projection, short: USER_DEFINED },
      { key: GeoKey.ProjCoordTrans, short: 24 },
      { key: GeoKey.ProjLinearUnits, short: 9001 },
      { key: GeoKey.ProjFalseEasting, double: 0 },
      { key: GeoKey.ProjFalseNorthing, double: 0 },
      { key: GeoKey.ProjCenterLong, double: 0 },
    );
  } else {
    throw new Error(`no GeoKey encoding for ${crs.id}`);
  }
  e.sort((a, b) => a.key - b.key);
  const dir: number[] = [1, 1, 0, e.length];
  const doubles: number[] = [];
  let ascii = '';
  for (const k of e) {
    if (k.short !== undefined) dir.push(k.key, 0, 1, k.short);
    else if (k.double !== undefined) dir.push(k.key, 34736, 1, doubles.push(k.double) - 1);
    else if (k.ascii !== undefined) {
      dir.push(k.key, 34737, k.ascii.length + 1, ascii.length);
      ascii += `${k.ascii}|`;
    }
  }
  return { directory: Uint16Array.from(dir), doubles: Float64Array.from(doubles), ascii };
}

/** Decode the GeoKey directory into a key → value map. */
export function parseGeoKeys(dir: ArrayLike<number>, doubles: ArrayLike<number>, ascii: string): GeoKeys {
  const out = new Map<number, number | string>();
  const n = dir[3] ?? 0;
  for (let i = 0; i < n; i++) {
    const [key, loc, count, value] = [dir[4 + i * 4]!, dir[5 + i * 4]!, dir[6 + i * 4]!, dir[7 + i * 4]!];
    if (loc === 0) out.set(key, value);
    else if (loc === 34736) out.set(key, doubles[value] ?? Number.NaN);
    else if (loc === 34737) out.set(key, ascii.slice(value, value + count - 1));
  }
  return out;
}

/** Ellipsoid of user-defined geographic keys: 'grs80', 'wgs84' or null. */
function ellipsoidOf(keys: GeoKeys): 'grs80' | 'wgs84' | null {
  const code = keys.get(GeoKey.GeogEllipsoid);
  if (code === 7019) return 'grs80';
  if (code === 7030) return 'wgs84';
  const a = keys.get(GeoKey.GeogSemiMajorAxis);
  const invf = keys.get(GeoKey.GeogInvFlattening);
  if (a !== 6378137 || typeof invf !== 'number') return null;
  if (Math.abs(invf - 298.257222101) < 1e-6) return 'grs80';
  if (Math.abs(invf - 298.257223563) < 1e-6) return 'wgs84';
  return null;
}

/**
 * A user-defined projected CRS whose Projection key is a UTM zone (EPSG 16001–16060 north,
 * 16101–16160 south) on GRS80 (→ NAD83 / UTM) or WGS 84 (→ WGS 84 / UTM); else null.
 */
function utmOfProjection(keys: GeoKeys): Crs | null {
  const proj = keys.get(GeoKey.Projection);
  if (typeof proj !== 'number' || proj < 16001 || proj > 16160) return null;
  const zone = proj % 100;
  const south = proj > 16100;
  if (zone < 1 || zone > 60) return null;
  const ell = ellipsoidOf(keys);
  if (ell === 'grs80' && !south && zone <= 23) return crsFromEpsg(26900 + zone);
  if (ell === 'wgs84') return crsFromEpsg((south ? 32700 : 32600) + zone);
  return null;
}

/** The CRS GeoKeys describe, or null when snowdb does not know it. */
export function crsFromGeoKeys(keys: GeoKeys): Crs | null {
  const model = keys.get(GeoKey.GTModelType);
  const pcs = keys.get(GeoKey.ProjectedCSType);
  if (model === 1 && typeof pcs === 'number' && pcs !== USER_DEFINED) return crsFromEpsg(pcs);
  const gcs = keys.get(GeoKey.GeographicType);
  if (model === 2 && typeof gcs === 'number' && gcs !== USER_DEFINED) return crsFromEpsg(gcs);
  const utm = utmOfProjection(keys);
  if (model === 1 && utm !== null) return utm;
  if (model === 1 && keys.get(GeoKey.ProjCoordTrans) === 24) {
    const a = keys.get(GeoKey.GeogSemiMajorAxis);
    const b = keys.get(GeoKey.GeogSemiMinorAxis) ?? a;
    const lon0 = keys.get(GeoKey.ProjCenterLong) ?? 0;
    const r = MODIS_SINUSOIDAL.ellipsoid.a;
    if (typeof a === 'number' && Math.abs(a - r) < 1e-3 && b === a && lon0 === 0) return MODIS_SINUSOIDAL;
  }
  return null;
}
