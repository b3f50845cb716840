import type { Command } from 'commander';
import { publishDatabase } from '../../app/publish.js';
import type { Runner } from '../context.js';
import { emit, type Format, formatOption } from '../options.js';

const mib = (n: number): string => `${(n / 2 ** 20).toFixed(1)} MiB`;

/** `publish <folder|s3://bucket/prefix>`: push the database's read files to where replicas read them. */
export function registerPublish(program: Command, run: Runner): void {
  program
    .command('publish')
    .description(
      "copy the database's read files to a folder (for any static web server) or an s3:// bucket, new content only; replicas read it with 'api serve --config <url>'",
    )
    .argument('<target>', 'a folder, or s3://<bucket>/<prefix> (AWS credentials from the usual environment)')
    .addOption(formatOption())
    .action((target: string, opts: { format: Format }, cmd: Command) =>
      run(cmd, async (ctx) => {
        const r = await publishDatabase(await ctx.openDatabase(), target, {
          s3: ctx.settings.s3,
          pauseMs: ctx.settings.swapPauseMs,
        });
        emit(
          ctx.out,
          opts.format,
          r,
          () =>
            `published ${r.files} files (${mib(r.bytes)}) to ${r.target} at ${r.published_at}: ` +
            `${r.uploaded} new (${mib(r.uploaded_bytes)}), ${r.removed} no longer used removed`,
        );
      }),
    );
}
