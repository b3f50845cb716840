/**
 * `npm run demo`: builds a demo database under .demo/ from bundled sample data through the real
 * CLI, in the spec's order: init, pourpoints (the BAGIS records bundled under test/fixtures), the
 * three datasets, zone layers from the bundled Zion DEM and NLCD, then status. Later issues add
 * ingest and the server.
 */
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const repo = fileURLToPath(new URL('../..', import.meta.url));
const cli = fileURLToPath(new URL('../src/cli/main.js', import.meta.url));
const root = process.env.SNOWDB_DEMO_DIR ?? `${repo}.demo/db`;
const records = `${repo}test/fixtures/pourpoints`;
const zion = `${repo}test/fixtures/zion`;

function step(title: string, args: string[]): void {
  process.stderr.write(`\n$ snowdb ${args.join(' ')}    # ${title}\n`);
  const r = spawnSync(process.execPath, [cli, ...args], {
    stdio: 'inherit',
    env: { ...process.env, SNOWDB_CONFIG: root },
  });
  if (r.status !== 0) {
    process.stderr.write(`demo step failed (exit ${r.status}): snowdb ${args.join(' ')}\n`);
    process.exit(r.status ?? 1);
  }
}

step('create (or reuse) the demo database', ['init', root]);
step('mirror the bundled basin records (point-only ones are skipped)', ['pourpoint', 'sync', records]);
step('add a Virgin River basin under the bundled Zion DEM and land cover', [
  'pourpoint',
  'import',
  `${zion}/pourpoints/09406000_UT_USGS.geojson`,
]);
step('one basin whose outflow point lies far from its polygon', ['pourpoint', 'show', '09021000:CO:USGS']);
for (const [name, template] of [
  ['snodas', 'snodas'],
  ['swann', 'swann-800m'],
  ['instarr', 'instarr'],
]) {
  step(`stage the ${template} dataset: area raster, AOI rasters, coverage`, [
    'dataset',
    'create',
    name!,
    '--template',
    template!,
  ]);
}
step('zone layers for all three datasets in one read of each source (CC0 Zion SRTM DEM, NLCD 2011)', [
  'dataset',
  'generate-zones',
  'snodas',
  'swann',
  'instarr',
  '--source',
  'terrain',
  `${zion}/srtm.tif`,
  '--source',
  'landcover',
  `${zion}/nlcd2011.tif`,
]);
step('what the SNODAS dataset holds', ['dataset', 'info', 'snodas']);
step('coverage of every basin per dataset', ['pourpoint', 'list']);
step('what is in it', ['status']);
process.stderr.write(
  `\ndemo database: ${root}\ntry: SNOWDB_CONFIG=${root} npx snowdb status --format json\n`,
);
