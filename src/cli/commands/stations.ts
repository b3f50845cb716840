import { type Command, Option } from 'commander';
import { SnowdbError } from '../../errors.js';
import { AwdbClient } from '../../stations/awdb.js';
import { parseSeason } from '../../stations/forecast-point.js';
import { basinStations } from '../../stations/place.js';
import { basinIndex, stationSeries, stationVsGrid } from '../../stations/queries.js';
import {
  forecastOf,
  m4CsvLines,
  m4Table,
  PREDICTORS,
  type Predictor,
  regression,
} from '../../stations/regression.js';
import { stationList } from '../../stations/store.js';
import { DEFAULT_WITHIN_KM, syncStations } from '../../stations/sync.js';
import { keyedCsvLines } from '../../stats/csv.js';
import { parseDateRange, parseYearSpan } from '../../stats/dates.js';
import { UNITS, type Units } from '../../stats/units.js';
import type { Runner } from '../context.js';
import { renderJson } from '../json.js';
import { collect, emit, emitRows, type Format, formatOption } from '../options.js';
import type { Output } from '../output.js';

/** A number flag's value, or a usage error naming the flag. */
function number(flag: string) {
  return (text: string): number => {
    const v = Number(text);
    if (text.trim() === '' || !Number.isFinite(v))
      throw new SnowdbError('malformed-query-parameter', `${flag}: expected a number, got '${text}'`, {
        parameter: flag,
      });
    return v;
  };
}

const unitsOption = () =>
  new Option('--units <units>', 'metric (mm, °C) or us (in, °F)').choices(UNITS).default('metric');
const dataFormat = () =>
  new Option('--format <format>', 'output format').choices(['json', 'csv']).default('json');
const cell = (v: number | null | undefined) => (v === null || v === undefined ? '' : String(v));

