/**
 * A basin index over a group, the NRCS definition (a basin's index from its sites): per date,
 * 100 × Σ members' current value ÷ Σ members' median value on that day, over the members that
 * have both (each member's whole-basin mean of a variable against its own day-of-year median of
 * the reference years). Unlike the group's own stats (its union's mean), every member weighs
 * the same, whatever its area, as every site does in an NRCS basin index.
 */
import type { Database } from '../db/database.js';
import { groupMembers } from '../pourpoints/groups.js';
import { executeWithNormals } from './anomalies.js';
import type { DateQuery } from './dates.js';
import type { ExecuteOptions } from './engine.js';
import { type NormalsOption, openStatsPlan } from './plan.js';
import type { Units } from './units.js';

export interface BasinIndexQuery {
  readonly dataset: string;
  /** `group:<name>`. */
  readonly group: string;
  readonly dates: DateQuery;
  /** One variable (default `swe`). */
  readonly variable?: string;
  readonly normals?: NormalsOption;
  readonly units?: Units;
}

export interface BasinIndexBody {
  group: string;
  members: string[];
  variable: string;
  /** `basin_index_pct`, `sum_<mean>`, `sum_median_<mean>`, `members`. */
  variables: string[];
  results: Record<string, (number | null)[]>;
}

/** The basin index of a group per date. @throws as the members' stats with normals. */
export async function computeBasinIndex(
  db: Database,
  q: BasinIndexQuery,
  opts: ExecuteOptions = {},
): Promise<BasinIndexBody> {
  const members = await groupMembers(db, q.group);
  const variable = q.variable ?? 'swe';
  const sums = new Map<string, { now: number; median: number; n: number }>();
  let mean = `mean_${variable}`;
  for (const m of members) {
    const plan = await openStatsPlan(db, {
      dataset: q.dataset,
      pourpoint: m,
      dates: q.dates,
      variables: [variable],
      normals: q.normals ?? {},
      units: q.units,
    });
    const body = await executeWithNormals(plan, opts);
    mean = body.variables.find((v) => v.startsWith('mean_')) ?? mean;
    const vi = body.variables.indexOf(mean);
    const mi = body.variables.indexOf(`median_${mean}`);
    for (const [date, rows] of Object.entries(body.results)) {
      const s = sums.get(date) ?? { now: 0, median: 0, n: 0 };
      const v = rows[0]?.[vi];
      const med = rows[0]?.[mi];
      if (typeof v === 'number' && typeof med === 'number') {
        s.now += v;
        s.median += med;
        s.n++;
      }
      sums.set(date, s);
    }
  }
  const results: Record<string, (number | null)[]> = {};
  for (const date of [...sums.keys()].sort()) {
    const s = sums.get(date)!;
    results[date] = [
      s.n > 0 && s.median > 0 ? (100 * s.now) / s.median : null,
      s.n > 0 ? s.now : null,
      s.n > 0 ? s.median : null,
      s.n,
    ];
  }
  return {
    group: q.group,
    members,
    variable,
    variables: ['basin_index_pct', `sum_${mean}`, `sum_median_${mean}`, 'members'],
    results,
  };
}
