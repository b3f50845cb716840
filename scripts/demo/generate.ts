/**
 * `node dist/scripts/demo/generate.js <snodas|swann|spires> <dir>`: generate one kind of demo
 * source under `<dir>/<kind>` (a process of its own, so the demo runs kinds side by side) and
 * print `{"files": [...], "written": n}` on stdout.
 */
import { readdir, readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { type Box, DEMO_DATES, HISTORY_DATES, SPIRES_DATES, Terrain } from './snow.js';
import { generateDemoSources, SOURCE_KINDS, type SourceKind } from './sources.js';

const fixtures = fileURLToPath(new URL('../../../test/fixtures/', import.meta.url));
const basins = fileURLToPath(new URL('../../../demo/basins/', import.meta.url));
/** Snow margin around each demo basin's bounding box (degrees). */
const MARGIN = 0.25;
const [kind, dir] = process.argv.slice(2);
if (!SOURCE_KINDS.includes(kind as SourceKind) || dir === undefined) {
  process.stderr.write(`usage: generate.js <${SOURCE_KINDS.join('|')}> <dir>\n`);
  process.exit(1);
}
/** Each demo basin's lon/lat bounding box widened by MARGIN: where the demo's snow is. */
async function demoRegion(): Promise<Box[]> {
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
const terrain = await Terrain.load(`${fixtures}zion/srtm.tif`, await demoRegion());
const r = await generateDemoSources(
  kind as SourceKind,
  dir,
  terrain,
  `${fixtures}snodas/fake_snodas.hdr`,
  DEMO_DATES,
  SPIRES_DATES,
  HISTORY_DATES,
);
process.stdout.write(`${JSON.stringify(r)}\n`);
