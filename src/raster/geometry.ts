/** Lon/lat polygon geometries as in GeoJSON (RFC 7946): rings of [x, y] positions, first ring the shell. */
export type Position = readonly number[];
export type Ring = readonly Position[];
export type PolygonCoords = readonly Ring[];

export type AreaGeometry =
  | { readonly type: 'Polygon'; readonly coordinates: PolygonCoords }
  | { readonly type: 'MultiPolygon'; readonly coordinates: readonly PolygonCoords[] };

/** The polygons of a Polygon or MultiPolygon. */
export function polygonsOf(g: AreaGeometry): readonly PolygonCoords[] {
  return g.type === 'Polygon' ? [g.coordinates] : g.coordinates;
}

/** [minX, minY, maxX, maxY] over the shells of some polygons (holes lie inside their shells). */
export function polygonsBounds(polygons: readonly PolygonCoords[]): [number, number, number, number] {
  let [x0, y0, x1, y1] = [Infinity, Infinity, -Infinity, -Infinity];
  for (const poly of polygons) {
    for (const p of poly[0] ?? []) {
      const x = p[0]!;
      const y = p[1]!;
      if (x < x0) x0 = x;
      if (x > x1) x1 = x;
      if (y < y0) y0 = y;
      if (y > y1) y1 = y;
    }
  }
  return [x0, y0, x1, y1];
}

/** Even-odd point-in-polygon over every ring of every part (planar, in the coordinates given). */
export function containsPoint(polygons: readonly PolygonCoords[], x: number, y: number): boolean {
  let inside = false;
  for (const poly of polygons) {
    for (const ring of poly) {
      for (let i = 0, j = ring.length - 1; i < ring.length; j = i++) {
        const xi = ring[i]![0]!;
        const yi = ring[i]![1]!;
        const xj = ring[j]![0]!;
        const yj = ring[j]![1]!;
        if (yi > y !== yj > y && x < ((xj - xi) * (y - yi)) / (yj - yi) + xi) inside = !inside;
      }
    }
  }
  return inside;
}

/**
 * Where the line at height `y` crosses the edges of every ring of every part (half-open in y, as
 * `containsPoint` counts them), ascending: a point (x, y) is inside exactly when
 * xs[2k] ≤ x < xs[2k + 1] for some k.
 */
export function lineCrossings(polygons: readonly PolygonCoords[], y: number): number[] {
  const xs: number[] = [];
  for (const poly of polygons)
    for (const ring of poly)
      for (let i = 0, j = ring.length - 1; i < ring.length; j = i++) {
        const xi = ring[i]![0]!;
        const yi = ring[i]![1]!;
        const xj = ring[j]![0]!;
        const yj = ring[j]![1]!;
        if (yi > y !== yj > y) xs.push(((xj - xi) * (y - yi)) / (yj - yi) + xi);
      }
  return xs.sort((a, b) => a - b);
}

/**
 * A point inside the polygons for a label or a marker: on the horizontal line through the middle
 * of the largest polygon's bounds, the middle of the widest span inside it (even–odd, holes
 * excluded). Degenerate input falls back to the bounds' centre.
 */
export function labelPoint(polygons: readonly PolygonCoords[]): [number, number] {
  let best: PolygonCoords | undefined;
  let bestSpan = -1;
  for (const p of polygons) {
    const [w, s, e, n] = polygonsBounds([p]);
    if ((e - w) * (n - s) > bestSpan) [best, bestSpan] = [p, (e - w) * (n - s)];
  }
  const [w, s, e, n] = polygonsBounds(best ? [best] : polygons);
  const y = (s + n) / 2;
  const xs = lineCrossings(best ? [best] : [], y);
  let at: [number, number] = [(w + e) / 2, y];
  let widest = -1;
  for (let k = 0; k + 1 < xs.length; k += 2)
    if (xs[k + 1]! - xs[k]! > widest) [widest, at] = [xs[k + 1]! - xs[k]!, [(xs[k]! + xs[k + 1]!) / 2, y]];
  return at;
}
