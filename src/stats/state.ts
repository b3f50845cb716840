import { createHash } from 'node:crypto';
import { fileSignature } from '../io/memo.js';
import { weakMemo } from '../util/weak-memo.js';
import { VERSION } from '../version.js';
import type { StatsPlan } from './plan.js';

/**
 * A key that changes whenever the answer to a plan could: snowdb's version, the query itself, the
 * dataset config, the set of ingested dates (any ingest or re-ingest renames a folder in
 * `cogs/`), the basin's index entry and AOI raster, and the zone layers the query reads. Only
 * stats, no raster reads: cheap enough to answer If-None-Match before computing.
 */
export function statsStateKey(plan: StatsPlan): string {
  const signatures = plan.stateFiles.map((f) => stateSignatures(plan).get(f)!);
  return createHash('sha256')
    .update(JSON.stringify([VERSION, plan.query, plan.entry, signatures]))
    .digest('base64url')
    .slice(0, 27);
}

/** The signatures of a plan's state files, stat'ed once per plan (the ETag and the basin cache share them). */
export const stateSignatures = weakMemo((plan: StatsPlan): ReadonlyMap<string, string> => {
  const shared = plan.sharedSignatures ?? new Map<string, string>();
  return new Map(
    plan.stateFiles.map((f) => {
      let sig = shared.get(f);
      if (sig === undefined) {
        sig = fileSignature(plan.dataset.store, f);
        shared.set(f, sig);
      }
      return [f, sig];
    }),
  );
});
