import { createHash } from 'node:crypto';
import { fileSignature } from '../io/memo.js';
import { VERSION } from '../version.js';
import type { StatsPlan } from './plan.js';

/**
 * A key that changes whenever the answer to a plan could: snowdb's version, the query itself, the
 * dataset config, the set of ingested dates (any ingest or re-ingest renames a folder in
 * `cogs/`), the basin's index entry and AOI raster, and the zone layers the query reads. Only
 * stats, no raster reads: cheap enough to answer If-None-Match before computing.
 */
export async function statsStateKey(plan: StatsPlan): Promise<string> {
  const signatures = await Promise.all(plan.stateFiles.map(fileSignature));
  return createHash('sha256')
    .update(JSON.stringify([VERSION, plan.query, plan.entry, signatures]))
    .digest('base64url')
    .slice(0, 27);
}
