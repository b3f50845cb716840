/** `node dist/bench/generate.js`: build (or reuse) the cached bench database and print where it is. */
import { benchDatabase } from './fixture/database.js';

const db = await benchDatabase((m) => console.error(m));
console.log(db.root);
