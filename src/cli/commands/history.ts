import { type Command, Option } from 'commander';
import { SnowdbError } from '../../errors.js';
import { computeChanges } from '../../stats/changes.js';
import { computeCompare, MAX_COMPARED } from '../../stats/compare.js';
import { compareCsvLines } from '../../stats/csv.js';
import { parseDateRange } from '../../stats/dates.js';
import { answerNotes, computeNormals } from '../../stats/normals.js';
import { cliFlags, normalsOptions, statsOptions, waterYearsOptions } from '../../stats/query.js';
import { computeSnowline, snowlineTable } from '../../stats/snowline.js';
import { computeWaterYears } from '../../stats/summaries.js';
import type { Runner } from '../context.js';
import { renderJson } from '../json.js';
import { collect } from '../options.js';
import {
  type CellFlags,
  cellOptions,
  cellParams,
  type NormalsFlags,
  normalsFlags,
  normalsParams,
  printTable,
  REFERENCE_YEARS_HELP,
} from './stats.js';

/** `snowdb normals <dataset> <pourpoint>`: the day-of-year climatology of a basin. */
export function registerNormals(program: Command, run: Runner): void {
  const cmd = program
    .command('normals')
    .description(
      'day-of-year normals of one basin: per day of the water year and cell, median, mean, p10, p90, min, max and the years behind them',
    )
    .argument('<dataset>', 'an active dataset')
    .argument('<pourpoint>', 'station triplet, e.g. 09406000:UT:USGS')
    .option('--normals-years <Y1..Y2>', REFERENCE_YEARS_HELP);
  cellOptions(cmd).action(
    (dataset: string, pourpoint: string, opts: CellFlags & { normalsYears?: string }, cmd: Command) =>
      run(cmd, async (ctx) => {
        const options = normalsOptions({ ...cellParams(opts), normals_years: opts.normalsYears }, cliFlags);
        const body = await computeNormals(await ctx.openDatabase('read'), { dataset, pourpoint, ...options });
        for (const note of answerNotes(dataset, [], [body.reference])) ctx.out.info(`note: ${note}`);
        printTable(ctx, opts.format, body, 'day');
      }),
  );
}

/** `snowdb water-years <dataset> <pourpoint>`: peak, melt-out and 1 April per water year. */
export function registerWaterYears(program: Command, run: Runner): void {
  const cmd = program
    .command('water-years')
    .description(
      'water-year summaries of one basin: per water year and cell, peak SWE and its date, melt-out date, SWE on 1 April',
    )
    .argument('<dataset>', 'an active dataset')
    .argument('<pourpoint>', 'station triplet, e.g. 09406000:UT:USGS')
    .option('--variable <key>', 'a water variable', 'swe')
    .option('--years <Y1..Y2>', 'water years (default: every water year with a date)')
    .option(
      '--melt-out-below <value>',
      "melt-out: first date after the peak with a mean below this, in the mean's unit (default 1 mm, 0.04 in)",
    );
  normalsFlags(
    cmd,
    'each year against the reference years: median peak, % of median peak, median peak and melt-out days, % melted since the peak',
  );
  cellOptions(cmd, false).action(
    (
      dataset: string,
      pourpoint: string,
      opts: Omit<CellFlags, 'variable'> &
        NormalsFlags & { variable: string; years?: string; meltOutBelow?: string },
      cmd: Command,
    ) =>
      run(cmd, async (ctx) => {
        const body = await computeWaterYears(await ctx.openDatabase('read'), {
          dataset,
          pourpoint,
          ...waterYearsOptions(
            {
              ...cellParams(opts),
              years: opts.years,
              melt_out_below: opts.meltOutBelow === undefined ? undefined : Number(opts.meltOutBelow),
              ...normalsParams(opts),
            },
            cliFlags,
          ),
          variable: opts.variable,
        });
        printTable(ctx, opts.format, body, 'water_year');
      }),
  );
}

/** A number flag's value, or a usage error naming the flag. */
function numberFlag(flag: string, text: string | undefined): number | undefined {
  if (text === undefined) return undefined;
  const v = Number(text);
  if (text.trim() === '' || !Number.isFinite(v))
    throw new SnowdbError('malformed-query-parameter', `${flag}: expected a number, got '${text}'`, {
      parameter: flag,
    });
  return v;
}

