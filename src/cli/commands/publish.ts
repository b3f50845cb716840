import type { Command } from 'commander';
import { publishDatabase, targetBucket } from '../../app/publish.js';
import { publishStatic } from '../../app/publish-static.js';
import type { Runner } from '../context.js';
import { collect, emit, type Format, formatOption } from '../options.js';

const mib = (n: number): string => `${(n / 2 ** 20).toFixed(1)} MiB`;

/** `publish <folder|s3://bucket/prefix>`: push the database's read files to where replicas read them. */
export function registerPublish(program: Command, run: Runner): void {
  program
    .command('publish')
    .description(
      "copy the database's read files to a folder (for any static web server) or an s3:// bucket, new content only; replicas read it with 'api serve --config <url>'",
    )
    .argument('<target>', 'a folder, or s3://<bucket>/<prefix> (AWS credentials from the usual environment)')
    .option(
      '--static',
      "also write static files under static/<dataset>/: a CSV per basin and per date, each basin's latest, one Parquet file, index.json",
    )
    .option(
      '--static-zone <token>',
      'zone axis of the static files, repeatable (default: whole basins)',
      collect,
    )
    .addOption(formatOption())
    .action(
      (target: string, opts: { format: Format; static?: boolean; staticZone?: string[] }, cmd: Command) =>
        run(cmd, async (ctx) => {
          const db = await ctx.openDatabase();
          const r = await publishDatabase(db, target, {
            s3: ctx.settings.s3,
            pauseMs: ctx.settings.swapPauseMs,
          });
          const statics = opts.static
            ? await publishStatic(db, targetBucket(target, ctx.settings.s3), opts.staticZone ?? [])
            : [];
          emit(ctx.out, opts.format, opts.static ? { ...r, static: statics } : r, () =>
            [
              `published ${r.files} files (${mib(r.bytes)}) to ${r.target} at ${r.published_at}: ` +
                `${r.uploaded} new (${mib(r.uploaded_bytes)}), ${r.removed} no longer used removed`,
              ...statics.map(
                (s) =>
                  `static/${s.dataset}/: ${s.files} files, ${s.uploaded} uploaded, ${s.removed} no longer made removed`,
              ),
            ].join('\n'),
          );
        }),
    );
}
