import { createHash } from 'node:crypto';
import { readdir, readFile, stat } from 'node:fs/promises';
import { join, relative } from 'node:path';

/** A map of every file under `dir` (relative path → sha256) and every folder (→ 'dir'). */
export async function snapshotTree(dir: string): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  async function walk(d: string): Promise<void> {
    for (const name of (await readdir(d)).sort()) {
      const p = join(d, name);
      const st = await stat(p);
      if (st.isDirectory()) {
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
