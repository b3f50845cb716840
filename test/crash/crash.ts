/**
 * `npm run test:crash`: SNOWDB_CRASH_N (default 100) kill points, spread over the scenarios in
 * turn, each at a seeded-random moment in [0, 1.05 × the scenario's uninterrupted time]; every
 * point checks the invariants of scenarios.ts. Prints per scenario the points, how many were
 * killed before the end, and what doctor reported right after the kills.
 */
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { seeded } from '../helpers/raster.js';
import {
  killPoint,
  type PointResult,
  prepareInputs,
  type Reference,
  reference,
  SCENARIOS,
} from './scenarios.js';

const n = Number(process.env.SNOWDB_CRASH_N ?? 100);
const random = seeded(Number(process.env.SNOWDB_CRASH_SEED ?? 21));
const work = await mkdtemp(join(tmpdir(), 'snowdb-crash-'));
process.env.TMPDIR = join(work, 'tmp');
await mkdir(process.env.TMPDIR);
const t0 = performance.now();
try {
  const inputs = join(work, 'inputs');
  await prepareInputs(inputs);
  const refs: Reference[] = [];
  for (const s of SCENARIOS) refs.push(await reference(s, inputs, work));
  const results: PointResult[] = [];
  for (let i = 0; i < n; i++) {
    const k = i % SCENARIOS.length;
    const at = Math.round(random() * 1.05 * refs[k]!.ms);
    const r = await killPoint(SCENARIOS[k]!, refs[k]!, inputs, work, at);
    results.push(r);
    console.log(
      `${i + 1}/${n} ${r.scenario}: kill at ${at} ms${r.finished ? ' (had finished)' : ''}; doctor: ${r.afterKill.length ? r.afterKill.join(', ') : 'clean'}`,
    );
  }
  console.log('\nscenario | uninterrupted ms | points | killed mid-run | doctor reported interrupted work');
  SCENARIOS.forEach((s, k) => {
    const mine = results.filter((r) => r.scenario === s.name);
    console.log(
      `${s.name} | ${Math.round(refs[k]!.ms)} | ${mine.length} | ${mine.filter((r) => !r.finished).length} | ${mine.filter((r) => r.afterKill.length > 0).length}`,
    );
  });
  console.log(`\n${n} kill points, every invariant held, ${((performance.now() - t0) / 1000).toFixed(0)} s`);
} finally {
  await rm(work, { recursive: true, force: true });
}
