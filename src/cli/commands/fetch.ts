import type { Command } from 'commander';
import { fetchDataset } from '../../app/fetch.js';
import type { FetchChoices } from '../../app/fetch-options.js';
import { updateDatabase, updateFailed } from '../../app/update.js';
import { SnowdbError } from '../../errors.js';
import type { FetchResult } from '../../fetch/run.js';
import type { Runner } from '../context.js';
import { emit, type Format, formatOption } from '../options.js';
import { renderTable } from '../output.js';
import { fetchProgress } from '../progress.js';

const concurrency = (v: string): number => Number(v);

const resultRows = (name: string, rs: readonly FetchResult[]) =>
  renderTable(
    ['dataset', 'date', 'action', 'MB', 'source'],
    rs.map((r) => [name, r.date, r.action, (r.bytes / 1e6).toFixed(1), r.source]),
  );

/** `dataset fetch`: dates from the producer's archive, through the ingest path. */
export function registerFetch(group: Command, run: Runner): void {
  group
    .command('fetch')
    .description(
      "download dates from the producer's public archive into .cache/sources/<name>/ and ingest them (SNODAS: NSIDC G02158; SWANN: UA, best stage; SPIRES: NRT tiles)",
    )
    .argument('<name>', 'dataset name')
    .requiredOption(
      '--dates <start/end>',
      'ISO dates, inclusive: 2024-01-01/2024-03-31, one date, or 2024-01-01/.. (to today)',
    )
    .option('--concurrency <n>', 'downloads at once (1-32)', concurrency, 4)
    .option('--keep-downloads', 'keep the downloaded files in the cache after their dates are ingested')
    .option('--dry-run', 'list what would be fetched; download nothing')
    .option('--queue <redis-url>', "run each date as a job on this Redis queue's workers (snowdb worker)")
    .addOption(formatOption())
    .action(
      (
        name: string,
        opts: {
          dates: string;
          concurrency: number;
          keepDownloads?: boolean;
          dryRun?: boolean;
          queue?: string;
          format: Format;
        },
        cmd: Command,
      ) =>
        run(cmd, async (ctx) => {
          const choices: FetchChoices = {
            concurrency: opts.concurrency,
            dryRun: opts.dryRun,
            keepDownloads: opts.keepDownloads,
            queue: opts.queue,
            ...fetchProgress(ctx.out, name),
          };
          const r = await fetchDataset(await ctx.openDatabase(), ctx.settings, name, opts.dates, choices);
          const failed = r.results.filter((x) => x.action === 'failed');
          for (const f of failed) ctx.out.warn(ctx.out.style.red(`failed: ${f.date}: ${f.message}`));
          emit(ctx.out, opts.format, r, () => resultRows(name, r.results));
          if (opts.format !== 'json') {
            const n = (a: string) => r.results.filter((x) => x.action === a).length;
            const mb = r.results.reduce((s, x) => s + x.bytes, 0) / 1e6;
            ctx.out.info(
              opts.dryRun
                ? `would fetch ${n('would-fetch')}, up-to-date ${n('up-to-date')}, missing ${n('missing')} (from ${r.archive})`
                : `ingested ${n('ingested')}, upgraded ${n('upgraded')}, up-to-date ${n('up-to-date')}, missing ${n('missing')}, failed ${failed.length}; ${mb.toFixed(1)} MB from ${r.archive}`,
            );
          }
          if (failed.length > 0)
            throw new SnowdbError(
              'source-unreachable',
              `${failed.length} date(s) failed; see the messages above`,
            );
        }),
    );
}

/** `update`: every active (or named) dataset up to the newest date its producer has. */
export function registerUpdate(program: Command, run: Runner): void {
  program
    .command('update')
    .description(
      "fetch and ingest every date after each active (or named) dataset's newest, up to the newest its producer has, and SWANN stage upgrades; safe from cron (one update at a time)",
    )
    .argument('[dataset...]', 'datasets (default: every active one)')
    .option('--concurrency <n>', 'downloads at once (1-32)', concurrency, 4)
    .addOption(formatOption())
    .action((names: string[], opts: { concurrency: number; format: Format }, cmd: Command) =>
      run(cmd, async (ctx) => {
        const r = await updateDatabase(await ctx.openDatabase(), ctx.settings, names, {
          concurrency: opts.concurrency,
        });
        if (r.running !== null) {
          emit(ctx.out, opts.format, r, () => `another update is running (pid ${r.running}); nothing done`);
          return;
        }
        emit(ctx.out, opts.format, r, () =>
          r.datasets
            .map((d) =>
              d.error !== null
                ? `${d.dataset}: failed: ${d.error}`
                : d.note !== null
                  ? `${d.dataset}: ${d.note}`
                  : `${d.dataset}: ingested ${d.ingested}, upgraded ${d.upgraded}, missing ${d.missing}, failed ${d.failed}; newest ${d.newest ?? 'none'}`,
            )
            .concat(
              r.stations
                ? [
                    r.stations.error !== null
                      ? `stations: failed: ${r.stations.error}`
                      : `stations: ${r.stations.recorded} records and ${r.stations.forecastPoints} forecast points brought up to date`,
                  ]
                : [],
            )
            .join('\n'),
        );
        for (const d of r.datasets)
          for (const f of d.results.filter((x) => x.action === 'failed'))
            ctx.out.warn(ctx.out.style.red(`failed: ${d.dataset} ${f.date}: ${f.message}`));
        if (updateFailed(r))
          throw new SnowdbError('source-unreachable', 'the update had failures; see the lines above');
      }),
    );
}
