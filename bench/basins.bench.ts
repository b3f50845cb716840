/**
 * National scale (issue 68): how an every-basin answer grows with the number of basins over the
 * same pixels. Per size (SNOWDB_BENCH_BASINS, default 1000,10000: HUC12s of one tessellated
 * western box, bench/fixture/scale.ts), one date of every basin, whole basins and 1,000-ft bands:
 * snowdb with its caches empty (a fresh runtime per query, in a process of its own:
 * bench/snowdb-side.ts) and warm (in this process), against the strongest rival run as its users
 * run it: a server that built its sparse weights once (bench/sparse.py, scipy CSR, set-up outside
 * the timed loop) and makes each date one `W @ x`. Every basin's every mean is checked equal to
 * 1e-9 (and the sets of basins equal) before the sides run interleaved. Also printed: each size's
 * build stages (import, zones, series, doctor) and the rival's weight set-up.
 */
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Database } from '../src/db/database.js';
import { type AllBasinsQuery, computeAllBasins } from '../src/stats/all-basins.js';
import type { CompactStats } from '../src/stats/engine.js';
import { REPO } from './cli.js';
import { scaleDatabase } from './fixture/scale.js';
import { SCALE_DATASETS, type ScaleDatasetName, scaleDataset } from './fixture/scale-datasets.js';
import { digestOf, type SideQuery } from './snowdb-side.js';
import { assertSame, Baseline, type BaselineAnswer } from './speed.bench.js';
import { elapsed, median, spread } from './stats.js';

type Row = Record<string, string>;
const SIZES = (process.env.SNOWDB_BENCH_BASINS ?? '1000,10000').split(',').map(Number);
/** The datasets asked (SNOWDB_BENCH_DATASETS: snodas, swann, spires; bench/fixture/scale-datasets.ts). */
const DATASETS = (process.env.SNOWDB_BENCH_DATASETS ?? 'snodas').split(',');

/** Size `n`'s database with dataset `name` in it, the variable asked of it and that dataset's build stages. */
async function fixtureOf(n: number, name: string) {
  const log = (m: string) => console.error(m);
  if (name === 'snodas') {
    const b = await scaleDatabase(n, { log });
    return { ...b, variable: 'swe', stages: b.stages };
  }
  if (!(name in SCALE_DATASETS))
    throw new Error(
      `SNOWDB_BENCH_DATASETS: unknown dataset ${name} (snodas, ${Object.keys(SCALE_DATASETS).join(', ')})`,
    );
  const d = await scaleDataset(n, name as ScaleDatasetName, { log });
  return { ...d, dataset: d.name, stages: { basins: d.basins, ...d.own } };
}
/** Sizes from here tile CONUS (bench/fixture/scale.ts), not the western box: no growth row. */
const NATIONAL = 50_000;
const SIDES = ['snowdb, caches empty', 'snowdb, warm', 'sparse W·x'] as const;
type Side = (typeof SIDES)[number];

interface Answered {
  readonly seconds: number;
  readonly basins: Record<string, BaselineAnswer['results']>;
}

/** Rows of the basins table and of the stages table. */
export interface BasinsBench {
  readonly rows: Row[];
  readonly stages: Row[];
}

