import type { Command } from 'commander';
import { SnowdbError } from '../../errors.js';
import { ingestSources } from '../../ingest/run.js';
import type { Runner } from '../context.js';
import { emit, type Format, formatOption } from '../options.js';
import { renderTable } from '../output.js';
import { progressBar } from '../progress.js';

/** `dataset ingest`: source files → per-date COGs. */
export function registerIngest(group: Command, run: Runner): void {
  group
    .command('ingest')
    .description(
      'turn source files into per-date COGs: SNODAS daily tars, SWANN NetCDF, SPIRES tiles (files or folders)',
    )
    .argument('<name>', 'dataset name')
    .argument('<source...>', 'source files or folders')
    .option('--force', 'rebuild dates that are up to date')
    .option(
      '--queue <redis-url>',
      "run the dates as jobs on this Redis queue's workers (snowdb worker); sources on a path every worker sees",
    )
    .addOption(formatOption())
    .action(
      (
        name: string,
        sources: string[],
        opts: { force?: boolean; queue?: string; format: Format },
        cmd: Command,
      ) =>
        run(cmd, async (ctx) => {
          const r = await ingestSources(await ctx.openDatabase(), name, sources, {
            execute:
              opts.queue === undefined
                ? undefined
                : await (await import('../../app/jobs.js')).queuedIngest(opts.queue, ctx.settings),
            force: opts.force,
            swapPauseMs: ctx.settings.swapPauseMs,
            onProgress: progressBar(ctx.out, `${name} ingest`),
          });
          const failed = r.results.filter((x) => x.action === 'failed');
          for (const f of failed) ctx.out.warn(ctx.out.style.red(`failed: ${f.message}`));
          emit(ctx.out, opts.format, r, () =>
            renderTable(
              ['dataset', 'date', 'action', 'source'],
              r.results.map((x) => [name, x.date, x.action, x.source]),
            ),
          );
          if (opts.format !== 'json') {
            const n = (a: string) => r.results.filter((x) => x.action === a).length;
            ctx.out.info(
              `ingested ${n('ingested')}, up-to-date ${n('up-to-date')}, kept later stage ${n('kept-later-stage')}, failed ${failed.length}`,
            );
          }
          if (failed.length > 0)
            throw new SnowdbError(
              'invalid-source',
              `${failed.length} source(s) failed; see the messages above`,
            );
        }),
    );
}
