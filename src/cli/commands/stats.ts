import { type Command, Option } from 'commander';
import { SnowdbError } from '../../errors.js';
import { computeAllBasins, MAX_ALL_BASINS_DATES } from '../../stats/all-basins.js';
import { allBasinsCsvLines, csvLines } from '../../stats/csv.js';
import { type DateQuery, parseDateRange, parseDoy } from '../../stats/dates.js';
import { computeStats } from '../../stats/engine.js';
import { MAX_ZONE_CELLS } from '../../stats/limits.js';
import type { Runner } from '../context.js';
import { renderJson } from '../json.js';

const collect = (v: string, prev: string[] = []) => [...prev, v];

/** The options both stats commands take: zone axes, variables, empty zones, valid fraction. */
function cellOptions(cmd: Command): Command {
  return cmd
    .option(
      '--zone <token>',
      'zone axis LAYER or LAYER:PARAM=VALUE, repeatable (order = axis order)',
      collect,
    )
    .option('--variable <key>', 'variable key, repeatable (default: all)', collect)
    .option('--include-empty-zones', 'emit every cell of the product, empty ones with area 0 and nulls')
    .option(
      '--valid-fraction',
      'add valid_fraction_<variable>: the share of the cell area with data that date',
    );
}

export function registerStats(program: Command, run: Runner): void {
  const cmd = program
    .command('stats')
    .description(
      'stratified statistics of one basin in an active dataset: per date, per cell of the crossed zone axes',
    )
    .argument('<dataset>', 'an active dataset')
    .argument('<pourpoint>', 'station triplet, e.g. 09406000:UT:USGS')
    .option('--dates <start/end>', "inclusive ISO date range; '..' leaves an end open (default: every date)")
    .option('--doy <MM-DD>', 'one calendar day in every year of --years')
    .option('--years <Y1..Y2>', 'year range of --doy');
  cellOptions(cmd)
    .option('--max-zone-cells <n>', 'refuse crossings with more cells', String(MAX_ZONE_CELLS))
    .addOption(new Option('--format <format>', 'output format').choices(['json', 'csv']).default('json'))
    .action(
      (
        dataset: string,
        pourpoint: string,
        opts: {
          dates?: string;
          doy?: string;
          years?: string;
          zone?: string[];
          variable?: string[];
          includeEmptyZones?: boolean;
          validFraction?: boolean;
          maxZoneCells: string;
          format: 'json' | 'csv';
        },
        cmd: Command,
      ) =>
        run(cmd, async (ctx) => {
          if (opts.dates !== undefined && (opts.doy !== undefined || opts.years !== undefined)) {
            throw new SnowdbError('usage-error', 'give either --dates or --doy with --years, not both');
          }
          if ((opts.doy === undefined) !== (opts.years === undefined)) {
            throw new SnowdbError('usage-error', '--doy and --years go together');
          }
          const dates: DateQuery =
            opts.doy !== undefined
              ? parseDoy(opts.doy, opts.years!)
              : parseDateRange(opts.dates ?? '../..', 'dates');
          const cap = Number(opts.maxZoneCells);
          if (!Number.isInteger(cap) || cap < 1)
            throw new SnowdbError('usage-error', '--max-zone-cells must be a positive integer');
          const body = await computeStats(await ctx.openDatabase(), {
            dataset,
            pourpoint,
            dates,
            zones: opts.zone ?? [],
            variables: opts.variable ?? [],
            includeEmptyZones: opts.includeEmptyZones,
            validFraction: opts.validFraction,
            maxZoneCells: cap,
          });
          if (opts.format === 'json') return ctx.out.data(renderJson(body, ctx.out.stdoutIsTty));
          ctx.out.data([...csvLines(body)].join('').replace(/\r\n$/, ''));
        }),
    );
}

/** `snowdb stats-all <dataset> --date <d|start/end>`: every covered basin for one short date range. */
export function registerStatsAll(program: Command, run: Runner): void {
  const cmd = program
    .command('stats-all')
    .description(
      `every covered basin of an active dataset for one date or a short range (at most ${MAX_ALL_BASINS_DATES} dates), sorted by triplet`,
    )
    .argument('<dataset>', 'an active dataset')
    .requiredOption('--date <date|start/end>', 'one ISO date, or an inclusive range start/end');
  cellOptions(cmd)
    .addOption(new Option('--format <format>', 'output format').choices(['json', 'csv']).default('json'))
    .action(
      (
        dataset: string,
        opts: {
          date: string;
          zone?: string[];
          variable?: string[];
          includeEmptyZones?: boolean;
          validFraction?: boolean;
          format: 'json' | 'csv';
        },
        cmd: Command,
      ) =>
        run(cmd, async (ctx) => {
          const body = await computeAllBasins(await ctx.openDatabase(), {
            dataset,
            dates: parseDateRange(opts.date, 'date'),
            zones: opts.zone ?? [],
            variables: opts.variable ?? [],
            includeEmptyZones: opts.includeEmptyZones,
            validFraction: opts.validFraction,
          });
          if (opts.format === 'json') return ctx.out.data(renderJson(body, ctx.out.stdoutIsTty));
          ctx.out.data([...allBasinsCsvLines(body)].join('').replace(/\r\n$/, ''));
        }),
    );
}