/** `snowdb snowline <dataset> <pourpoint>`: per date, where snow cover crosses a threshold. */
export function registerSnowline(program: Command, run: Runner): void {
  const cmd = program
    .command('snowline')
    .description(
      'snow line of one basin per date: the elevation where a snow-cover fraction crosses a threshold, interpolated between the centres of the lowest pair of elevation bands that bracket it',
    )
    .argument('<dataset>', 'an active dataset with a snow-cover fraction (SPIRES)')
    .argument('<pourpoint>', 'station triplet, e.g. 09406000:UT:USGS')
    .option('--dates <start/end>', "inclusive ISO date range; '..' leaves an end open (default: every date)")
    .option(
      '--threshold <value>',
      "the value the line marks, in the variable's unit (percent for a fraction)",
      '50',
    )
    .option('--band-step-ft <ft>', 'elevation band height', '500')
    .option('--variable <key>', 'any variable (default the snow-cover fraction, snow_fraction)')
    .option(
      '--details',
      "JSON: the whole body (the reference's results, snowdb's rows and why a date has none)",
    )
    .addOption(new Option('--format <format>', 'output format').choices(['json', 'csv']).default('json'));
  normalsFlags(cmd, "each date against the median of the reference years' snow lines on its day").action(
    (
      dataset: string,
      pourpoint: string,
      opts: NormalsFlags & {
        dates?: string;
        threshold: string;
        bandStepFt: string;
        variable?: string;
        details?: boolean;
        format: 'json' | 'csv';
      },
      cmd: Command,
    ) =>
      run(cmd, async (ctx) => {
        const body = await computeSnowline(await ctx.openDatabase('read'), {
          dataset,
          pourpoint,
          dates: parseDateRange(opts.dates ?? '../..', 'dates'),
          threshold: numberFlag('--threshold', opts.threshold),
          bandStepFt: numberFlag('--band-step-ft', opts.bandStepFt),
          variable: opts.variable,
          normals: statsOptions(normalsParams(opts), cliFlags).normals,
        });
        if (opts.format === 'csv') printTable(ctx, 'csv', snowlineTable(body));
        else if (opts.details) ctx.out.data(JSON.stringify(body, null, 2));
        // As the reference's `snowline` command prints it: {date: line in ft | null}.
        else
          ctx.out.data(
            JSON.stringify(
              Object.fromEntries(Object.entries(body.results).map(([d, r]) => [d, r?.elevation_ft ?? null])),
              null,
              2,
            ),
          );
      }),
  );
}

/** `snowdb changes <dataset> <pourpoint>`: 1-day and 7-day change, gain and melt since 1 October, WYTD precipitation. */
export function registerChanges(program: Command, run: Runner): void {
  const cmd = program
    .command('changes')
    .description(
      'change metrics of one basin per date and cell: 1-day and 7-day change of the mean and the volume, cumulative gain and melt since 1 October, water-year-to-date precipitation (where the dataset has it); a gap makes a value null',
    )
    .argument('<dataset>', 'an active dataset')
    .argument('<pourpoint>', 'station triplet, e.g. 09406000:UT:USGS')
    .option('--dates <start/end>', "inclusive ISO date range; '..' leaves an end open (default: every date)")
    .option('--variable <key>', 'a water variable', 'swe');
  normalsFlags(
    cmd,
    "add median_<c> and pct_median_<c> for gain, melt and precipitation: the reference years' values on the same day",
  );
  cellOptions(cmd, false).action(
    (
      dataset: string,
      pourpoint: string,
      opts: Omit<CellFlags, 'variable'> & NormalsFlags & { variable: string; dates?: string },
      cmd: Command,
    ) =>
      run(cmd, async (ctx) => {
        const params = { ...cellParams(opts), ...normalsParams(opts) };
        const body = await computeChanges(await ctx.openDatabase('read'), {
          dataset,
          pourpoint,
          dates: parseDateRange(opts.dates ?? '../..', 'dates'),
          ...waterYearsOptions(params, cliFlags),
          variable: opts.variable,
        });
        for (const note of answerNotes(dataset, [], [body.reference])) ctx.out.info(`note: ${note}`);
        printTable(ctx, opts.format, body);
      }),
  );
}

/** `snowdb compare <pourpoint> --dataset a --dataset b`: several datasets side by side for one basin. */
export function registerCompare(program: Command, run: Runner): void {
  const cmd = program
    .command('compare')
    .description(
      `several datasets side by side for one basin (2 to ${MAX_COMPARED}): each dataset's stats on its own grid, exactly as its own stats answer, with the basin's area on that grid against the polygon's`,
    )
    .argument('<pourpoint>', 'station triplet, e.g. 09406000:UT:USGS')
    .requiredOption('--dataset <name>', 'an active dataset; repeat it', collect)
    .option('--dates <start/end>', "inclusive ISO date range; '..' leaves an end open (default: every date)");
  cellOptions(cmd).action(
    (pourpoint: string, opts: CellFlags & { dataset: string[]; dates?: string }, cmd: Command) =>
      run(cmd, async (ctx) => {
        const { normals: _, ...cells } = statsOptions(cellParams(opts), cliFlags);
        const body = await computeCompare(await ctx.openDatabase('read'), {
          datasets: opts.dataset,
          pourpoint,
          dates: parseDateRange(opts.dates ?? '../..', 'dates'),
          ...cells,
        });
        for (const d of body.datasets)
          ctx.out.info(
            `note: ${d.dataset}: the basin is ${(d.basin_area_m2 / 1e6).toFixed(2)} km² on its grid, ${d.area_vs_polygon_percent >= 0 ? '+' : ''}${d.area_vs_polygon_percent.toFixed(2)} % against the polygon's ${(body.polygon_area_m2 / 1e6).toFixed(2)} km²`,
          );
        ctx.out.data(
          opts.format === 'json'
            ? renderJson(body, ctx.out.stdoutIsTty)
            : [...compareCsvLines(body)].join('').replace(/\r\n$/, ''),
        );
      }),
  );
}
