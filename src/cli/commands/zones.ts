import { type Command, Option } from 'commander';
import { SnowdbError } from '../../errors.js';
import { checkProvider, type GenerateOptions, generateZones } from '../../zones/generate.js';
import { PROVIDERS, type Provider } from '../../zones/layers.js';
import type { Runner } from '../context.js';
import { emit, type Format, formatOption } from '../options.js';
import { renderTable } from '../output.js';
import { progressBar } from '../progress.js';

/** `--source terrain dem.tif --source landcover nlcd.tif` arrives as one flat list: pair it up. */
function sourcePairs(flat: readonly string[]): Partial<Record<Provider, string>> {
  if (flat.length % 2 !== 0) {
    throw new SnowdbError(
      'usage-error',
      `--source takes two values, <provider> <path> (got: ${flat.join(' ')})`,
    );
  }
  const out: Partial<Record<Provider, string>> = {};
  for (let i = 0; i < flat.length; i += 2) {
    const p = checkProvider(flat[i]!);
    if (out[p] !== undefined) throw new SnowdbError('usage-error', `--source ${p} given twice`);
    out[p] = flat[i + 1]!;
  }
  return out;
}

export function registerZoneCommands(group: Command, run: Runner): void {
  group
    .command('generate-zones')
    .description(
      'generate zone layers (terrain: elevation, aspect, northness, eastness, aspect entropy; landcover: forest cover) ' +
        'for the named datasets in one shared read of each source; default sources are USGS 3DEP and Annual NLCD over the network',
    )
    .argument('<name...>', 'dataset names (give them before --source)')
    .option(
      '--source <provider-and-path...>',
      'a local source: <provider> <path>, repeatable (e.g. --source terrain dem.tif)',
    )
    .addOption(new Option('--provider <provider...>', 'only these providers').choices(PROVIDERS))
    .option('--force', 'regenerate layers that are current')
    .option(
      '--queue <redis-url>',
      "run each provider as a job on this Redis queue's workers (snowdb worker); sources on a path every worker sees",
    )
    .addOption(formatOption())
    .action(
      (
        names: string[],
        opts: { source?: string[]; provider?: Provider[]; force?: boolean; queue?: string; format: Format },
        cmd: Command,
      ) =>
        run(cmd, async (ctx) => {
          const db = await ctx.openDatabase();
          const bars = new Map<string, (d: number, t: number) => void>();
          const choices: GenerateOptions = {
            sources: sourcePairs(opts.source ?? []),
            urls: ctx.settings.zoneSources,
            providers: opts.provider,
            force: opts.force,
            onProgress: (label, done, total) => {
              if (!bars.has(label)) bars.set(label, progressBar(ctx.out, label));
              bars.get(label)!(done, total);
            },
          };
          const outcomes =
            opts.queue === undefined
              ? await generateZones(db, names, choices)
              : await (await import('../../app/jobs.js')).queuedZones(
                  db,
                  ctx.settings,
                  names,
                  choices,
                  opts.queue,
                );
          emit(ctx.out, opts.format, outcomes, () =>
            renderTable(
              ['dataset', 'provider', 'action', 'window', 'layers'],
              outcomes.map((o) => [
                o.dataset,
                o.provider,
                o.action,
                o.window ? `${o.window.col} ${o.window.row} ${o.window.width}x${o.window.height}` : '',
                o.layers.map((l) => l.split('/').pop()).join(' '),
              ]),
            ),
          );
          if (opts.format === 'json') return;
          const source = [...new Set(outcomes.map((o) => o.source).filter((s) => s !== null))];
          if (source.length > 0) ctx.out.info(`source: ${source.join('; ')}`);
          for (const o of outcomes.filter((x) => x.action === 'no-basins')) {
            ctx.out.warn(
              `${o.dataset}: no basin AOI rasters yet, so no ${o.provider} layers (import pourpoints first)`,
            );
          }
          for (const o of outcomes.filter((x) => x.action === 'outside')) {
            ctx.out.warn(`${o.dataset}: the ${o.provider} source covers none of its basins`);
          }
        }),
    );
}
