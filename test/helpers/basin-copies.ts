/**
 * Many basins from the few bundled BAGIS outlines (demo/basins): each outline moved to several
 * places, as pourpoint records for `snowdb pourpoint sync` (the web page's tests and bench).
 */
import { readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

const REPO = new URL('../../../', import.meta.url).pathname;

/**
 * Write `copies` records of each bundled outline into `dir`: copy k of outline n has its outflow
 * point at `place(n, k)` (lon, lat) and triplet `id(n, k)`; returns the triplets, sorted.
 */
export async function basinCopies(
  dir: string,
  copies: number,
  place: (n: number, k: number) => [number, number],
  id: (n: number, k: number) => string,
): Promise<string[]> {
  // The ten BAGIS outlines; not the demo's own basin delineated from its DEM (network DEMO).
  const files = (await readdir(join(REPO, 'demo/basins'))).filter((f) => f.endsWith('_USGS.geojson')).sort();
  const ids: string[] = [];
  for (const [n, f] of files.entries()) {
    const g = JSON.parse(await readFile(join(REPO, 'demo/basins', f), 'utf8'));
    const [x0, y0] = g.geometries[0].coordinates as [number, number];
    for (let k = 0; k < copies; k++) {
      const [x, y] = place(n, k);
      const move = (c: unknown): unknown =>
        typeof (c as number[])[0] === 'number'
          ? [(c as number[])[0]! + x - x0, (c as number[])[1]! + y - y0]
          : (c as unknown[]).map(move);
      const triplet = id(n, k);
      ids.push(triplet);
      const copy = {
        ...g,
        id: triplet,
        properties: { ...g.properties, name: `${g.properties.name} copy ${k}` },
        geometries: g.geometries.map((x: { coordinates: unknown }) => ({
          ...x,
          coordinates: move(x.coordinates),
        })),
      };
      await writeFile(join(dir, `${triplet.replaceAll(':', '_')}.geojson`), JSON.stringify(copy));
    }
  }
  return ids.sort();
}
