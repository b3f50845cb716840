import { createHash } from 'node:crypto';
import { lstat, readdir, readFile, readlink } from 'node:fs/promises';
import { join, relative } from 'node:path';

/** A map of every file under `dir` (relative path → sha256), every folder (→ 'dir') and every symlink (→ '-> target'). */
export async function snapshotTree(dir: string): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  async function walk(d: string): Promise<void> {
    for (const name of (await readdir(d)).sort()) {
      const p = join(d, name);
      const st = await lstat(p);
      if (st.isSymbolicLink()) {
        out.set(relative(dir, p), `-> ${await readlink(p)}`);
      } else if (st.isDirectory()) {
        out.set(relative(dir, p), 'dir');
        await walk(p);
      } else {
        out.set(
          relative(dir, p),
          createHash('sha256')
            .update(await readFile(p))
            .digest('hex'),
        );
      }
    }
  }
  await walk(dir);
  return out;
}

/** A pourpoint record (GeoJSON GeometryCollection) read from `path`, renamed and moved by dLon, dLat degrees. */
export async function shiftedRecord(
  path: string,
  triplet: string,
  dLon: number,
  dLat: number,
): Promise<string> {
  const rec = JSON.parse(await readFile(path, 'utf8'));
  const move = (c: unknown): unknown =>
    typeof (c as number[])[0] === 'number'
      ? [(c as number[])[0]! + dLon, (c as number[])[1]! + dLat]
      : (c as unknown[]).map(move);
  rec.id = triplet;
  for (const g of rec.geometries) g.coordinates = move(g.coordinates);
  return `${JSON.stringify(rec, null, 2)}\n`;
}
