import type { Command } from 'commander';
import { readStatus } from '../../db/status.js';
import type { Runner } from '../context.js';
import { renderJson } from '../json.js';
import { type Format, formatOption } from '../options.js';
import { renderTable } from '../output.js';

export function registerStatus(program: Command, run: Runner): void {
  program
    .command('status')
    .description('per-dataset artifacts, date span and health of the database')
    .addOption(formatOption())
    .action((opts: { format: Format }, cmd: Command) =>
      run(cmd, async (ctx) => {
        const status = await readStatus(await ctx.openDatabase());
        if (opts.format === 'json') {
          ctx.out.data(renderJson(status, ctx.out.stdoutIsTty));
          return;
        }
        const lines = [`database: ${status.root}`];
        if (status.datasets.length === 0) {
          lines.push("datasets: none yet (create one with 'snowdb dataset create <name> --template <t>')");
        } else {
          lines.push(
            renderTable(
              ['dataset', 'active', 'config'],
              status.datasets.map((d) => [d.name, d.active ? 'yes' : 'no', d.config]),
            ),
          );
        }
        lines.push(
          status.pourpoints === 0
            ? "pourpoints: none yet (add them with 'snowdb pourpoint import <file>' or 'snowdb pourpoint sync <dir|url>')"
            : `pourpoints: ${status.pourpoints} basin-bearing`,
        );
        ctx.out.data(lines.join('\n'));
      }),
    );
}
