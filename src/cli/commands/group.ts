import type { Command } from 'commander';
import { createGroup, readGroups, removeGroup } from '../../pourpoints/groups.js';
import { computeBasinIndex } from '../../stats/basin-index.js';
import { parseDateRange } from '../../stats/dates.js';
import { cliFlags, statsOptions } from '../../stats/query.js';
import type { Runner } from '../context.js';
import { renderJson } from '../json.js';
import { emit, type Format, formatOption } from '../options.js';
import { REFERENCE_YEARS_HELP } from './stats.js';

/** `snowdb group create|list|remove|index`: named groups of basins, answered over their union. */
export function registerGroup(program: Command, run: Runner): void {
  const group = program
    .command('group')
    .description(
      'named groups of basins: their union answers as a basin (group:<name>), and a basin index over them',
    );
  group
    .command('create')
    .description('create a group of two or more indexed basins')
    .argument('<name>', 'lower-case letters, digits and -; the group is then group:<name>')
    .argument('<members...>', 'basin ids')
    .option('--replace', 'redefine an existing group')
    .action((name: string, members: string[], opts: { replace?: boolean }, cmd: Command) =>
      run(cmd, async (ctx) => {
        const g = await createGroup(await ctx.openDatabase(), name, members, opts);
        ctx.out.data(`group:${g.name}: ${g.members.join(', ')}`);
      }),
    );
  group
    .command('list')
    .description('every group and its members')
    .addOption(formatOption())
    .action((opts: { format: Format }, cmd: Command) =>
      run(cmd, async (ctx) => {
        const groups = await readGroups(await ctx.openDatabase('read'));
        emit(ctx.out, opts.format, groups, () =>
          Object.entries(groups)
            .map(([n, g]) => `group:${n}\t${g.members.join(', ')}`)
            .join('\n'),
        );
      }),
    );
  group
    .command('remove')
    .description('remove a group (its members stay)')
    .argument('<name>', 'the group')
    .action((name: string, _opts: unknown, cmd: Command) =>
      run(cmd, async (ctx) => {
        await removeGroup(await ctx.openDatabase(), name);
        ctx.out.data(`removed group:${name}`);
      }),
    );
  group
    .command('index')
    .description(
      "the NRCS basin index of a group per date: 100 × Σ members' current mean ÷ Σ their medians on that day (members with both)",
    )
    .argument('<dataset>', 'an active dataset')
    .argument('<name>', 'the group')
    .option('--dates <start/end>', "inclusive ISO date range; '..' leaves an end open (default: every date)")
    .option('--variable <key>', 'the variable', 'swe')
    .option('--normals-years <Y1..Y2>', REFERENCE_YEARS_HELP)
    .action(
      (
        dataset: string,
        name: string,
        opts: { dates?: string; variable: string; normalsYears?: string },
        cmd: Command,
      ) =>
        run(cmd, async (ctx) => {
          const { normals } = statsOptions({ normals: true, normals_years: opts.normalsYears }, cliFlags);
          const body = await computeBasinIndex(await ctx.openDatabase('read'), {
            dataset,
            group: `group:${name}`,
            dates: parseDateRange(opts.dates ?? '../..', 'dates'),
            variable: opts.variable,
            normals,
          });
          ctx.out.data(renderJson(body, ctx.out.stdoutIsTty));
        }),
    );
}
