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
