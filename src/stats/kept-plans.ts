/**
 * The every-basin plans a server keeps for a repeated query (a map's colours): by index read, then
 * query, reused only while the coverage index, the dates and every state file they rest on are
 * unchanged (their signatures are what the answer's ETag signs).
 */
import { fileSignature } from '../io/memo.js';
import type { IndexEntry } from '../pourpoints/index-file.js';
import { weakMemo } from '../util/weak-memo.js';
import type { PlanInputs, StatsPlan } from './plan.js';
import { stateSignatures } from './state.js';

/** An every-basin plan: one stats plan per basin. */
interface Plans {
  readonly plans: readonly StatsPlan[];
}

/** Every-basin plans by index read, then query (JSON). */
const planned = weakMemo((_: ReadonlyMap<string, IndexEntry>) => new Map<string, Plans>());
/** Queries whose plans a server keeps per index read (each holds a plan per basin). */
const PLANS_KEPT = 2;

/** Keep a plan whose basins all rest on one list of state files (none with an AOI file of its own). */
export function keepPlan(index: ReadonlyMap<string, IndexEntry>, key: string, plan: Plans): void {
  const first = plan.plans[0];
  if (first === undefined || plan.plans.some((p) => p.stateFiles !== first.stateFiles)) return;
  const kept = planned(index);
  kept.delete(key);
  kept.set(key, plan);
  for (const old of kept.keys()) if (kept.size > PLANS_KEPT) kept.delete(old);
}

/** Whether kept plans still hold: the same coverage index, and each state file's signature unchanged. */
function reusable(plan: Plans, inputs: PlanInputs): boolean {
  const first = plan.plans[0]!;
  if (first.inputs.coverage !== inputs.coverage || first.inputs.dates !== inputs.dates) return false;
  const signed = stateSignatures(first);
  return first.stateFiles.every((f) => fileSignature(first.dataset.store, f) === signed.get(f));
}

/** The plan kept for `key` over these inputs (their index read), if it still holds. */
export function keptPlan<P extends Plans>(inputs: PlanInputs, key: string): P | undefined {
  const plan = planned(inputs.index).get(key);
  return plan !== undefined && reusable(plan, inputs) ? (plan as P) : undefined;
}
