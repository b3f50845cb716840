/**
 * snowdb's caches-empty side of the rivals bench, in a long-lived process of its own as each rival
 * answers in its own (bench/rivals.py): one JSON line in (`{ root, query }` or `{ root, all }`),
 * one out (`{ seconds, digest }`). Every query opens a fresh runtime (no cache, no worker, no
 * series view kept), answers, and closes it; the seconds run from the query in to the answer
 * built, as the rivals time themselves. The digest (SHA-256 of the answer's JSON) lets the bench
 * check this side answered what its own process did, after the timing.
 */
import { createHash } from 'node:crypto';
import { createInterface } from 'node:readline';
import { Database } from '../src/db/database.js';
import { type AllBasinsQuery, computeAllBasins } from '../src/stats/all-basins.js';
import { computeStats } from '../src/stats/engine.js';
import type { StatsQuery } from '../src/stats/plan.js';

export type SideQuery = { root: string; query: StatsQuery } | { root: string; all: AllBasinsQuery };

/** The digest both sides of the check compute. */
export const digestOf = (answer: unknown): string =>
  createHash('sha256').update(JSON.stringify(answer)).digest('hex');

/** Answer one query on a fresh runtime: seconds taken, and the answer. */
export async function answerFresh(m: SideQuery): Promise<{ seconds: number; answer: unknown }> {
  const t = performance.now();
  const db = await Database.open(m.root);
  const answer = 'all' in m ? await computeAllBasins(db, m.all) : await computeStats(db, m.query);
  const seconds = (performance.now() - t) / 1000;
  await db.runtime.close();
  return { seconds, answer };
}

if (process.argv[2] === 'loop') {
  for await (const line of createInterface({ input: process.stdin })) {
    const { seconds, answer } = await answerFresh(JSON.parse(line) as SideQuery);
    process.stdout.write(`${JSON.stringify({ seconds, digest: digestOf(answer) })}\n`);
  }
}