export async function basinsBench(reps: number): Promise<BasinsBench> {
  const rows: Row[] = [];
  const stages: Row[] = [];
  /** Scenario → side → median ms per size, for the growth rows. */
  const growth = new Map<string, Map<Side, number[]>>();
  for (const n of SIZES)
    for (const name of DATASETS) {
      const b = await fixtureOf(n, name);
      const date = b.dates[1]!;
      const rival = new Baseline([join(REPO, 'bench/sparse.py'), 'loop', b.root, b.dataset]);
      const side = new Baseline(
        [fileURLToPath(new URL('./snowdb-side.js', import.meta.url)), 'loop'],
        process.execPath,
      );
      const warm = await Database.open(b.root);
      try {
        const setup: Record<string, number> = {};
        for (const step of [null, 1000]) {
          const s = (await rival.call({ setup: step })) as { setup_seconds: number };
          setup[step === null ? 'weights' : 'weights, bands'] = s.setup_seconds * 1000;
        }
        stages.push(stageRow(b.basins, b.dataset, { ...b.stages, ...setup }));
        for (const step of [undefined, 1000]) {
          const label = `${b.dataset}: one date, every basin, ${b.variable}${step ? ', 1,000-ft bands' : ''}`;
          const q: AllBasinsQuery = {
            dataset: b.dataset,
            dates: { type: 'DateRange', start_date: date, end_date: date },
            variables: [b.variable],
            ...(step ? { zones: [`terrain.elevation:band_step_ft=${step}`] } : {}),
          };
          const ask = () =>
            rival.call({
              date,
              variable: b.variable,
              ...(step ? { band_step_ft: step } : {}),
            }) as Promise<Answered>;
          const ours = await computeAllBasins(warm, q);
          checkSame(`${n} basins, ${label}`, ours, await ask(), step);
          const times = new Map<Side, number[]>(SIDES.map((s) => [s, []]));
          const digests = new Set<string>();
          const m: SideQuery = { root: b.root, all: q };
          for (let i = -1; i < reps; i++) {
            const add = (s: Side, ms: number) => i >= 0 && times.get(s)!.push(ms);
            const fresh = (await side.call(m)) as { seconds: number; digest: string };
            digests.add(fresh.digest);
            add('snowdb, caches empty', fresh.seconds * 1000);
            add('snowdb, warm', await elapsed(() => computeAllBasins(warm, q)));
            add('sparse W·x', (await ask()).seconds * 1000);
          }
          if (digests.size !== 1 || !digests.has(digestOf(ours)))
            throw new Error(`${label}: the caches-empty side answered otherwise than the warm runtime`);
          rows.push(row(`${b.basins.toLocaleString('en-US')} basins: ${label}`, times));
          console.error(JSON.stringify(rows.at(-1)));
          if (n < NATIONAL) {
            const g = growth.get(label) ?? new Map<Side, number[]>();
            for (const s of SIDES) g.set(s, [...(g.get(s) ?? []), median(times.get(s)!)]);
            growth.set(label, g);
          }
        }
      } finally {
        rival.close();
        side.close();
        await warm.runtime.close();
      }
    }
  // How each side's time grows from the smallest western size to the largest (the same pixels).
  const western = SIZES.filter((n) => n < NATIONAL);
  if (western.length > 1)
    for (const [label, g] of growth) {
      const r: Row = { scenario: `growth ${western[0]} → ${western.at(-1)} basins: ${label}` };
      for (const [s, xs] of g) r[s] = `${(xs.at(-1)! / xs[0]!).toFixed(1)}×`;
      rows.push(r);
    }
  return { rows, stages };
}

/** The same basins, and every mean of each equal to 1e-9 relative (nulls where the other has none). */
function checkSame(
  label: string,
  ours: Awaited<ReturnType<typeof computeAllBasins>>,
  theirs: Answered,
  step?: number,
) {
  const mine = ours.basins.map((x) => x.pourpoint).sort();
  const their = Object.keys(theirs.basins).sort();
  if (mine.join() !== their.join())
    throw new Error(`${label}: snowdb answers ${mine.length} basins, the rival ${their.length}`);
  for (const basin of ours.basins)
    assertSame(
      `${label}: ${basin.pourpoint}`,
      { ...ours, ...basin } as unknown as CompactStats,
      { seconds: 0, results: theirs.basins[basin.pourpoint]! },
      step,
    );
}

function row(label: string, times: Map<Side, number[]>): Row {
  const m = (s: Side) => median(times.get(s)!);
  const r: Row = { scenario: label };
  for (const s of SIDES) r[s] = spread(times.get(s)!, 0);
  r['warm ÷ sparse'] = `${(m('snowdb, warm') / m('sparse W·x')).toFixed(1)}×`;
  r['caches empty ÷ sparse'] = `${(m('snowdb, caches empty') / m('sparse W·x')).toFixed(1)}×`;
  return r;
}

const STAGES = [
  'import huc12',
  'dataset create',
  'generate-zones',
  'rebuild-series',
  'doctor',
  'weights',
  'weights, bands',
];

function stageRow(basins: number, dataset: string, ms: Record<string, number>): Row {
  const r: Row = { basins: basins.toLocaleString('en-US'), dataset };
  for (const s of STAGES) r[s] = ms[s] === undefined ? '' : `${(ms[s] / 1000).toFixed(1)} s`;
  return r;
}

export const BASIN_STAGES = ['basins', 'dataset', ...STAGES];
