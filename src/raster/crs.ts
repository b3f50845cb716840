/**
 * Coordinate reference systems the product needs, each with its proj4 definition, its ellipsoid
 * and the GeoKeys that describe it in a GeoTIFF. No EPSG database: only these are known.
 */

/** An ellipsoid: semi-major axis `a` in metres and inverse flattening (0 = sphere). */
export interface Ellipsoid {
  readonly a: number;
  readonly invf: number;
}

export const WGS84: Ellipsoid = { a: 6378137, invf: 298.257223563 };
export const GRS80: Ellipsoid = { a: 6378137, invf: 298.257222101 };
/** The MODIS sinusoid's sphere (SPIRES/INSTARR). */
export const MODIS_SPHERE: Ellipsoid = { a: 6371007.181, invf: 0 };

export interface Crs {
  /** Stable identifier: `EPSG:<code>` or `MODIS:SINUSOIDAL`. */
  readonly id: string;
  /** EPSG code, or undefined for the user-defined sinusoid. */
  readonly epsg: number | undefined;
  /** True for lon/lat degrees. */
  readonly geographic: boolean;
  readonly ellipsoid: Ellipsoid;
  /** proj4 definition string. */
  readonly proj4: string;
  /** Metres per CRS linear unit (1 for metres; unused for geographic). */
  readonly unitMetres: number;
  /** Projection method of a projected CRS, for GeoKeys. */
  readonly method?: 'utm' | 'albers' | 'sinusoidal';
}

const geographic = (epsg: number, ellipsoid: Ellipsoid, datum: string): Crs => ({
  id: `EPSG:${epsg}`,
  epsg,
  geographic: true,
  ellipsoid,
  proj4: `+proj=longlat +${datum} +no_defs`,
  unitMetres: 1,
});

/** MODIS sinusoidal on a sphere of radius 6371007.181 m (no EPSG code). */
export const MODIS_SINUSOIDAL: Crs = {
  id: 'MODIS:SINUSOIDAL',
  epsg: undefined,
  geographic: false,
  ellipsoid: MODIS_SPHERE,
  proj4: '+proj=sinu +lon_0=0 +x_0=0 +y_0=0 +R=6371007.181 +units=m +no_defs',
  unitMetres: 1,
  method: 'sinusoidal',
};

/**
 * The CRS for an EPSG code, or null when snowdb does not know it.
 * Known: 4326, 4269, 5070, 326xx/327xx (WGS 84 / UTM), 269xx (NAD83 / UTM 1–23 N).
 * @example crsFromEpsg(32612)?.proj4 // '+proj=utm +zone=12 +datum=WGS84 +units=m +no_defs'
 */
export function crsFromEpsg(code: number): Crs | null {
  if (code === 4326) return geographic(4326, WGS84, 'datum=WGS84');
  if (code === 4269) return geographic(4269, GRS80, 'datum=NAD83');
  if (code === 5070) {
    return {
      id: 'EPSG:5070',
      epsg: 5070,
      geographic: false,
      ellipsoid: GRS80,
      proj4:
        '+proj=aea +lat_0=23 +lon_0=-96 +lat_1=29.5 +lat_2=45.5 +x_0=0 +y_0=0 +datum=NAD83 +units=m +no_defs',
      unitMetres: 1,
      method: 'albers',
    };
  }
  const utm = (zone: number, south: boolean, datum: string, ellipsoid: Ellipsoid): Crs => ({
    id: `EPSG:${code}`,
    epsg: code,
    geographic: false,
    ellipsoid,
    proj4: `+proj=utm +zone=${zone}${south ? ' +south' : ''} +${datum} +units=m +no_defs`,
    unitMetres: 1,
    method: 'utm',
  });
  if (code >= 32601 && code <= 32660) return utm(code - 32600, false, 'datum=WGS84', WGS84);
  if (code >= 32701 && code <= 32760) return utm(code - 32700, true, 'datum=WGS84', WGS84);
  if (code >= 26901 && code <= 26923) return utm(code - 26900, false, 'datum=NAD83', GRS80);
  return null;
}

/** Look up a CRS by id (`EPSG:4326`, `MODIS:SINUSOIDAL`), or null. */
export function crsFromId(id: string): Crs | null {
  if (id === MODIS_SINUSOIDAL.id) return MODIS_SINUSOIDAL;
  const m = /^EPSG:(\d+)$/.exec(id);
  return m?.[1] === undefined ? null : crsFromEpsg(Number(m[1]));
}

/** First eccentricity squared of an ellipsoid. */
export function eccentricitySquared(e: Ellipsoid): number {
  if (e.invf === 0) return 0;
  const f = 1 / e.invf;
  return f * (2 - f);
}
