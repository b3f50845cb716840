import { createHash } from 'node:crypto';
import { fileSignature } from '../io/memo.js';
import { Slicer } from '../util/slices.js';
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

/**
 * The key of an every-basin answer: what `statsStateKey` signs for each basin, in one hash — the
 * query (the same for every basin but its pourpoint) and the state files the plans share once,
 * then each basin's index entry and the signatures of any state file of its own (an AOI raster).
 */
export async function everyBasinStateKey(plans: readonly StatsPlan[], signal?: AbortSignal): Promise<string> {
  const hash = createHash('sha256');
  const first = plans[0];
  const signed = (p: StatsPlan) => p.stateFiles.map((f) => stateSignatures(p).get(f)!);
  if (first !== undefined) {
    const { pourpoint: _, ...query } = first.query;
    hash.update(JSON.stringify([VERSION, query, first.stateFiles, signed(first)]));
  }
  const slicer = new Slicer(signal);
  for (const p of plans) {
    // Plans without an AOI file of their own share one state-file list (the same array).
    hash.update(JSON.stringify([p.entry, p.stateFiles === first!.stateFiles ? 0 : signed(p)]));
    await slicer.pause();
  }
  return hash.digest('base64url').slice(0, 27);
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
