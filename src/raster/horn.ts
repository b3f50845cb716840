import { eccentricitySquared } from './crs.js';
import type { Grid } from './grid.js';

const RAD = Math.PI / 180;

/** Ground size of a pixel of `row` in metres: [east-west, north-south] (ellipsoidal on geographic grids). */
export function pixelSizeMetres(g: Grid, row: number): [dx: number, dy: number] {
  if (!g.crs.geographic) return [g.cellWidth * g.crs.unitMetres, g.cellHeight * g.crs.unitMetres];
  const lat = (g.originY - (row + 0.5) * g.cellHeight) * RAD;
  const e2 = eccentricitySquared(g.crs.ellipsoid);
  const a = g.crs.ellipsoid.a;
  const w = 1 - e2 * Math.sin(lat) ** 2;
  const n = a / Math.sqrt(w); // prime-vertical radius, m
  const m = (a * (1 - e2)) / (w * Math.sqrt(w)); // meridional radius, m
  return [g.cellWidth * RAD * n * Math.cos(lat), g.cellHeight * RAD * m];
}

/** Aspect class codes written by `hornAspect`: 0 N, 1 E, 2 S, 3 W, 4 flat, 255 = no full 3×3 window. */
export const NO_ASPECT = 255;

/**
 * Horn's 3×3 slope and aspect for the rows of a block. `z` holds (rows + 2) × (width + 2)
 * elevations in metres (a one-pixel halo all round; NaN = no data); `dx`, `dy` give each output
 * row's pixel size in metres. Writes, per output pixel: the aspect class (flat when the slope is
 * below `flatDeg`) and, for sloped pixels, the aspect azimuth in radians clockwise from north
 * (NaN otherwise). Aspect is the downslope direction, as `gdaldem aspect`.
 */
export function hornAspect(
  z: Float64Array,
  width: number,
  rows: number,
  dx: Float64Array,
  dy: Float64Array,
  flatDeg: number,
  cls: Uint8Array,
  azimuth: Float64Array,
): void {
  const stride = width + 2;
  const flatTan = Math.tan(flatDeg * RAD);
  for (let r = 0; r < rows; r++) {
    const inv8x = 1 / (8 * dx[r]!);
    const inv8y = 1 / (8 * dy[r]!);
    const top = r * stride;
    const mid = top + stride;
    const bot = mid + stride;
    for (let c = 0; c < width; c++) {
      const a = z[top + c]!;
      const b = z[top + c + 1]!;
      const cc = z[top + c + 2]!;
      const d = z[mid + c]!;
      const e = z[mid + c + 1]!;
      const f = z[mid + c + 2]!;
      const g = z[bot + c]!;
      const h = z[bot + c + 1]!;
      const i = z[bot + c + 2]!;
      const o = r * width + c;
      // NaN anywhere in the window makes the sum NaN.
      if (Number.isNaN(a + b + cc + d + e + f + g + h + i)) {
        cls[o] = NO_ASPECT;
        azimuth[o] = Number.NaN;
        continue;
      }
      const gx = (cc + 2 * f + i - (a + 2 * d + g)) * inv8x; // dz/d(east)
      const gy = (g + 2 * h + i - (a + 2 * b + cc)) * inv8y; // dz/d(south)
      if (gx * gx + gy * gy < flatTan * flatTan) {
        cls[o] = 4;
        azimuth[o] = Number.NaN;
        continue;
      }
      let az = Math.atan2(-gx, gy); // downslope: east component −gx, north component +gy
      if (az < 0) az += 2 * Math.PI;
      const deg = az / RAD;
      cls[o] = deg >= 315 || deg < 45 ? 0 : deg < 135 ? 1 : deg < 225 ? 2 : 3;
      azimuth[o] = az;
    }
  }
}
