import { createHash } from 'node:crypto';
import { lstat, readdir, readFile, readlink, stat } from 'node:fs/promises';
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

/** Paths whose content differs between two logical trees (or that only one holds), in key order of a then b. */
export const treeDiff = (a: ReadonlyMap<string, string>, b: ReadonlyMap<string, string>): string[] =>
  [...new Set([...a.keys(), ...b.keys()])].filter((k) => a.get(k) !== b.get(k));

/**
 * The database as a reader sees it: every file (relative path → sha256) with dates followed
 * through their links (`data/<ds>/cogs/<day>/<file>`), the versions, links and locks beside them
 * left out, a manifest hashed without its `ingested_at`, and `.cache/` left out.
 */
export async function logicalTree(root: string): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  const sha = (b: Buffer | string) => createHash('sha256').update(b).digest('hex');
  async function walk(d: string, rel: string): Promise<void> {
    const inCogs = rel.endsWith('/cogs');
    for (const name of (await readdir(d)).sort()) {
      if ((inCogs && name.startsWith('.')) || (rel === '' && name === '.cache')) continue;
      const p = join(d, name);
      const r = rel === '' ? name : `${rel}/${name}`;
      const st = await stat(p);
      if (st.isDirectory()) await walk(p, r);
      else if (name === 'manifest.json' && /\/cogs\/\d{8}$/.test(rel)) {
        const { ingested_at: _, ...m } = JSON.parse(await readFile(p, 'utf8')) as Record<string, unknown>;
        out.set(r, sha(JSON.stringify(m)));
      } else out.set(r, sha(await readFile(p)));
    }
  }
  await walk(root, '');
  return out;
}
