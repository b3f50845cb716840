/**
 * Vector layers read from basin-set files (GeoJSON, zipped Shapefile, GeoPackage): features with
 * their attributes and GeoJSON geometry in the file's coordinates, and the CRS the file declares.
 */

/** The CRS a layer declares: an EPSG code, WKT text (a .prj), or none (GeoJSON: WGS84 lon/lat). */
export type DeclaredCrs = { readonly epsg: number } | { readonly wkt: string } | null;

export interface VectorFeature {
  /** The feature's own id where the format has one (GeoJSON `id`, GeoPackage primary key). */
  readonly id?: string | number;
  readonly properties: Readonly<Record<string, unknown>>;
  /** GeoJSON geometry in the layer's CRS, or null (a record without a shape). */
  readonly geometry: { readonly type: string; readonly coordinates: unknown } | null;
}

export interface VectorLayer {
  readonly name: string;
  readonly crs: DeclaredCrs;
  /** Attribute names, in the file's order. */
  readonly fields: readonly string[];
  readonly features: readonly VectorFeature[];
}

/** Attribute names of features, in first-seen order. */
export function fieldsOf(features: readonly VectorFeature[]): string[] {
  const seen = new Set<string>();
  for (const f of features) for (const k of Object.keys(f.properties)) seen.add(k);
  return [...seen];
}
