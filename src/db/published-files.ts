import { readdir, stat } from 'node:fs/promises';
import { join, relative, sep } from 'node:path';
import { SnowdbError } from '../errors.js';
import type { Database } from './database.js';
import { datasetDir } from './layout.js';

/** One file a replica reads: its path relative to the root (`/`-separated) and on this disk. */
export interface PublishedFile {
  readonly rel: string;
  readonly abs: string;
}

/** Dot names are locks, temp files, staging and date versions (reached through their date link). */
const hidden = (name: string): boolean => name.startsWith('.');

/** Files under `dir` (symlinks followed: a date link reads as its version folder), dot names skipped. */
async function walk(dir: string, out: string[]): Promise<void> {
  for (const name of (await readdir(dir)).sort()) {
    if (hidden(name)) continue;
    const abs = join(dir, name);
    const s = await stat(abs).catch(() => null); // a link whose target just went: skipped
    if (s?.isDirectory()) await walk(abs, out);
    else if (s?.isFile()) out.push(abs);
  }
}

/**
 * Every file the read path of a database uses: the root config, the pourpoint records and index,
 * and each registered dataset's folder (config, area and AOI rasters, dates, zone layers, series),
 * without locks, temp files, caches or the pourpoint journal.
 * @throws SnowdbError `invalid-config` for a dataset whose folder lies outside the database folder.
 */
export async function publishedFiles(db: Database): Promise<PublishedFile[]> {
  const abs: string[] = [db.paths.rootConfig];
  for (const name of (await readdir(db.paths.pourpoints)).sort()) {
    const file = join(db.paths.pourpoints, name);
    if (!hidden(name) && (await stat(file)).isFile()) abs.push(file);
  }
  for (const [name, link] of Object.entries(db.config.datasets).sort(([a], [b]) => a.localeCompare(b))) {
    const dir = datasetDir(db.root, link.path);
    const rel = relative(db.root, dir);
    if (rel.startsWith('..') || rel === '')
      throw new SnowdbError(
        'invalid-config',
        `dataset ${name} lives at ${dir}, outside ${db.root}: a published copy holds only what is under the database folder`,
      );
    await walk(dir, abs);
  }
  return abs.map((a) => ({ rel: relative(db.root, a).split(sep).join('/'), abs: a }));
}
