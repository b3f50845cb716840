import { readFile } from 'node:fs/promises';
import { type Command, Option } from 'commander';
import { SnowdbError } from '../../errors.js';
import {
  type AllBasinsStats,
  executeAllBasins,
  MAX_ALL_BASINS_DATES,
  planAllBasins,
} from '../../stats/all-basins.js';
import { executeAllWaterYears, planAllWaterYears } from '../../stats/all-water-years.js';
import { executeWithNormals, type StatsWithNormals } from '../../stats/anomalies.js';
import { allBasinsCsvLines, type CellTable, csvLines } from '../../stats/csv.js';
import { type DateQuery, parseDateRange, parseDoy } from '../../stats/dates.js';
import { drawnArea, planDrawn } from '../../stats/drawn.js';
import { planIntervening } from '../../stats/intervening.js';
import { MAX_ZONE_CELLS } from '../../stats/limits.js';
import { answerNotes } from '../../stats/normals.js';
import { openStatsPlan } from '../../stats/plan.js';
import { cliFlags, type QueryParams, statsOptions, waterYearsOptions } from '../../stats/query.js';
import { UNITS, type Units } from '../../stats/units.js';
import type { CliContext, Runner } from '../context.js';
import { renderJson } from '../json.js';
import { collect } from '../options.js';

/** The cell options every stats command reads. */
export interface CellFlags {
  zone?: string[];
  variable?: string[];
  includeEmptyZones?: boolean;
  units: Units;
  format: 'json' | 'csv';
}

/** Zone axes, variables, empty zones, units and format: the options every stats command takes. */
export function cellOptions(cmd: Command, variables = true): Command {
  cmd.option(
    '--zone <token>',
    'zone axis LAYER or LAYER:PARAM=VALUE, repeatable (order = axis order)',
    collect,
  );
  if (variables) cmd.option('--variable <key>', 'variable key, repeatable (default: all)', collect);
  return cmd
    .option('--include-empty-zones', 'emit every cell of the product, empty ones with area 0 and nulls')
    .addOption(
      new Option('--units <units>', 'metric: mm and m³; us: inches and acre-feet')
        .choices(UNITS)
        .default('metric'),
    )
    .addOption(new Option('--format <format>', 'output format').choices(['json', 'csv']).default('json'));
}

/** The cell flags by the query model's names (stats/query.ts). */
export const cellParams = (
  o: Omit<CellFlags, 'variable'> & { variable?: string[] | string },
): QueryParams => ({
  zone: o.zone,
  variable: typeof o.variable === 'string' ? undefined : o.variable,
  include_empty_zones: o.includeEmptyZones,
  units: o.units,
});

/** The normals flags every history command takes. */
export interface NormalsFlags {
  withNormals?: boolean;
  normalsYears?: string;
}

/** The normals flags by the query model's names. */
export const normalsParams = (o: NormalsFlags): QueryParams => ({
  normals: o.withNormals,
  normals_years: o.normalsYears,
});

/** The stats flags by the query model's names. */
const statsParams = (o: CellFlags & NormalsFlags & { validFraction?: boolean }): QueryParams => ({
  ...cellParams(o),
  valid_fraction: o.validFraction,
  ...normalsParams(o),
});

/** JSON as the terminal likes it, or the CSV table keyed by `key`. */
export function printTable(ctx: CliContext, format: 'json' | 'csv', body: CellTable, key = 'date'): void {
  ctx.out.data(
    format === 'json'
      ? renderJson(body, ctx.out.stdoutIsTty)
      : [...csvLines(body, key)].join('').replace(/\r\n$/, ''),
  );
}

/** Say on stderr how much of each basin no zone layer classifies (the `unclassified` cell). */
function noteUnclassified(
  ctx: CliContext,
  basins: readonly { pourpoint: string; zones: CellTable['zones'] }[],
) {
  for (const b of basins) {
    const lost = b.zones.find((z) => z.zone[0]?.kind === 'unclassified');
    if (lost === undefined) continue;
    const total = b.zones.reduce((t, z) => t + z.area_m2, 0);
    ctx.out.info(
      `note: ${b.pourpoint}: ${(lost.area_m2 / 1e6).toFixed(1)} km² (${((100 * lost.area_m2) / total).toFixed(1)} %) of the basin is in no zone of the zone layers; reported as the 'unclassified' cell`,
    );
  }
}

