import proj4 from 'proj4';
import { type AreaGeometry, containsPoint, type PolygonCoords, polygonsOf } from './geometry.js';
import { type Grid, gridBounds } from './grid.js';

/** How much of a polygon a grid's domain holds. */
export type Containment = 'full' | 'partial' | 'none';

/** A lon/lat → grid CRS point function (identity on geographic grids: NAD83 ≈ WGS84 to ~1 m). */
export function lonLatToGrid(grid: Grid): (lon: number, lat: number) => [number, number] {
  if (grid.crs.geographic) return (lon, lat) => [lon, lat];
  const p = proj4('EPSG:4326', grid.crs.proj4);
  return (lon, lat) => p.forward([lon, lat]) as [number, number];
}

/**
 * Whether a grid's domain holds a lon/lat polygon: `full` when every vertex lies in it, `none`
 * when no vertex does and no corner of the domain lies inside the polygon, else `partial`. The
 * domain is the grid's extent, or `footprint` (polygons in the grid CRS) when given. Vertex
 * tests are exact for the records' dense rings; an edge clipping a domain corner between two
 * vertices with neither inside is not seen.
 */
export function containment(grid: Grid, geometry: AreaGeometry, footprint: AreaGeometry | null): Containment {
  const [x0, y0, x1, y1] = gridBounds(grid);
  const domain: readonly PolygonCoords[] = footprint
    ? polygonsOf(footprint)
    : [
        [
          [
            [x0, y0],
            [x1, y0],
            [x1, y1],
            [x0, y1],
            [x0, y0],
          ],
        ],
      ];
  const toGrid = lonLatToGrid(grid);
  const projected = polygonsOf(geometry).map((poly) =>
    poly.map((ring) => ring.map((p) => toGrid(p[0]!, p[1]!))),
  );
  let inside = 0;
  let total = 0;
  for (const poly of projected) {
    for (const ring of poly) {
      for (const [x, y] of ring) {
        total++;
        if (x >= x0 && x <= x1 && y >= y0 && y <= y1 && (footprint === null || containsPoint(domain, x, y)))
          inside++;
      }
    }
  }
  if (inside === total) return 'full';
  if (inside > 0) return 'partial';
  const corners = domain.flatMap((poly) => poly[0] ?? []);
  return corners.some((c) => containsPoint(projected, c[0]!, c[1]!)) ? 'partial' : 'none';
}
