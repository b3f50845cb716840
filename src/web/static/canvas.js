// Many paths on one canvas with no Leaflet layer per path: lon/lat rings are kept as Web Mercator
// unit coordinates in typed arrays, and a Leaflet canvas renderer draws them after each pan and
// zoom. 1,200 Leaflet paths (600 basins and their outlets) took ~300 ms to build and project at
// first load; drawing the same arrays takes a few ms.
/* global L */

const MAX_LAT = 85.0511287798; // Web Mercator's edge, as Leaflet's SphericalMercator

/**
 * A [lon, lat] position as Web Mercator unit coordinates: x and y in [0, 1], y down (as Leaflet's EPSG3857).
 * @param {number} lon @param {number} lat @param {number[] | Float64Array} out @param {number} at
 */
export function mercator(lon, lat, out = [0, 0], at = 0) {
  const s = Math.sin((Math.max(-MAX_LAT, Math.min(MAX_LAT, lat)) * Math.PI) / 180);
  out[at] = lon / 360 + 0.5;
  out[at + 1] = 0.5 - Math.log((1 + s) / (1 - s)) / (4 * Math.PI);
  return out;
}

/** A ring or line of [lon, lat] positions as a Float64Array of unit x, y pairs (a ring's closing vertex dropped). */
export function unitPath(positions, closed) {
  const [a, z] = [positions[0], positions.at(-1)];
  const n =
    closed && positions.length > 1 && a[0] === z[0] && a[1] === z[1]
      ? positions.length - 1
      : positions.length;
  const out = new Float64Array(2 * n);
  for (let i = 0; i < n; i++) mercator(positions[i][0], positions[i][1], out, 2 * i);
  return out;
}

/** The rings (or lines) of GeoJSON polygons, multi-lines or features as unit paths, every part flattened. */
export function unitPaths(g) {
  switch (g.type) {
    case 'Polygon':
      return g.coordinates.map((r) => unitPath(r, true));
    case 'MultiPolygon':
      return g.coordinates.flatMap((p) => p.map((r) => unitPath(r, true)));
    case 'MultiLineString':
      return g.coordinates.map((l) => unitPath(l, false));
    case 'Feature':
      return unitPaths(g.geometry);
    case 'FeatureCollection':
      return g.features.flatMap(unitPaths);
    default:
      return [];
  }
}

/** The box [x0, y0, x1, y1] of unit paths. */
export function unitBox(paths) {
  const box = [Infinity, Infinity, -Infinity, -Infinity];
  for (const p of paths)
    for (let i = 0; i < p.length; i += 2) {
      box[0] = Math.min(box[0], p[i]);
      box[1] = Math.min(box[1], p[i + 1]);
      box[2] = Math.max(box[2], p[i]);
      box[3] = Math.max(box[3], p[i + 1]);
    }
  return box;
}

/** Add the paths to the context's current path, in layer px (view `v` from the renderer); rings closed. */
export function trace(ctx, paths, v, closed) {
  const { s, ox, oy } = v;
  for (const p of paths) {
    ctx.moveTo(p[0] * s - ox, p[1] * s - oy);
    for (let i = 2; i < p.length; i += 2) ctx.lineTo(p[i] * s - ox, p[i + 1] * s - oy);
    if (closed) ctx.closePath();
  }
}

/** Whether unit point (x, y) is inside the rings by the even–odd rule (the rule the fill uses). */
export function inside(rings, x, y) {
  let odd = false;
  for (const r of rings)
    for (let i = 0, j = r.length - 2; i < r.length; j = i, i += 2) {
      const [xi, yi, xj, yj] = [r[i], r[i + 1], r[j], r[j + 1]];
      if (yi > y !== yj > y && x < ((xj - xi) * (y - yi)) / (yj - yi) + xi) odd = !odd;
    }
  return odd;
}

/**
 * A Leaflet canvas renderer that draws `options.paint(ctx, view)` instead of Leaflet paths; `view`
 * maps unit coordinates to layer px: (x · s − ox, y · s − oy), and `box` is the drawn area in unit
 * coordinates. Leaflet sizes, places, clears and zoom-animates the canvas; it calls `_draw` after
 * every pan, zoom and resize (Leaflet 1.9.4, pinned in package-lock.json).
 */
export const PathCanvas = L.Canvas.extend({
  _draw() {
    if (!this._map || !this._bounds) return;
    const v = this.view();
    const b = this._bounds; // the canvas in layer px
    const box = [
      (b.min.x + v.ox) / v.s,
      (b.min.y + v.oy) / v.s,
      (b.max.x + v.ox) / v.s,
      (b.max.y + v.oy) / v.s,
    ];
    this._ctx.save();
    this.options.paint(this._ctx, { ...v, box });
    this._ctx.restore();
  },

  /** Draw again now (after the data or its styles changed). */
  redraw() {
    if (this._map && this._ctx) this._redraw();
  },

  /** The view at this moment (for hit tests in layer px). */
  view() {
    const map = this._map;
    const o = map.getPixelOrigin();
    return { s: map.options.crs.scale(map.getZoom()), ox: o.x, oy: o.y };
  },
});
