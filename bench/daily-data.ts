/** `node dist/bench/daily-data.js [years]`: generate (or find) the daily bench database and print where it is. */
import { benchYears, dailyDatabase } from './fixture/daily.js';

const years = process.argv[2] === undefined ? benchYears() : Number(process.argv[2]);
const db = await dailyDatabase(years, (m) => console.error(m));
console.log(db.root);
