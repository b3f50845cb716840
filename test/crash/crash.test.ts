/**
 * The fast part of `npm run test:crash`: each scenario killed once, at a moment chosen from its
 * uninterrupted time (the swap scenario inside its paused swap, the others past half-way).
 */
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { tempDir } from '../helpers/cli.js';
import { killPoint, prepareInputs, reference, SCENARIOS } from './scenarios.js';

describe('crash: a command killed with SIGKILL leaves whole dates, and its rerun converges', () => {
  let dir: string;
  let cleanup: () => Promise<void>;
  let inputs: string;
  const tmpdirBefore = process.env.TMPDIR;
  before(async () => {
    ({ dir, cleanup } = await tempDir());
    // The killed processes' temp-dir staging stays in this test's own temp dir (restored after:
    // other test files may share this process).
    process.env.TMPDIR = await mkdtemp(join(dir, 'tmp-'));
    inputs = join(dir, 'inputs');
    await prepareInputs(inputs);
  });
  after(async () => {
    await rm(process.env.TMPDIR!, { recursive: true, force: true });
    if (tmpdirBefore === undefined) delete process.env.TMPDIR;
    else process.env.TMPDIR = tmpdirBefore;
    await cleanup();
  });

  for (const s of SCENARIOS) {
    it(s.name, async () => {
      const ref = await reference(s, inputs, dir);
      // Earlier and earlier until a kill lands before the end (this machine's speed varies).
      const fractions = s.env?.SNOWDB_TEST_SWAP_PAUSE_MS ? [1 - 450 / ref.ms, 0.5] : [0.6, 0.4, 0.25];
      const points = [];
      for (const f of fractions) {
        const r = await killPoint(s, ref, inputs, dir, Math.max(0, Math.round(f * ref.ms)));
        points.push(r);
        if (!r.finished) break;
      }
      assert.ok(
        points.some((r) => !r.finished),
        `${s.name}: every kill came after the end (${points.map((r) => r.killAtMs).join(', ')} ms)`,
      );
    });
  }
});
