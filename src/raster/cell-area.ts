import { type Ellipsoid, eccentricitySquared } from './crs.js';
import type { Grid } from './grid.js';

const RAD = Math.PI / 180;

/**
 * The authalic function q(φ) of an ellipsoid: the area of the zone from the equator to latitude φ
 * over Δλ radians of longitude is a²(1 − e²)/2 · Δλ · q(φ). On a sphere q = 2 sin φ.
 */
export function authalicQ(latDeg: number, e2: number): number {
  const s = Math.sin(latDeg * RAD);
  if (e2 === 0) return 2 * s;
  const e = Math.sqrt(e2);
  return s / (1 - e2 * s * s) + Math.atanh(e * s) / e;
}

/** Area of the lon/lat quadrangle [lat0, lat1] × Δλ degrees on the ellipsoid, m² (closed form). */
export function quadrangleArea(ellipsoid: Ellipsoid, lat0: number, lat1: number, dLonDeg: number): number {
  const e2 = eccentricitySquared(ellipsoid);
  const k = (ellipsoid.a * ellipsoid.a * (1 - e2)) / 2;
  return Math.abs(k * dLonDeg * RAD * (authalicQ(lat1, e2) - authalicQ(lat0, e2)));
}

/**
 * Cell area of every row of a grid, m²: per row on the ellipsoid for geographic grids, one constant
 * (cell width × height × unit²) for projected ones.
 * @example rowAreas(snodasGrid)[row of 40°N] // ≈ 658,410.14 m² for a 30″ cell
 */
export function rowAreas(g: Grid): Float64Array {
  const out = new Float64Array(g.height);
  if (!g.crs.geographic) return out.fill(g.cellWidth * g.cellHeight * g.crs.unitMetres ** 2);
  for (let r = 0; r < g.height; r++) {
    const top = g.originY - r * g.cellHeight;
    out[r] = quadrangleArea(g.crs.ellipsoid, top - g.cellHeight, top, g.cellWidth);
  }
  return out;
}
