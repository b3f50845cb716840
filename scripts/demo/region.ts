import { readdir, readFile } from 'node:fs/promises';
import type { Box } from './snow.js';

/** Snow margin around each demo basin's bounding box (degrees). */
const MARGIN = 0.25;

/** Each demo basin's lon/lat bounding box widened by MARGIN: where the demo's snow is. */
export async function demoRegion(basins: string): Promise<Box[]> {
  const boxes: Box[] = [];
  for (const name of (await readdir(basins)).filter((f) => f.endsWith('.geojson')).sort()) {
    const b = [180, 90, -180, -90];
    const visit = (v: unknown): void => {
      if (!Array.isArray(v)) return;
      if (typeof v[0] === 'number' && typeof v[1] === 'number') {
        b[0] = Math.min(b[0]!, v[0]);
        b[1] = Math.min(b[1]!, v[1]);
        b[2] = Math.max(b[2]!, v[0]);
        b[3] = Math.max(b[3]!, v[1]);
      } else for (const x of v) visit(x);
    };
    const gj = JSON.parse(await readFile(basins + name, 'utf8')) as {
      geometries: { coordinates: unknown }[];
    };
    for (const g of gj.geometries) visit(g.coordinates);
    boxes.push([b[0]! - MARGIN, b[1]! - MARGIN, b[2]! + MARGIN, b[3]! + MARGIN]);
  }
  return boxes;
}
