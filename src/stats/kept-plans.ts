/**
 * The every-basin plans a server keeps for a repeated query (a map's colours): by index read, then
 * query, reused only while the coverage index, the dates and every state file they rest on are
 * unchanged (their signatures are what the answer's ETag signs).
 */
import { fileSignature } from '../io/memo.js';
import type { IndexEntry } from '../pourpoints/index-file.js';
import type { AllBasinsPlan, CoveredBasins } from './all-basins.js';
import { stateSignatures } from './state.js';

/** Every-basin plans by index read, then query (JSON). */
const planned = new WeakMap<ReadonlyMap<string, IndexEntry>, Map<string, AllBasinsPlan>>();
/** Queries whose plans a server keeps per index read (each holds a plan per basin). */
const PLANS_KEPT = 2;

/** Keep a plan whose basins all rest on one list of state files (none with an AOI file of its own). */
export function keepPlan(index: ReadonlyMap<string, IndexEntry>, key: string, plan: AllBasinsPlan): void {
  const first = plan.plans[0];
  if (first === undefined || plan.plans.some((p) => p.stateFiles !== first.stateFiles)) return;
  const kept = planned.get(index) ?? new Map<string, AllBasinsPlan>();
  planned.set(index, kept);
  kept.delete(key);
  kept.set(key, plan);
  for (const old of kept.keys()) if (kept.size > PLANS_KEPT) kept.delete(old);
}

/** Whether kept plans still hold: the same coverage index, and each state file's signature unchanged. */
function reusable(plan: AllBasinsPlan, covered: CoveredBasins): boolean {
  const first = plan.plans[0]!;
  if (first.inputs.coverage !== covered.inputs.coverage || first.inputs.dates !== covered.inputs.dates)
    return false;
  const signed = stateSignatures(first);
  return first.stateFiles.every((f) => fileSignature(first.dataset.store, f) === signed.get(f));
}

/** The plan kept for `key` over these basins, if it still holds. */
export function keptPlan(covered: CoveredBasins, key: string): AllBasinsPlan | undefined {
  const plan = planned.get(covered.inputs.index)?.get(key);
  return plan !== undefined && reusable(plan, covered) ? plan : undefined;
}
