/** `npm run bench`: runs every scenario and prints a table of medians; record results in BENCHMARKS.md. */
import { cpus, loadavg } from 'node:os';
import { BASIN_STAGES, basinsBench } from './basins.bench.js';
import { datasetsBench } from './datasets.bench.js';
import { exportRow } from './export.bench.js';
import { benchYears, dailyDatabase } from './fixture/daily.js';
import { benchDatabase } from './fixture/database.js';
import { coldRow, memoryRow } from './footprint.bench.js';
import { ingestBench } from './ingest.bench.js';
import { rasterBench } from './raster.bench.js';
import { rivalsBench } from './rivals.bench.js';
import { scaleBench } from './scale.bench.js';
import { speedBench } from './speed.bench.js';
import { statsBench } from './stats.bench.js';
import { storeIngestRow } from './store-ingest.bench.js';
import { waterYearRow } from './water-year.bench.js';
import { webBench } from './web.bench.js';

const only = process.argv[2];
const rows = [
  ...(only === undefined || only === 'raster' ? await rasterBench() : []),
  ...(only === undefined || only === 'datasets' ? await datasetsBench() : []),
  ...(only === undefined || only === 'ingest' ? await ingestBench() : []),
  ...(only === undefined || only === 'stats' ? await statsBench() : []),
];
const reps = Number(process.env.SNOWDB_BENCH_REPS ?? 7);
const speed = [
  ...(only === undefined || only === 'speed' ? await speedBench() : []),
  ...(only === undefined || only === 'store-ingest'
    ? [await storeIngestRow(await dailyDatabase(benchYears()), benchYears())]
    : []),
  ...(only === undefined || only === 'web' ? await webBench(reps) : []),
  ...(only === undefined || only === 'export'
    ? [await exportRow(await dailyDatabase(benchYears()), Math.min(reps, 3))]
    : []),
  ...(only === undefined || only === 'scale' ? await scaleBench(Math.min(reps, 3)) : []),
  // National: minutes a round and a 10⁵-basin fixture (~6 min to build); only when asked for.
  ...(only === 'water-year' ? [await waterYearRow(Math.min(reps, 3))] : []),
  ...(only === undefined || only === 'footprint'
    ? [
        memoryRow(await benchDatabase(), Math.min(reps, 3)),
        await coldRow(await benchDatabase(), Math.min(reps, 5)),
      ]
    : []),
];
const rivals = only === undefined || only === 'rivals' ? await rivalsBench() : [];
const basins =
  only === undefined || only === 'basins' ? await basinsBench(Math.min(reps, 5)) : { rows: [], stages: [] };
console.log(`machine: ${cpus()[0]?.model ?? '?'} × ${cpus().length}, Node ${process.version}`);
/** Print rows as a Markdown table of `cols`. */
function table(cols: string[], rows: readonly Record<string, string>[]): void {
  if (rows.length === 0) return;
  const widths = cols.map((c) => Math.max(c.length, ...rows.map((r) => (r[c] ?? '').length)));
  const line = (cells: string[]) => `| ${cells.map((c, i) => c.padEnd(widths[i]!)).join(' | ')} |`;
  console.log(line(cols));
  console.log(line(widths.map((w) => '-'.repeat(w))));
  for (const r of rows) console.log(line(cols.map((c) => r[c] ?? '')));
}
console.log(
  `load average: ${loadavg()
    .map((x) => x.toFixed(2))
    .join(' ')}`,
);
table(['scenario', 'median_ms', 'target'], rows);
table(['scenario', 'snowdb', 'baseline', 'ratio', 'target'], speed as unknown as Record<string, string>[]);
table(
  [
    'scenario',
    'snowdb, caches empty',
    'snowdb, warm',
    'gdal loop',
    'zarr-lz4',
    'zarr-zstd',
    'memmap',
    'zarr-lz4 ÷ snowdb',
    'snowdb ÷ memmap',
    'target',
  ],
  rivals,
);
table(
  [
    'scenario',
    'snowdb, caches empty',
    'snowdb, warm',
    'sparse W·x',
    'warm ÷ sparse',
    'caches empty ÷ sparse',
  ],
  basins.rows,
);
table(BASIN_STAGES, basins.stages);