/** What `--normals-years` says wherever it is taken. */
export const REFERENCE_YEARS_HELP =
  'reference water years (default: every water year before the current one; a year counts for a day when it holds that day)';

/** `--with-normals` (saying `what` it adds) and `--normals-years`. */
export const normalsFlags = (
  cmd: Command,
  what = 'add median_<stat>, pct_median_<stat>, rank_<stat> and rank_of_<stat> against the day-of-year normals',
) => cmd.option('--with-normals', what).option('--normals-years <Y1..Y2>', REFERENCE_YEARS_HELP);

/**
 * The GeoJSON of an area file, parsed (`drawnArea` and the worker check its geometry).
 * @throws SnowdbError `invalid-geometry` (not JSON), `source-not-found`.
 */
async function readArea(path: string): Promise<unknown> {
  const text = await readFile(path, 'utf8').catch((e: NodeJS.ErrnoException) => {
    throw new SnowdbError('source-not-found', `${path}: ${e.code === 'ENOENT' ? 'no such file' : e.message}`);
  });
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch (e) {
    throw new SnowdbError('invalid-geometry', `${path}: not valid JSON (${(e as Error).message})`);
  }
  return doc;
}

export function registerStats(program: Command, run: Runner): void {
  const cmd = program
    .command('stats')
    .description(
      'stratified statistics of one basin in an active dataset: per date, per cell of the crossed zone axes',
    )
    .argument('<dataset>', 'an active dataset')
    .argument('[pourpoint]', 'basin id: station triplet (09406000:UT:USGS) or <set>:<id>; or give --area')
    .option(
      '--area <file>',
      'instead of a basin: a GeoJSON Polygon or MultiPolygon (bare or in a Feature), its coverage computed on the fly',
    )
    .option('--minus-children', 'the intervening area: the basin less the basins directly inside it')
    .option('--dates <start/end>', "inclusive ISO date range; '..' leaves an end open (default: every date)")
    .option('--doy <MM-DD>', 'one calendar day in every year of --years')
    .option('--years <Y1..Y2>', 'year range of --doy')
    .option(
      '--valid-fraction',
      'add valid_fraction_<variable>: the share of the cell area with data that date',
    )
    .option('--max-zone-cells <n>', 'refuse crossings with more cells', String(MAX_ZONE_CELLS));
  normalsFlags(cellOptions(cmd)).action(
    (
      dataset: string,
      pourpoint: string | undefined,
      opts: CellFlags &
        NormalsFlags & {
          area?: string;
          minusChildren?: boolean;
          dates?: string;
          doy?: string;
          years?: string;
          validFraction?: boolean;
          maxZoneCells: string;
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
        if ((pourpoint === undefined) === (opts.area === undefined))
          throw new SnowdbError('usage-error', 'give a pourpoint or --area <file>, one of them');
        const q = {
          dataset,
          pourpoint: pourpoint ?? 'drawn',
          dates,
          ...statsOptions(statsParams(opts), cliFlags),
        };
        const db = await ctx.openDatabase('read');
        if (opts.minusChildren && opts.area !== undefined)
          throw new SnowdbError('usage-error', '--minus-children goes with a pourpoint, not --area');
        const plan =
          opts.area !== undefined
            ? await planDrawn(db, {
                ...q,
                maxZoneCells: cap,
                area: drawnArea(await readArea(opts.area), opts.area),
                label: opts.area,
              })
            : opts.minusChildren
              ? await planIntervening(db, { ...q, maxZoneCells: cap })
              : await openStatsPlan(db, { ...q, maxZoneCells: cap });
        const body = await executeWithNormals(plan);
        const ref = (body as Partial<StatsWithNormals>).reference;
        for (const note of answerNotes(dataset, plan.notes, [ref])) ctx.out.info(`note: ${note}`);
        noteUnclassified(ctx, [{ pourpoint: plan.entry.triplet, zones: body.zones }]);
        printTable(ctx, opts.format, body);
      }),
  );
}

