/**
 * `npm run demo`: build a demo snowdb from data bundled in the repo, through the real CLI in the
 * spec's order, then serve the API and the web page.
 *   init → pourpoint sync (10 BAGIS basins and one delineated from the DEM, demo/basins) → dataset create (snodas, swann, instarr)
 *   → generate-zones (CC0 Zion SRTM DEM + NLCD 2011) → generated upstream files (scripts/demo/) →
 *   ingest → activate → stations sync (a local AWDB double: scripts/demo/stations.ts) → doctor → api serve
 * A second run reuses what is current: sources are kept, and each step converges.
 *
 * Options: --dir <folder> (default .demo; the database is <dir>/db, sources <dir>/sources),
 * --host <addr> (127.0.0.1), --port <n> (8000; 0 picks a free port), --no-serve (build only).
 */
import { spawn } from 'node:child_process';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { runCli } from '../src/cli/program.js';
import { mapPool } from '../src/util/pool.js';
import { startAwdbDouble } from './demo/awdb-double.js';
import { demoRegion } from './demo/region.js';
import { DEMO_DATES, HISTORY_DATES, HISTORY_YEARS, SPIRES_DATES, Terrain } from './demo/snow.js';
import { DEMO_TILES, type Produced, SOURCE_KINDS, type SourceKind } from './demo/sources.js';
import { demoWorld, STATIONS_LAST_DAY } from './demo/stations.js';
import { withHugePages } from './huge-pages.js';

const repo = fileURLToPath(new URL('../..', import.meta.url));
const cli = fileURLToPath(new URL('../src/cli/main.js', import.meta.url));
const USAGE = `usage: npm run demo [-- --dir <folder>] [--host <host>] [--port <port>] [--no-serve]

Builds a demo snow database from data bundled in this repository (in <folder>/db, default .demo),
then serves it (web page http://<host>:<port>/app/, default 127.0.0.1:8000). A second run reuses
what the first built. --no-serve builds and stops.`;
const parsed = (() => {
  try {
    return parseArgs({
      options: {
        dir: { type: 'string', default: `${repo}.demo` },
        host: { type: 'string', default: '127.0.0.1' },
        port: { type: 'string', default: '8000' },
        'no-serve': { type: 'boolean', default: false },
        help: { type: 'boolean', short: 'h', default: false },
      },
    });
  } catch (e) {
    console.error(`${(e as Error).message}\n\n${USAGE}`);
    process.exit(2);
  }
})();
const opts = parsed.values;
if (opts.help) {
  console.log(USAGE);
  process.exit(0);
}
const dir = resolve(opts.dir);
const root = `${dir}/db`;
const env = withHugePages({ ...process.env, SNOWDB_CONFIG: root });
const zion = `${repo}test/fixtures/zion`;
const started = Date.now();
const seconds = (t0: number) => `${((Date.now() - t0) / 1000).toFixed(1)} s`;

/**
 * Run a node script (`args[0]`) with `args` in a process of its own (generators run two at a
 * time); its stdout is returned. The demo stops on the first failure, naming what failed.
 */
async function node(args: string[]): Promise<string> {
  const child = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'inherit'], env });
  let out = '';
  child.stdout?.setEncoding('utf8').on('data', (c: string) => (out += c));
  const code = await new Promise<number | null>((ok) => child.on('close', ok));
  if (code !== 0) {
    process.stderr.write(`demo step failed (exit ${code}): ${args.join(' ')}\n`);
    process.exit(code ?? 1);
  }
  return out;
}

/**
 * Run one snowdb command as a user would, echoing it and its time: through the CLI's own entry
 * (`runCli`, what bin/snowdb runs) in this process, which saves a process start (~0.5 CPU-s) a
 * step. The demo stops on the first failure, naming what failed.
 */
async function step(title: string, args: string[], extra: Record<string, string> = {}): Promise<void> {
  process.stderr.write(`\n$ snowdb ${args.join(' ')}    # ${title}\n`);
  const t0 = Date.now();
  const code = await runCli(args, { stdout: process.stdout, stderr: process.stderr }, { ...env, ...extra });
  if (code !== 0) {
    process.stderr.write(`demo step failed (exit ${code}): snowdb ${args.join(' ')}\n`);
    process.exit(code);
  }
  process.stderr.write(`  (${seconds(t0)})\n`);
}

const DATASETS = [
  ['snodas', 'snodas'],
  ['swann', 'swann-800m'],
  ['instarr', 'instarr'],
] as const;

