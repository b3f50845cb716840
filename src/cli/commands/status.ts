import type { Command } from 'commander';
import { CHECKS } from '../../app/health/checks.js';
import { type DbStatus, readStatus, runDoctor } from '../../app/status.js';
import { SnowdbError } from '../../errors.js';
import type { Runner } from '../context.js';
import { collect, emit, type Format, formatOption } from '../options.js';
import { renderTable } from '../output.js';

export function registerStatus(program: Command, run: Runner): void {
  program
    .command('status')
    .description('per-dataset artifacts, date span and health of the database')
    .addOption(formatOption())
    .action((opts: { format: Format }, cmd: Command) =>
      run(cmd, async (ctx) => {
        const status = await readStatus(await ctx.openDatabase());
        emit(ctx.out, opts.format, status, () => statusText(status));
      }),
    );
  program
    .command('doctor')
    .description('run every health check; exit 1 when one fails (basins outside a domain are information)')
    .option(
      '--fix',
      'first remove what interrupted commands left (temp files, unlinked date versions, stale locks)',
    )
    .option(
      '-d, --dataset <name>',
      'check only this dataset (repeatable; skips the database-wide checks)',
      collect,
      [],
    )
    .option(
      '--check <name>',
      `run only this check (repeatable): ${CHECKS.join(', ')} (freshness, whether the newest date is late, runs only when named: for cron)`,
      collect,
      [],
    )
    .option('--include-inactive', 'check inactive datasets too (default: active ones only)')
    .addOption(formatOption())
    .action(
      (
        opts: {
          format: Format;
          fix?: boolean;
          dataset: string[];
          check: string[];
          includeInactive?: boolean;
        },
        cmd: Command,
      ) =>
        run(cmd, async (ctx) => {
          const report = await runDoctor(await ctx.openDatabase(), {
            fix: opts.fix === true,
            datasets: opts.dataset,
            checks: opts.check,
            includeInactive: opts.includeInactive === true,
          });
          emit(ctx.out, opts.format, report, () => {
            const rows = report.findings.map((f) => [
              f.severity,
              f.check,
              f.dataset || '-',
              f.target,
              f.issue,
            ]);
            return [
              `database: ${report.root}`,
              ...report.removed.map((p) => `removed: ${p}`),
              ...(rows.length ? [renderTable(['', 'check', 'dataset', 'target', 'issue'], rows)] : []),
              report.ok ? 'doctor: every check passed' : `doctor: ${report.failures} check(s) failed`,
            ].join('\n');
          });
          if (!report.ok)
            throw new SnowdbError('health-check-failed', `${report.failures} health check(s) failed`);
        }),
    );
}

function statusText(status: DbStatus): string {
  const lines = [`database: ${status.root}`];
  if (status.datasets.length === 0) {
    lines.push("datasets: none yet (create one with 'snowdb dataset create <name> --template <t>')");
  } else {
    lines.push(
      renderTable(
        [
          'dataset',
          'active',
          'area raster',
          'AOI rasters',
          'zone layers',
          'dates',
          'first',
          'last',
          'health',
        ],
        status.datasets.map((d) => [
          d.name,
          d.active ? 'yes' : 'no',
          d.area_raster ? 'yes' : 'missing',
          `${d.aoi_rasters} of ${d.covered_basins}`,
          `${d.zone_layers} of ${d.zone_layers_enabled}`,
          String(d.dates),
          d.first_date ?? '-',
          d.last_date ?? '-',
          d.health,
        ]),
      ),
    );
  }
  lines.push(
    status.pourpoints === 0
      ? "pourpoints: none yet (add them with 'snowdb pourpoint import <file>' or 'snowdb pourpoint sync <dir|url>')"
      : `pourpoints: ${status.pourpoints} basin-bearing`,
  );
  return lines.join('\n');
}
