/**
 * `node dist/bench/generate.js [daily [years]]`: build (or reuse) a cached bench database and print
 * where it is: the 20-year hard-linked one, or with `daily` the daily-varying one of `years` water
 * years (default SNOWDB_BENCH_YEARS, else 20).
 */

import { benchYears, dailyDatabase } from './fixture/daily.js';
import { benchDatabase } from './fixture/database.js';

const log = (m: string) => console.error(m);
const [kind, years] = process.argv.slice(2);
const db =
  kind === 'daily'
    ? await dailyDatabase(years === undefined ? benchYears() : Number(years), log)
    : await benchDatabase(log);
console.log(db.root);
