/**
 * A water year of every basin to Parquet at national scale (issue 68): on the water-year scale
 * fixture (bench/fixture/scale.ts with `waterYear`: SNOWDB_BENCH_WY_BASINS HUC12s, default 10⁵
 * over CONUS, 366 distinct days), `snowdb export` of whole-basin SWE as a fresh process (its caches
 * empty; peak RSS from GNU time) interleaved with the sparse rival (bench/sparse.py: weights built
 * once, outside the timing; each date one GDAL read and two `W @ x`), which computes every mean
 * and writes nothing. Before timing, the export's row count is checked (basins × dates) and the
 * kept basins' every mean equal to the rival's to 1e-9 relative (nulls alike).
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import { REPO } from './cli.js';
import { exportOnce } from './export.bench.js';
import { scaleDatabase } from './fixture/scale.js';
import { Baseline } from './speed.bench.js';
import { median, spread } from './stats.js';

/** Basins whose every date is compared with the rival (spread over the sorted triplets). */
const KEPT = 64;

/** The export this bench times: every basin's whole-basin SWE of every date to Parquet. */
const exportWaterYear = (root: string, out: string) =>
  exportOnce(root, ['snodas', '--variable', 'swe', '--to', 'parquet'], out);

/** The export's row count, its triplets, and the kept basins' means by date. */
async function readExport(out: string, keep: readonly string[] | null) {
  const c = await (await DuckDBInstance.create(':memory:')).connect();
  const rows = Number(
    (await c.runAndReadAll(`select count(*) from read_parquet('${out}')`)).getRows()[0]![0],
  );
  const triplets = (await c.runAndReadAll(`select distinct pourpoint from read_parquet('${out}') order by 1`))
    .getRows()
    .map((r) => String(r[0]));
  const means = new Map<string, Map<string, number | null>>();
  if (keep !== null) {
    const list = keep.map((t) => `'${t.replaceAll("'", "''")}'`).join(',');
    const got = await c.runAndReadAll(
      `select pourpoint, strftime(date, '%Y-%m-%d'), mean_swe_mm from read_parquet('${out}') where pourpoint in (${list})`,
    );
    for (const [p, d, v] of got.getRows()) {
      const m = means.get(String(p)) ?? new Map<string, number | null>();
      m.set(String(d), v === null ? null : Number(v));
      means.set(String(p), m);
    }
  }
  return { rows, triplets, means };
}

type RivalAnswer = { seconds: number; basins: Record<string, Record<string, number | null>> };

export async function waterYearRow(reps: number): Promise<Record<string, string>> {
  const n = Number(process.env.SNOWDB_BENCH_WY_BASINS ?? 100_000);
  const b = await scaleDatabase(n, { waterYear: true, log: (m) => console.error(m) });
  const dir = await mkdtemp(join(dirname(b.root), 'wy-bench-'));
  const out = join(dir, 'wy.parquet');
  const rival = new Baseline([join(REPO, 'bench/sparse.py'), 'loop', b.root, b.dataset]);
  try {
    const setup = (await rival.call({ setup: null })) as { setup_seconds: number; basins: number };
    console.error(
      `water-year rival: weights of ${setup.basins} basins in ${setup.setup_seconds.toFixed(0)} s`,
    );
    // The same numbers first: every row there, the kept basins' every mean the rival's.
    exportWaterYear(b.root, out);
    const all = (await readExport(out, null)).triplets;
    const keep = Array.from(
      { length: Math.min(KEPT, all.length) },
      (_, i) => all[Math.floor((i * all.length) / KEPT)]!,
    );
    const ours = await readExport(out, keep);
    if (ours.rows !== all.length * b.dates.length || all.length !== setup.basins)
      throw new Error(
        `export: ${ours.rows} rows of ${all.length} basins; want ${setup.basins} × ${b.dates.length}`,
      );
    const ask = () => rival.call({ dates: b.dates, variable: 'swe', keep }) as Promise<RivalAnswer>;
    const theirs = await ask();
    for (const t of keep)
      for (const d of b.dates) {
        const x = ours.means.get(t)?.get(d);
        const y = theirs.basins[t]?.[d];
        const same =
          x === null || y === null
            ? x === y
            : x !== undefined && y !== undefined && Math.abs(x - y) <= 1e-9 * Math.max(1, Math.abs(y));
        if (!same) throw new Error(`water year: ${t} ${d}: snowdb ${x}, the rival ${y}`);
      }
    const mine: number[] = [];
    const mib: number[] = [];
    const rivals: number[] = [];
    for (let i = 0; i < reps; i++) {
      const e = exportWaterYear(b.root, out);
      mine.push(e.ms);
      mib.push(e.mib);
      rivals.push((await ask()).seconds * 1000);
      console.error(
        `water year round ${i + 1}: snowdb ${(e.ms / 1000).toFixed(1)} s, rival ${(rivals.at(-1)! / 1000).toFixed(1)} s`,
      );
    }
    return {
      scenario: `${all.length.toLocaleString('en-US')} basins × ${b.dates.length} dates, whole-basin SWE → Parquet (snowdb: a fresh process, peak ${spread(mib, 0, 'MiB')}; the rival computes the means, writes nothing)`,
      snowdb: spread(mine, 0),
      baseline: spread(rivals, 0),
      ratio: `${(median(mine) / median(rivals)).toFixed(1)}× the rival`,
      target: '≤ 3 min',
    };
  } finally {
    rival.close();
    await rm(dir, { recursive: true, force: true });
  }
}