/** `snowdb stations sync|list|show|compare|index`: AWDB stations beside the grid. */
export function registerStations(program: Command, run: Runner): void {
  const stations = program
    .command('stations')
    .description(
      'AWDB stations (SNOTEL, snow courses) beside the grid: sync, place in basins, compare, index',
    );
  stations
    .command('sync')
    .description(
      "fetch AWDB station metadata, the records of stations near the basins (daily SWE, depth, precipitation, temperature; snow-course surveys) and the basins' forecast points (monthly volumes, published forecasts); resumable",
    )
    .option('--network <code>', 'AWDB network, repeatable (default SNTL, SNTLT, SNOW, MSNT)', collect)
    .option('--state <code>', 'two-letter state, repeatable (default: all)', collect)
    .option(
      '--within <km>',
      `fetch records of stations within this distance of a basin (default ${DEFAULT_WITHIN_KM})`,
      number('--within'),
    )
    .option('--station <triplet>', "also fetch this station's record, repeatable", collect)
    .option('--all', "fetch every listed station's record")
    .option('--since <date>', "earliest day fetched (default: each station's first)")
    .option('--through <date>', 'last day fetched (default: today)')
    .option('--no-forecasts', 'skip the forecast points')
    .addOption(formatOption())
    .action((opts: SyncFlags, cmd: Command) =>
      run(cmd, async (ctx) => {
        const day = (flag: string, v: string | undefined) => {
          if (v === undefined) return undefined;
          const q = parseDateRange(v, flag);
          return q.type === 'DateRange' ? (q.start_date ?? undefined) : undefined;
        };
        const r = await syncStations(await ctx.openDatabase(), new AwdbClient(ctx.settings.awdb), {
          networks: opts.network,
          states: opts.state,
          withinKm: opts.within,
          stations: opts.station,
          all: opts.all,
          since: day('--since', opts.since),
          through: day('--through', opts.through),
          noForecasts: !opts.forecasts,
          progress: (l) => ctx.out.info(l),
        });
        emit(
          ctx.out,
          opts.format,
          r,
          () =>
            `${r.listed} stations listed (${r.added} new, ${r.moved.length} moved); ${r.recorded.length} records fetched, ${r.current} already current; ${r.forecastPoints.length} forecast points; ${r.requests} AWDB requests`,
        );
      }),
    );
  stations
    .command('list')
    .description(
      'the synced stations, or those inside a basin and within a distance of it, with their elevation band',
    )
    .option('--basin <id>', 'a basin: its stations, nearest first')
    .option(
      '--within <km>',
      'with --basin: also stations this far outside it (default 0)',
      number('--within'),
      0,
    )
    .option('--band-step-ft <ft>', 'elevation band width (default 1000)', number('--band-step-ft'), 1000)
    .addOption(formatOption(['table', 'json', 'csv']))
    .action((opts: { basin?: string; within: number; bandStepFt: number; format: Format }, cmd: Command) =>
      run(cmd, async (ctx) => {
        const db = await ctx.openDatabase('read');
        if (opts.basin === undefined) {
          const list = await stationList(db);
          const header = ['triplet', 'name', 'network', 'elevation_ft', 'lon', 'lat', 'begin', 'end'];
          const rows = list.stations.map((s) => [
            s.triplet,
            s.name,
            s.network,
            cell(s.elevation_ft),
            String(s.lon),
            String(s.lat),
            s.begin ?? '',
            s.end ?? '',
          ]);
          emitRows(ctx.out, opts.format, list, header, rows, 'no stations');
          return;
        }
        const b = await basinStations(db, opts.basin, opts.within, opts.bandStepFt);
        const header = [
          'triplet',
          'name',
          'network',
          'elevation_ft',
          'band_min_ft',
          'band_max_ft',
          'inside',
          'distance_km',
          'recorded',
        ];
        const rows = b.stations.map((s) => [
          s.triplet,
          s.name,
          s.network,
          cell(s.elevation_ft),
          cell(s.band?.min),
          cell(s.band?.max),
          String(s.inside),
          String(s.distance_km),
          String(s.recorded),
        ]);
        emitRows(
          ctx.out,
          opts.format,
          b,
          header,
          rows,
          `no station inside ${opts.basin} or within ${opts.within} km`,
        );
      }),
    );
  stations
    .command('show')
    .description("a station's values per day (surveys for snow courses), with SWE's median and % of median")
    .argument('<triplet>', 'station triplet, e.g. 1098:UT:SNTL')
    .option('--dates <start/end>', "inclusive ISO date range ('..' leaves an end open)")
    .option('--normals-years <Y1..Y2>', 'reference water years of a computed median (default 1991..2020)')
    .addOption(unitsOption())
    .addOption(dataFormat())
    .action((triplet: string, opts: DataFlags & { normalsYears?: string }, cmd: Command) =>
      run(cmd, async (ctx) => {
        const body = await stationSeries(await ctx.openDatabase('read'), {
          triplet,
          dates: parseDateRange(opts.dates ?? '../..', 'dates'),
          units: opts.units,
          reference:
            opts.normalsYears === undefined ? undefined : parseYearSpan(opts.normalsYears, 'normals-years'),
        });
        printData(ctx.out, opts.format, body);
      }),
    );
  stations
    .command('compare')
    .description(
      "a station against the grid cell holding it, on the dataset's dates: each value and station ÷ cell",
    )
    .argument('<dataset>', 'an active dataset with SWE or snow depth')
    .argument('<triplet>', 'station triplet')
    .option('--dates <start/end>', 'inclusive ISO date range')
    .addOption(unitsOption())
    .addOption(dataFormat())
    .action((dataset: string, triplet: string, opts: DataFlags, cmd: Command) =>
      run(cmd, async (ctx) => {
        const body = await stationVsGrid(await ctx.openDatabase('read'), dataset, {
          triplet,
          dates: parseDateRange(opts.dates ?? '../..', 'dates'),
          units: opts.units,
        });
        printData(ctx.out, opts.format, body);
      }),
    );
  stations
    .command('index')
    .description("a basin's station index per day (NRCS): Σ current SWE ÷ Σ median SWE of its sites × 100")
    .argument('<basin>', 'basin id')
    .requiredOption('--dates <start/end>', 'inclusive ISO date range')
    .option(
      '--within <km>',
      'also count sites this far outside the basin (default 0: inside only)',
      number('--within'),
      0,
    )
    .addOption(unitsOption())
    .addOption(dataFormat())
    .action((basin: string, opts: DataFlags & { within: number }, cmd: Command) =>
      run(cmd, async (ctx) => {
        const body = await basinIndex(await ctx.openDatabase('read'), basin, {
          dates: parseDateRange(opts.dates!, 'dates'),
          withinKm: opts.within,
          units: opts.units,
        });
        printData(ctx.out, opts.format, body);
      }),
    );
}

