import { type Command, Option } from 'commander';
import { SnowdbError } from '../../errors.js';
import { pointCsvLines } from '../../stats/csv.js';
import { parseDateRange } from '../../stats/dates.js';
import { executePoint, openPointPlan } from '../../stats/point.js';
import { UNITS, type Units } from '../../stats/units.js';
import type { Runner } from '../context.js';
import { renderJson } from '../json.js';
import { collect } from '../options.js';

/** A coordinate flag's value, or a usage error naming the flag. */
function degrees(flag: string, text: string): number {
  const v = Number(text);
  if (text.trim() === '' || !Number.isFinite(v))
    throw new SnowdbError('malformed-query-parameter', `${flag}: expected degrees, got '${text}'`, {
      parameter: flag,
    });
  return v;
}

/** `snowdb point <dataset> --lon … --lat …`: the values of the grid cell holding a point. */
export function registerPoint(program: Command, run: Runner): void {
  program
    .command('point')
    .description(
      "the values of the one grid cell holding a WGS 84 point, per date and variable, with the cell's column, row, centre and bounds",
    )
    .argument('<dataset>', 'an active dataset')
    .requiredOption('--lon <degrees>', 'longitude, WGS 84')
    .requiredOption('--lat <degrees>', 'latitude, WGS 84')
    .option('--dates <start/end>', "inclusive ISO date range; '..' leaves an end open (default: every date)")
    .option('--variable <key>', 'variable key, repeatable (default: all)', collect)
    .addOption(new Option('--units <units>', 'metric (mm) or us (in)').choices(UNITS).default('metric'))
    .addOption(new Option('--format <format>', 'output format').choices(['json', 'csv']).default('json'))
    .action(
      (
        dataset: string,
        opts: {
          lon: string;
          lat: string;
          dates?: string;
          variable?: string[];
          units: Units;
          format: 'json' | 'csv';
        },
        cmd: Command,
      ) =>
        run(cmd, async (ctx) => {
          const plan = await openPointPlan(await ctx.openDatabase('read'), {
            dataset,
            lon: degrees('--lon', opts.lon),
            lat: degrees('--lat', opts.lat),
            dates: parseDateRange(opts.dates ?? '../..', 'dates'),
            variables: opts.variable,
            units: opts.units,
          });
          for (const note of plan.notes) ctx.out.info(`note: ${note}`);
          const body = await executePoint(plan);
          ctx.out.data(
            opts.format === 'json'
              ? renderJson({ dataset, ...body }, ctx.out.stdoutIsTty)
              : [...pointCsvLines(body)].join('').replace(/\r\n$/, ''),
          );
        }),
    );
}
