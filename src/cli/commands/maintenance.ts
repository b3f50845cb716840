import type { Command } from 'commander';
import { datasetDates, removeDates } from '../../app/dates.js';
import { removePourpoints } from '../../app/pourpoints.js';
import { datasetValues } from '../../app/values.js';
import type { Runner } from '../context.js';
import { emit, emitRows, type Format, formatOption } from '../options.js';

/** `dataset dates`, `dataset values` and `dataset remove-date`. */
export function registerDateCommands(group: Command, run: Runner): void {
  group
    .command('dates')
    .description('ingested dates of a dataset, or with --missing the days without one')
    .argument('<name>', 'dataset name')
    .option('--missing', 'list the days with no date: between the first and last (or --from/--to)')
    .option('--from <date>', 'first day (YYYY-MM-DD or YYYYMMDD)')
    .option('--to <date>', 'last day (default: the last ingested; with --missing and --from: today)')
    .addOption(formatOption(['table', 'json', 'csv']))
    .action(
      (name: string, opts: { missing?: boolean; from?: string; to?: string; format: Format }, cmd: Command) =>
        run(cmd, async (ctx) => {
          const r = await datasetDates(await ctx.openDatabase(), name, opts);
          emitRows(
            ctx.out,
            opts.format,
            r,
            ['date'],
            r.dates.map((x) => [x]),
            r.kind === 'missing' ? `no missing days from ${r.from} to ${r.to}` : `${name}: no dates`,
          );
          if (opts.format === 'table')
            ctx.out.info(`${r.dates.length} ${r.kind === 'missing' ? 'missing day(s)' : 'date(s)'}`);
        }),
    );

  group
    .command('values')
    .description(
      'per variable of one date: min, max and mean of the valid cells (in its unit) and the nodata share',
    )
    .argument('<name>', 'dataset name')
    .option('--date <date>', 'the date (YYYY-MM-DD or YYYYMMDD; default: the last ingested)')
    .addOption(formatOption(['table', 'json', 'csv']))
    .action((name: string, opts: { date?: string; format: Format }, cmd: Command) =>
      run(cmd, async (ctx) => {
        const r = await datasetValues(await ctx.openDatabase(), name, opts);
        const num = (v: number | null) => (v === null ? '' : String(v));
        emitRows(
          ctx.out,
          opts.format,
          r,
          ['variable', 'unit', 'min', 'max', 'mean', 'nodata_pct'],
          r.variables.map((v) => [
            v.variable,
            v.unit,
            num(v.min),
            num(v.max),
            num(v.mean),
            v.nodata_pct.toFixed(3),
          ]),
        );
        if (opts.format === 'table') ctx.out.info(`${name} ${r.date}`);
      }),
    );

  group
    .command('remove-date')
    .description('delete ingested dates of a dataset (each atomically), and their pages of the series store')
    .argument('<name>', 'dataset name')
    .argument('<date...>', 'dates (YYYY-MM-DD or YYYYMMDD)')
    .option('--dry-run', 'say what would be removed; change nothing')
    .addOption(formatOption())
    .action((name: string, dates: string[], opts: { dryRun?: boolean; format: Format }, cmd: Command) =>
      run(cmd, async (ctx) => {
        const r = await removeDates(await ctx.openDatabase(), name, dates, {
          dryRun: opts.dryRun,
          pauseMs: ctx.settings.swapPauseMs,
        });
        emit(ctx.out, opts.format, r, () =>
          r.removed.map((x) => `${r.dryRun ? 'would remove' : 'removed'} ${name} ${x}`).join('\n'),
        );
      }),
    );
}

/** `pourpoint remove`. */
export function registerPourpointRemove(group: Command, run: Runner): void {
  group
    .command('remove')
    .description('delete pourpoints: their records, index entries and AOI rasters in every dataset')
    .argument('<triplet...>', 'station triplets, e.g. 06287000:MT:USGS')
    .option('--dry-run', 'say what would be removed; change nothing')
    .option('--force', 'remove basins that belong to a group too (the group keeps its other members)')
    .addOption(formatOption())
    .action((triplets: string[], opts: { dryRun?: boolean; force?: boolean; format: Format }, cmd: Command) =>
      run(cmd, async (ctx) => {
        const r = await removePourpoints(await ctx.openDatabase(), triplets, {
          dryRun: opts.dryRun,
          force: opts.force,
        });
        emit(ctx.out, opts.format, r, () =>
          r.removed
            .map((t) => `${r.dryRun ? 'would remove' : 'removed'} ${t}`)
            .concat(r.files.map((f) => `  ${r.dryRun ? 'would delete' : 'deleted'} ${f}`))
            .concat(r.groups.map((g) => `  ${r.dryRun ? 'would change' : 'changed'} ${g}`))
            .join('\n'),
        );
      }),
    );
}