await step('create (or reuse) the demo database', ['init', root]);
await step('mirror the bundled BAGIS basin records', ['pourpoint', 'sync', `${repo}demo/basins`]);
for (const [name, template] of DATASETS) {
  await step(`stage the ${template} dataset: area raster, AOI rasters, coverage`, [
    'dataset',
    'create',
    name,
    '--template',
    template,
  ]);
}
await step('zone layers for all three datasets in one read of each source (CC0 Zion SRTM DEM, NLCD 2011)', [
  'dataset',
  'generate-zones',
  ...DATASETS.map(([n]) => n),
  '--source',
  'terrain',
  `${zion}/srtm.tif`,
  '--source',
  'landcover',
  `${zion}/nlcd2011.tif`,
]);

// Generate the upstream files of each source in its own process, two at a time; each dataset is
// ingested as soon as its files exist (ingests run one at a time, in the order generation ends).
process.stderr.write(
  `\n# upstream files for spring 2025 (${DEMO_DATES.length} SNODAS and SWANN dates, ${SPIRES_DATES.length} SPIRES dates of ${DEMO_TILES.length} tiles) and SWANN history (${HISTORY_DATES.length} dates of water years ${HISTORY_YEARS[0]}–${HISTORY_YEARS.at(-1)}), generated into ${dir}/sources\n`,
);
const INGEST: Record<SourceKind, [dataset: string, title: string]> = {
  snodas: ['snodas', 'SNODAS daily tars → per-date COGs'],
  swann: ['swann', 'UA SWANN daily NetCDF → per-date COGs'],
  spires: ['instarr', 'SPIRES NRT tiles (a folder in the upstream layout) → per-date mosaics'],
};
let ingests = Promise.resolve();
await mapPool(SOURCE_KINDS, 2, async (kind) => {
  const t0 = Date.now();
  const r = await node([
    fileURLToPath(new URL('./demo/generate.js', import.meta.url)),
    kind,
    `${dir}/sources`,
  ]);
  const { files, written, total } = JSON.parse(r) as Produced;
  process.stderr.write(
    `# ${kind}: ${written} file(s) generated, ${total - written} reused (${seconds(t0)})\n`,
  );
  const [dataset, title] = INGEST[kind];
  ingests = ingests.then(() => step(title, ['dataset', 'ingest', dataset, ...files]));
});
await ingests;
for (const [name] of DATASETS) await step(`make ${name} visible to readers`, ['dataset', 'activate', name]);
// Stations: a local AWDB double serves the demo's SNOTEL sites, snow courses and forecast points
// (generated from the same snow model as the grids); the sync is the one a user runs against AWDB.
{
  const t0 = Date.now();
  const basins = `${repo}demo/basins/`;
  const world = await demoWorld(basins, await Terrain.load(`${zion}/srtm.tif`, await demoRegion(basins)));
  const awdb = await startAwdbDouble(world);
  process.stderr.write(
    `\n# a local AWDB double on ${awdb.url}: ${world.stations.length} stations, ${world.forecasts.size} forecast points (${seconds(t0)})\n`,
  );
  try {
    await step(
      'AWDB station metadata, the records of stations near the basins, the forecast points',
      ['stations', 'sync', '--through', STATIONS_LAST_DAY],
      { SNOWDB_AWDB_URL: awdb.url, SNOWDB_AWDB_INTERVAL_MS: '0' },
    );
  } finally {
    await awdb.close();
  }
}
await step('check every artifact', ['doctor']);
process.stderr.write(`\ndemo database ready in ${seconds(started)}: ${root}\n`);

if (opts['no-serve']) process.exit(0);

const examples = [
  `export SNOWDB_CONFIG=${root}`,
  'npx snowdb stats snodas NORTHCK:UT:DEMO --variable swe --zone terrain.elevation --format csv',
  'npx snowdb stats swann 09408150:UT:USGS --dates 2025-03-01/2025-03-31 --zone terrain.aspect --zone landcover.forest_cover',
  'npx snowdb stats instarr 10128500:UT:USGS --variable snow_fraction --variable grain_size',
];
const server = spawn(
  process.execPath,
  [cli, 'api', 'serve', '--host', opts.host, '--port', opts.port, '--log-level', 'warn'],
  {
    env,
    stdio: ['ignore', 'inherit', 'pipe'],
  },
);
let announced = false;
server.stderr.setEncoding('utf8');
server.stderr.on('data', (chunk: string) => {
  process.stderr.write(chunk);
  const url = /snowdb API on (http:\/\/\S+?)\/?\s/.exec(chunk)?.[1];
  if (url === undefined || announced) return;
  announced = true;
  process.stderr.write(
    [
      '',
      `web page     ${url}/app/`,
      `API          ${url}/`,
      `API docs     ${url}/docs  (ReDoc: ${url}/redoc)`,
      '',
      'try, in another terminal:',
      ...examples.map((e) => `  ${e}`),
      '',
      'Ctrl-C stops the server.',
      '',
    ].join('\n'),
  );
});
for (const sig of ['SIGINT', 'SIGTERM'] as const) process.on(sig, () => server.kill(sig));
server.on('exit', (code) => process.exit(code ?? 0));
