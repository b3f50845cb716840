/**
 * Run as a child of the bench: `node dist/bench/memory-probe.js ROOT DATASET TRIPLET START END`.
 * Warms up with a one-date query (modules loaded, basin prepared), takes that RSS as idle, runs
 * the long query with 1,000-ft bands, and prints {idle, peak} in bytes (peak = the process's
 * maximum resident set, worker threads included).
 */
import { Database } from '../src/db/database.js';
import { computeStats } from '../src/stats/engine.js';

const [root, dataset, pourpoint, start, end] = process.argv.slice(2) as [
  string,
  string,
  string,
  string,
  string,
];
const db = await Database.open(root);
const q = (start_date: string, end_date: string) => ({
  dataset,
  pourpoint,
  dates: { type: 'DateRange' as const, start_date, end_date },
  variables: ['swe'],
  zones: ['terrain.elevation'],
});
await computeStats(db, q(start, start));
const idle = process.memoryUsage().rss;
await computeStats(db, q(start, end));
console.log(JSON.stringify({ idle, peak: process.resourceUsage().maxRSS * 1024 }));
