/**
 * The fast part of `npm run test:crash`: each scenario killed once, at a moment chosen from its
 * uninterrupted time (the swap scenario inside its paused swap, the others past half-way).
 */
import assert from 'node:assert/strict';
import { copyFile, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { Layout } from '../../src/db/layout.js';
import { snowdb, tempDir } from '../helpers/cli.js';
import { logicalTree, treeDiff } from '../helpers/fs.js';
import { buildZionDb } from '../helpers/zion-db.js';
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

  it('pourpoint sync killed between its records and its index (that state made by hand): the rerun rebuilds the stale index entry and AOI raster', async () => {
    const sync = join(inputs, 'sync');
    const run = async (crashed: boolean) => {
      const env = await buildZionDb(await mkdtemp(join(dir, 'journal-')));
      const root = env.SNOWDB_CONFIG!;
      if (crashed) {
        // What the killed run had written: the journal first, then both records (byte for byte
        // the source's); the index and the AOI rasters still the old ones.
        await writeFile(
          join(root, Layout.pourpointPending),
          JSON.stringify({ aoi: ['09406000:UT:USGS', 'NEAR:UT:TEST'], pruned: [] }),
        );
        for (const f of ['09406000_UT_USGS.geojson', 'NEAR_UT_TEST.geojson'])
          await copyFile(join(sync, f), join(root, 'pourpoints', f));
      }
      const r = await snowdb(['pourpoint', 'sync', sync], { env });
      assert.equal(r.code, 0, r.stderr);
      return { tree: await logicalTree(root), out: r.stdout };
    };
    const ref = await run(false);
    assert.match(ref.out, /1 new, 1 updated/);
    const rerun = await run(true);
    // Its records already current, the rerun finds them unchanged; the journal still names them.
    assert.match(rerun.out, /0 new, 0 updated\), 2 unchanged/);
    assert.deepEqual(treeDiff(ref.tree, rerun.tree), []);
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