/** `snowdb stats-all <dataset> --date <d|start/end>`: every covered basin for one short date range, or one water year. */
export function registerStatsAll(program: Command, run: Runner): void {
  const cmd = program
    .command('stats-all')
    .description(
      `every covered basin of an active dataset for one date or a short range (at most ${MAX_ALL_BASINS_DATES} dates), or one water year's summaries (--water-year), sorted by triplet`,
    )
    .argument('<dataset>', 'an active dataset')
    .option('--date <date|start/end>', 'one ISO date, or an inclusive range start/end')
    .option(
      '--water-year <Y>',
      "instead of dates: each basin's water-year summary (as water-years; with --with-normals, % of median peak)",
    )
    .option(
      '--melt-out-below <value>',
      "with --water-year: melt-out threshold in the mean's unit (default 1 mm, 0.04 in)",
    )
    .option(
      '--valid-fraction',
      'add valid_fraction_<variable>: the share of the cell area with data that date',
    );
  normalsFlags(cellOptions(cmd)).action(
    (
      dataset: string,
      opts: CellFlags &
        NormalsFlags & {
          date?: string;
          waterYear?: string;
          meltOutBelow?: string;
          validFraction?: boolean;
        },
      cmd: Command,
    ) =>
      run(cmd, async (ctx) => {
        if ((opts.date === undefined) === (opts.waterYear === undefined))
          throw new SnowdbError('usage-error', 'stats-all takes one of --date and --water-year');
        if (opts.waterYear !== undefined)
          return waterYearOfAll(ctx, dataset, { ...opts, waterYear: opts.waterYear });
        const db = await ctx.openDatabase('read');
        const plan = await planAllBasins(db, {
          dataset,
          dates: parseDateRange(opts.date!, 'date'),
          ...statsOptions(statsParams(opts), cliFlags),
        });
        const body: AllBasinsStats = await executeAllBasins(plan);
        const refs = body.basins.map((b) => b.reference);
        for (const note of answerNotes(dataset, plan.notes, refs)) ctx.out.info(`note: ${note}`);
        noteUnclassified(ctx, body.basins);
        if (opts.format === 'json') return ctx.out.data(renderJson(body, ctx.out.stdoutIsTty));
        ctx.out.data([...allBasinsCsvLines(body)].join('').replace(/\r\n$/, ''));
      }),
  );
}

/** `stats-all --water-year Y`: every covered basin's summary of one water year. */
async function waterYearOfAll(
  ctx: CliContext,
  dataset: string,
  opts: CellFlags &
    NormalsFlags & {
      waterYear: string;
      meltOutBelow?: string;
      validFraction?: boolean;
    },
): Promise<void> {
  const year = Number(opts.waterYear);
  if (!/^[0-9]{4}$/.test(opts.waterYear))
    throw new SnowdbError(
      'malformed-query-parameter',
      `--water-year: expected a year such as 2024, got '${opts.waterYear}'`,
      { parameter: '--water-year' },
    );
  if (opts.validFraction)
    throw new SnowdbError('usage-error', '--valid-fraction goes with --date, not --water-year');
  if ((opts.variable?.length ?? 0) > 1)
    throw new SnowdbError('usage-error', '--water-year summarizes one water variable: give --variable once');
  const options = waterYearsOptions(
    {
      ...cellParams({ ...opts, variable: undefined }),
      melt_out_below: opts.meltOutBelow === undefined ? undefined : Number(opts.meltOutBelow),
      ...normalsParams(opts),
    },
    cliFlags,
  );
  const db = await ctx.openDatabase('read');
  const plan = await planAllWaterYears(db, { dataset, ...options, variable: opts.variable?.[0], year });
  const body = await executeAllWaterYears(plan);
  for (const note of plan.notes) ctx.out.info(`note: ${note}`);
  noteUnclassified(ctx, body.basins);
  if (opts.format === 'json') return ctx.out.data(renderJson(body, ctx.out.stdoutIsTty));
  ctx.out.data([...allBasinsCsvLines(body, 'water_year')].join('').replace(/\r\n$/, ''));
}
