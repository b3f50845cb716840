import { type Command, Option } from 'commander';
import { type DatasetInfo, datasetInfo, rebuildSeriesOf } from '../../app/datasets.js';
import { listDatasets } from '../../datasets/inventory.js';
import { createDataset, registerDataset, setDatasetActive } from '../../datasets/lifecycle.js';
import { openDataset } from '../../datasets/registry.js';
import { TEMPLATE_NAMES } from '../../datasets/templates.js';
import { BLOCK } from '../../series/page.js';
import type { Runner } from '../context.js';
import { emit, type Format, formatOption } from '../options.js';
import { renderTable } from '../output.js';
import { progressBar } from '../progress.js';
import { registerFetch } from './fetch.js';
import { registerIngest } from './ingest.js';
import { registerDateCommands } from './maintenance.js';
import { registerZoneCommands } from './zones.js';

export function registerDatasetCommands(program: Command, run: Runner): void {
  const group = program
    .command('dataset')
    .description(
      'gridded datasets: create, register, activate, generate-zones, ingest, fetch, dates, remove-date, list, info',
    );

  group
    .command('create')
    .description(
      'stage data/<name>/ from a template: config, area raster, AOI rasters of every indexed basin; registers it inactive',
    )
    .argument('<name>', 'dataset name (letters, digits, - and _)')
    .addOption(
      new Option('--template <template>', 'built-in template').choices(TEMPLATE_NAMES).makeOptionMandatory(),
    )
    .action((name: string, opts: { template: string }, cmd: Command) =>
      run(cmd, async (ctx) => {
        const db = await ctx.openDatabase();
        const r = await createDataset(db, name, opts.template, progressBar(ctx.out, `${name}: basins`));
        ctx.out.data(
          `${r.configWritten ? 'created' : 'dataset already created:'} ${r.name} (${r.template}) at ${r.dir}; ` +
            `area raster ${r.areaRaster}; AOI rasters: ${r.aoi.built} built, ${r.aoi.current} current, ${r.aoi.removed} removed; ` +
            `coverage: ${r.coverage.full} full, ${r.coverage.partial} partial, ${r.coverage.none} none`,
        );
        if (r.registered) {
          ctx.out.info(
            `registered ${r.name} (inactive; generate zones with 'snowdb dataset generate-zones ${r.name}', activate with 'snowdb dataset activate ${r.name}')`,
          );
        }
      }),
    );

  group
    .command('register')
    .description(
      'register an external dataset config, inactive, without staging (coverage reads none until pourpoint reindex)',
    )
    .argument('<name>', 'dataset name')
    .argument('<config>', 'path of a dataset.json')
    .action((name: string, config: string, _opts: unknown, cmd: Command) =>
      run(cmd, async (ctx) => {
        const path = await registerDataset(await ctx.openDatabase(), name, config);
        ctx.out.data(
          `registered ${name} -> ${path} (inactive; run 'snowdb pourpoint reindex' to compute coverage, then 'snowdb dataset activate ${name}')`,
        );
      }),
    );

  for (const active of [true, false]) {
    const verb = active ? 'activate' : 'deactivate';
    group
      .command(verb)
      .description(active ? 'make a dataset visible to readers (stats, API)' : 'hide a dataset from readers')
      .argument('<name>', 'dataset name')
      .action((name: string, _opts: unknown, cmd: Command) =>
        run(cmd, async (ctx) => {
          const changed = await setDatasetActive(await ctx.openDatabase(), name, active);
          ctx.out.data(changed ? `${verb}d ${name}` : `${name} is already ${active ? 'active' : 'inactive'}`);
        }),
      );
  }

  registerIngest(group, run);
  registerFetch(group, run);
  registerDateCommands(group, run);
  registerZoneCommands(group, run);

  group
    .command('list')
    .description('registered datasets: active flag, template, dates')
    .addOption(formatOption())
    .action((opts: { format: Format }, cmd: Command) =>
      run(cmd, async (ctx) => {
        const rows = await listDatasets(await ctx.openDatabase('read'));
        emit(ctx.out, opts.format, rows, () =>
          rows.length === 0
            ? "no datasets yet (create one with 'snowdb dataset create <name> --template <t>')"
            : renderTable(
                ['dataset', 'active', 'template', 'dates', 'first', 'last'],
                rows.map((r) => [
                  r.name,
                  r.active ? 'yes' : 'no',
                  r.template ?? '',
                  String(r.dates),
                  r.first_date ?? '',
                  r.last_date ?? '',
                ]),
              ),
        );
      }),
    );

  group
    .command('rebuild-series')
    .description(
      'rebuild the derived time-contiguous store (series/) of a dataset from its COGs: every basin block, every date',
    )
    .argument('<name>', 'dataset name')
    .option('--queue <redis-url>', "write the pages as jobs on this Redis queue's workers (snowdb worker)")
    .addOption(formatOption())
    .action((name: string, opts: { queue?: string; format: Format }, cmd: Command) =>
      run(cmd, async (ctx) => {
        const db = await ctx.openDatabase();
        const d = await openDataset(db, name);
        const pages =
          opts.queue === undefined
            ? undefined
            : await (await import('../../app/jobs.js')).queuedSeriesPages(db, opts.queue, ctx.settings);
        const r = await rebuildSeriesOf(db, d, progressBar(ctx.out, `${name}: series pages`), pages);
        emit(
          ctx.out,
          opts.format,
          r,
          () =>
            `rebuilt the series store of ${name}: ${r.variables.join(', ')}; ${r.dates} dates, ${r.blocks} blocks of ${BLOCK}², ${r.pages} pages (closed water years packed: ${r.packs} files), ${(r.bytes / 1e6).toFixed(1)} MB`,
        );
      }),
    );

  group
    .command('info')
    .description('one dataset: grid, variables and stat names, zone layers, dates')
    .argument('<name>', 'dataset name')
    .addOption(formatOption())
    .action((name: string, opts: { format: Format }, cmd: Command) =>
      run(cmd, async (ctx) => {
        const i = await datasetInfo(await ctx.openDatabase('read'), name);
        emit(ctx.out, opts.format, i, () => infoText(i));
      }),
    );
}

/** The text `dataset info` prints. */
function infoText(i: DatasetInfo): string {
  const g = i.grid;
  const lines = [
    `dataset   ${i.name} (${i.active ? 'active' : 'inactive'}), template ${i.template ?? '-'}, ingester ${i.ingester}`,
    `          ${i.description}`,
    `grid      ${g.crs} ${g.width} x ${g.height}, cell ${g.cell_width} x ${g.cell_height}, tile ${g.tile_size}, bounds ${g.bounds.join(', ')}${i.footprint ? ' (footprint declared)' : ''}`,
    `artifacts area raster ${i.area_raster ? 'present' : 'missing'}, ${i.aoi_rasters} AOI raster(s), zone layers: ${i.zone_layers.length ? i.zone_layers.join(', ') : 'none'}`,
    `dates     ${i.dates}${i.dates ? ` (${i.first_date} .. ${i.last_date})` : ''}`,
    '',
    renderTable(
      ['variable', 'stat', 'unit', 'dtype', 'nodata', 'scale', 'description'],
      i.variables.map((v) => [
        v.variable,
        v.stat,
        v.unit,
        v.dtype,
        String(v.nodata),
        String(v.scale_factor),
        v.description,
      ]),
    ),
  ];
  return lines.join('\n');
}
