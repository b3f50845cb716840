import { type AreaGeometry, type PolygonCoords, polygonsOf } from './geometry.js';

const WKB_POLYGON = 3;
const WKB_MULTIPOLYGON = 6;

/** Bytes of one 2-D polygon in little-endian WKB (header, ring count, each ring's count and x,y doubles). */
function polygonSize(poly: PolygonCoords): number {
  let n = 1 + 4 + 4;
  for (const ring of poly) n += 4 + ring.length * 16;
  return n;
}

function writePolygon(view: DataView, at: number, poly: PolygonCoords): number {
  view.setUint8(at, 1);
  view.setUint32(at + 1, WKB_POLYGON, true);
  view.setUint32(at + 5, poly.length, true);
  at += 9;
  for (const ring of poly) {
    view.setUint32(at, ring.length, true);
    at += 4;
    for (const p of ring) {
      view.setFloat64(at, p[0]!, true);
      view.setFloat64(at + 8, p[1]!, true);
      at += 16;
    }
  }
  return at;
}

/**
 * 2-D little-endian (NDR) OGC WKB of a Polygon or MultiPolygon, as GEOS/OGR export it: the same
 * bytes for the same coordinates, so its digest identifies a geometry across tools.
 */
export function wkbOf(g: AreaGeometry): Uint8Array {
  const polys = polygonsOf(g);
  const size =
    g.type === 'Polygon' ? polygonSize(g.coordinates) : 9 + polys.reduce((s, p) => s + polygonSize(p), 0);
  const out = new Uint8Array(size);
  const view = new DataView(out.buffer);
  if (g.type === 'Polygon') {
    writePolygon(view, 0, g.coordinates);
    return out;
  }
  view.setUint8(0, 1);
  view.setUint32(1, WKB_MULTIPOLYGON, true);
  view.setUint32(5, polys.length, true);
  let at = 9;
  for (const p of polys) at = writePolygon(view, at, p);
  return out;
}
