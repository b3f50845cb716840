import { stat } from 'node:fs/promises';
import { resolve } from 'node:path';
import { type Command, InvalidArgumentError, Option } from 'commander';
import { SnowdbError } from '../../errors.js';
import { FORMATS, type Format, LAYOUTS, type Layout } from '../../export/plan.js';
import { exportStats } from '../../export/run.js';
import { parseDateRange } from '../../stats/dates.js';
import { cliFlags, statsOptions } from '../../stats/query.js';
import { UNITS, type Units } from '../../stats/units.js';
import type { Runner } from '../context.js';
import { collect, emit, formatOption, type Format as OutFormat } from '../options.js';
import { normalsFlags, normalsParams } from './stats.js';

interface ExportFlags {
  basin?: string[];
  set?: string;
  dates?: string;
  zone?: string[];
  variable?: string[];
  withNormals?: boolean;
  normalsYears?: string;
  units: Units;
  to: Format;
  layout: Layout;
  out: string;
  replace?: boolean;
  stat?: string;
  day?: string;
  format: OutFormat;
}

/** `snowdb export <dataset>`: every selected basin × zone cell × date into Parquet or CSV files. */
export function registerExport(program: Command, run: Runner): void {
  const cmd = program
    .command('export')
    .description(
      'every selected basin × zone cell × date of a dataset into one Parquet file, or CSV (one file, a file per basin, or a file per date), streamed in bounded memory; the output appears whole or not at all',
    )
    .argument('<dataset>', 'an active dataset')
    .option('--basin <id>', 'a basin, repeatable (default: every basin the dataset covers)', collect)
    .option('--set <name>', "a basin set's members only")
    .option('--dates <start/end>', "inclusive ISO date range ('..' leaves an end open; default: every date)")
    .option('--zone <token>', 'zone axis LAYER or LAYER:PARAM=VALUE, repeatable', collect)
    .option('--variable <key>', 'variable key, repeatable (default: all)', collect)
    .addOption(
      new Option('--units <units>', 'metric: mm and m³; us: inches and acre-feet')
        .choices(UNITS)
        .default('metric'),
    )
    .addOption(new Option('--to <format>', 'file format').choices(FORMATS).default('parquet'))
    .addOption(
      new Option(
        '--layout <layout>',
        'CSV: one long file; a folder of a file per basin, or per date; one wide file, a date per row and a basin per column (date-by-basin), or a basin and water year per row and a zone per column (year-by-band)',
      )
        .choices(LAYOUTS)
        .default('long'),
    )
    .option(
      '--stat <column>',
      'date-by-basin, year-by-band: the statistic (default the first mean, e.g. mean_swe_mm)',
    )
    .option('--day <MM-DD>', 'year-by-band: the day of each water year (default 04-01)')
    .requiredOption(
      '--out <path>',
      'the file (long, date-by-basin, year-by-band) or folder (by-basin, by-date) to write',
    )
    .option('--replace', 'replace an existing file or folder at --out')
    .addOption(
      // --format is how the report prints; a file format given there is pointed to --to.
      formatOption().argParser((v: string) => {
        if ((FORMATS as readonly string[]).includes(v))
          throw new InvalidArgumentError(
            `'${v}' is a file format: give it as --to ${v} (--format prints the report: table or json)`,
          );
        if (v !== 'table' && v !== 'json') throw new InvalidArgumentError('Allowed choices are table, json.');
        return v;
      }),
    );
  normalsFlags(
    cmd,
    'add median_<stat>, pct_median_<stat>, rank_<stat> and rank_of_<stat> columns against the day-of-year normals',
  ).action((dataset: string, opts: ExportFlags, c: Command) =>
    run(c, async (ctx) => {
      const out = resolve(opts.out);
      const exists = await stat(out).then(
        () => true,
        () => false,
      );
      if (exists && !opts.replace)
        throw new SnowdbError(
          'usage-error',
          `--out ${opts.out} exists: choose another path, or --replace it`,
        );
      const { zones, variables, units, normals } = statsOptions(
        { zone: opts.zone, variable: opts.variable, units: opts.units, ...normalsParams(opts) },
        cliFlags,
      );
      // Ctrl-C or SIGTERM: the export stops and removes what it wrote (nothing appears at --out).
      const stop = new AbortController();
      const abort = () =>
        stop.abort(new SnowdbError('usage-error', 'export stopped: nothing was written to --out'));
      process.once('SIGINT', abort);
      process.once('SIGTERM', abort);
      const r = await exportStats(
        await ctx.openDatabase('read'),
        {
          dataset,
          basins: opts.basin,
          set: opts.set,
          dates: parseDateRange(opts.dates ?? '../..', 'dates'),
          zones,
          variables,
          units,
          normals,
          format: opts.to,
          layout: opts.layout,
          stat: opts.stat,
          day: opts.day,
        },
        out,
        { progress: (l) => ctx.out.info(l), signal: stop.signal },
      ).finally(() => {
        process.off('SIGINT', abort);
        process.off('SIGTERM', abort);
      });
      emit(
        ctx.out,
        opts.format,
        r,
        () =>
          `${r.out}: ${r.rows} rows (${r.basins} basins × ${r.dates} dates × their zone cells); peak memory ${(r.peakRssBytes / 2 ** 20).toFixed(0)} MiB`,
      );
    }),
  );
}
