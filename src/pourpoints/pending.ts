import { rm } from 'node:fs/promises';
import { z } from 'zod';
import type { Database } from '../db/database.js';
import { parseJsonAs } from '../db/json-file.js';
import { SnowdbError } from '../errors.js';
import { writeJsonAtomic } from '../io/atomic.js';
import { readFileIfExists } from '../io/fs.js';

/**
 * The pourpoint journal (`pourpoints/.pending.json`): the basins an import or sync is changing,
 * written before any record or the index is, removed once their AOI rasters and series blocks
 * are built. A run killed in between leaves it, and the next import, sync or rasterize finishes
 * the work (a record already current would otherwise read as "unchanged" with stale rasters).
 */
const PendingSchema = z.strictObject({
  /** Triplets whose record is new or changed: their AOI rasters are to be (re)built. */
  aoi: z.array(z.string()),
  /** Triplets being pruned: their records and rasters are to be deleted. */
  pruned: z.array(z.string()),
});
export type Pending = z.infer<typeof PendingSchema>;

const NONE: Pending = { aoi: [], pruned: [] };

export const isEmpty = (p: Pending): boolean => p.aoi.length === 0 && p.pruned.length === 0;

/** The journal, or nothing pending. @throws SnowdbError `invalid-config` when it is damaged. */
export async function readPending(db: Database): Promise<Pending> {
  const path = db.paths.pourpointPending;
  const bytes = await readFileIfExists(db.store, path);
  if (bytes === null) return NONE;
  try {
    return parseJsonAs(bytes.toString('utf8'), path, PendingSchema, 'the pourpoint journal');
  } catch (e) {
    if (!SnowdbError.is(e)) throw e;
    // Written atomically, so damage is outside interference: rebuild every AOI raster instead.
    throw new SnowdbError('invalid-config', `${e.message} (delete it and run 'snowdb pourpoint rasterize')`);
  }
}

/** Add work to the journal (atomically), before the records and index change. */
export async function addPending(db: Database, more: Pending): Promise<void> {
  if (isEmpty(more)) return;
  const p = await readPending(db);
  const union = (a: readonly string[], b: readonly string[]) => [...new Set([...a, ...b])].sort();
  await writeJsonAtomic(db.paths.pourpointPending, {
    aoi: union(p.aoi, more.aoi),
    pruned: union(p.pruned, more.pruned),
  });
}

/** The work is done. */
export async function clearPending(db: Database): Promise<void> {
  await rm(db.paths.pourpointPending, { force: true });
}
