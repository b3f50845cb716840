/**
 * A polygon that is no indexed basin (a drawn area, a group's union), made ready for planning:
 * its exact coverage on a dataset's grid stands in for an AOI raster, beside a synthetic index
 * entry with its area, hash, bounds and a point inside it.
 */
import { geometryHash, type IndexEntry } from '../pourpoints/index-file.js';
import { coverageWeights, polygonCoverage } from '../raster/coverage.js';
import { geodesicArea } from '../raster/geodesic.js';
import { type AreaGeometry, labelPoint, polygonsBounds, polygonsOf } from '../raster/geometry.js';
import type { Grid, Window } from '../raster/grid.js';

/** A polygon drawn for one query: its exact coverage weights computed on the fly (no AOI raster). */
export interface DrawnArea {
  /** The synthetic index entry's id (`drawn:<hash>`). */
  readonly id: string;
  /** Covered fraction × cell area, m², row-major over `window` (the polygon's bounds on the grid). */
  readonly weights: Float64Array;
  readonly window: Window;
}

/**
 * The entry and coverage of a polygon on dataset `dataset`'s `grid` (`idOf`: its id from its WKB
 * hash; `area`: its geodesic area when the caller has it, m²), or null when it misses the grid.
 * Plain data in and out: a worker thread runs it for drawn polygons.
 */
export function areaOnGrid(
  grid: Grid,
  dataset: string,
  geometry: AreaGeometry,
  name: string,
  idOf: (hash: string) => string,
  area: number = geodesicArea(geometry),
): { entry: IndexEntry; drawn: DrawnArea } | null {
  const cov = polygonCoverage(grid, geometry);
  if (cov === null) return null;
  const polygons = polygonsOf(geometry);
  const hash = geometryHash(geometry);
  const id = idOf(hash);
  const entry: IndexEntry = {
    triplet: id,
    name,
    point: labelPoint(polygons),
    outlet: false,
    declaredAreaM2: null,
    outletOutsideM: null,
    areaMeters: area,
    geometryHash: hash,
    basinBbox: polygonsBounds(polygons),
    coverage: { [dataset]: 'partial' },
  };
  return { entry, drawn: { id, weights: coverageWeights(grid, cov), window: cov.window } };
}