/** `snowdb forecast show|regression|m4`: a basin's forecast point. */
export function registerForecast(program: Command, run: Runner): void {
  const forecast = program
    .command('forecast')
    .description(
      "a basin's AWDB forecast point: observed volumes, NRCS's published forecasts, the SWE–volume regression (snowdb issues no forecasts)",
    );
  const season = (c: Command) =>
    c.option('--period <months>', 'the season, e.g. APR-JUL (default) or 4-7', 'APR-JUL');
  season(
    forecast
      .command('show')
      .description("the season's observed volume each water year and every published forecast")
      .argument('<basin>', 'basin id'),
  )
    .addOption(formatOption())
    .action((basin: string, opts: { period: string; format: Format }, cmd: Command) =>
      run(cmd, async (ctx) => {
        const b = await forecastOf(await ctx.openDatabase('read'), basin, parseSeason(opts.period));
        emit(ctx.out, opts.format, b, () =>
          [
            `${b.forecast_point} ${b.name ?? ''}: ${b.season} volume (${b.volume_unit})`,
            ...Object.entries(b.volumes).map(([y, v]) => `  WY${y}\t${v}`),
            'published forecasts (publication date, period, exceedance % = volume):',
            ...b.forecasts.map(
              (f) =>
                `  ${f.publication_date}\t${f.period.join('..')}\t${Object.entries(f.values)
                  .map(([p, v]) => `${p}%=${v}`)
                  .join(' ')}`,
            ),
          ].join('\n'),
        );
      }),
    );
  const predictor = () =>
    new Option('--predictor <kind>', "basin: the dataset's basin mean SWE; stations: the station index")
      .choices(PREDICTORS)
      .default('basin');
  season(
    forecast
      .command('regression')
      .description(
        'basin SWE (or station index) on a day of each water year against the season volume: OLS fit, r², residual spread, this year on the fit',
      )
      .argument('<dataset>', 'an active dataset with SWE')
      .argument('<basin>', 'basin id'),
  )
    .option('--day <MM-DD>', 'the day of each water year (default 04-01)', '04-01')
    .addOption(predictor())
    .addOption(unitsOption())
    .addOption(formatOption())
    .action((dataset: string, basin: string, opts: RegressionFlags & { format: Format }, cmd: Command) =>
      run(cmd, async (ctx) => {
        const b = await regression(await ctx.openDatabase('read'), {
          dataset,
          pourpoint: basin,
          day: opts.day,
          season: parseSeason(opts.period),
          predictor: opts.predictor,
          units: opts.units,
        });
        emit(ctx.out, opts.format, b, () =>
          [
            `${b.season} volume (${b.volume_unit}) at ${b.forecast_point} on ${b.predictor.name} (${b.predictor.unit}), ${b.years.length} years`,
            b.fit === null
              ? 'no fit'
              : `volume = ${b.fit.intercept.toPrecision(6)} + ${b.fit.slope.toPrecision(6)} × x; r² ${b.fit.r2.toFixed(4)}; residual sd ${b.fit.residual_sd.toPrecision(4)}`,
            ...b.years.map(
              (y) => `  WY${y.water_year}\tx ${y.x}\tvolume ${y.y}\tfitted ${y.fitted.toFixed(1)}`,
            ),
            b.this_year === null
              ? ''
              : `WY${b.this_year.water_year}: x ${b.this_year.x}, on the fit ${b.this_year.fitted?.toFixed(1) ?? '–'}`,
            ...b.notes,
          ]
            .filter(Boolean)
            .join('\n'),
        );
      }),
    );
  season(
    forecast
      .command('m4')
      .description(
        'the year × predictor table NRCS M4 reads (CSV): Year, SWE on each day, the season volume last; NA where missing',
      )
      .argument('<dataset>', 'an active dataset with SWE')
      .argument('<basin>', 'basin id'),
  )
    .option('--day <MM-DD>', 'a predictor day, repeatable (default 03-01 and 04-01)', collect)
    .option('--predictor <kind>', 'basin or stations, repeatable (default basin)', collect)
    .addOption(unitsOption())
    .action(
      (
        dataset: string,
        basin: string,
        opts: { period: string; day?: string[]; predictor?: string[]; units: Units },
        cmd: Command,
      ) =>
        run(cmd, async (ctx) => {
          const predictors = (opts.predictor ?? ['basin']).map((p) => {
            if (!(PREDICTORS as readonly string[]).includes(p))
              throw new SnowdbError(
                'usage-error',
                `--predictor: '${p}' is not one of ${PREDICTORS.join(', ')}`,
              );
            return p as Predictor;
          });
          const t = await m4Table(await ctx.openDatabase('read'), {
            dataset,
            pourpoint: basin,
            season: parseSeason(opts.period),
            days: opts.day ?? ['03-01', '04-01'],
            predictors,
            units: opts.units,
          });
          ctx.out.data([...m4CsvLines(t)].join('').replace(/\r\n$/, ''));
        }),
    );
}

interface SyncFlags {
  network?: string[];
  state?: string[];
  within?: number;
  station?: string[];
  all?: boolean;
  since?: string;
  through?: string;
  forecasts: boolean;
  format: Format;
}

interface DataFlags {
  dates?: string;
  units: Units;
  format: 'json' | 'csv';
}

interface RegressionFlags {
  period: string;
  day: string;
  predictor: Predictor;
  units: Units;
}

/** A keyed body as JSON, or as CSV (`date` and its columns). */
function printData(
  out: Output,
  format: 'json' | 'csv',
  body: { variables: string[]; results: Record<string, (number | null)[]> },
): void {
  out.data(
    format === 'json'
      ? renderJson(body, out.stdoutIsTty)
      : [...keyedCsvLines(body)].join('').replace(/\r\n$/, ''),
  );
}
