/**
 * `node dist/scripts/demo/generate.js <snodas|swann|spires> <dir>`: generate one kind of demo
 * source under `<dir>/<kind>` (a process of its own, so the demo runs kinds side by side) and
 * print `{"files": [...], "written": n}` on stdout.
 */
import { fileURLToPath } from 'node:url';
import { demoRegion } from './region.js';
import { DEMO_DATES, HISTORY_DATES, SPIRES_DATES, Terrain } from './snow.js';
import { generateDemoSources, SOURCE_KINDS, type SourceKind } from './sources.js';

const fixtures = fileURLToPath(new URL('../../../test/fixtures/', import.meta.url));
const basins = fileURLToPath(new URL('../../../demo/basins/', import.meta.url));
const [kind, dir] = process.argv.slice(2);
if (!SOURCE_KINDS.includes(kind as SourceKind) || dir === undefined) {
  process.stderr.write(`usage: generate.js <${SOURCE_KINDS.join('|')}> <dir>\n`);
  process.exit(1);
}
const terrain = await Terrain.load(`${fixtures}zion/srtm.tif`, await demoRegion(basins));
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
