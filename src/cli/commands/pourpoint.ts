import type { Command } from 'commander';
import { fileSource, type ImportReport, importPourpoints, reindex } from '../../app/pourpoints.js';
import { tilingLines } from '../../datasets/tiling.js';
import { SnowdbError } from '../../errors.js';
import { DEFAULT_SET, type SetOptions } from '../../pourpoints/basin-sets.js';
import { listFolderSource } from '../../pourpoints/sources.js';
import type { CliContext, Runner } from '../context.js';
import { emit, type Format, formatOption } from '../options.js';
import { progressBar } from '../progress.js';
import { registerPourpointRemove } from './maintenance.js';
import { registerPourpointCatalog } from './pourpoint-catalog.js';

/** Summary line: `imported 3 (2 new, 1 updated), 40 unchanged, skipped 2 point-only, pruned 0, invalid 1`. */
export function summaryLine(r: ImportReport): string {
  const n = r.imported.length + r.updated.length;
  const parts = [
    `${r.dryRun ? 'would import' : 'imported'} ${n} (${r.imported.length} new, ${r.updated.length} updated)`,
    `${r.unchanged.length} unchanged`,
    `skipped ${r.skipped.length} point-only`,
    `${r.dryRun ? 'would prune' : 'pruned'} ${r.pruned.length}${r.prunedTo ? ` to ${r.prunedTo}` : ''}`,
    `invalid ${r.invalid.length}`,
  ];
  return `${parts.join(', ')}${r.dryRun ? ' (dry run: nothing written)' : ''}`;
}

function printReport(ctx: CliContext, r: ImportReport, format: Format): void {
  for (const s of r.skipped)
    ctx.out.info(`skipped point-only record ${s.triplet} (no basin polygon): ${s.label}`);
  for (const w of r.warnings) ctx.out.warn(ctx.out.style.yellow(`warning: ${w}`));
  for (const i of r.invalid) ctx.out.warn(ctx.out.style.red(`invalid: ${i.message}`));
  if (r.aoiBuilt > 0)
    ctx.out.info(`built ${r.aoiBuilt} AOI raster(s) of imported basins in the registered datasets`);
  for (const t of r.tiling ?? [])
    for (const line of tilingLines(t)) ctx.out.warn(ctx.out.style.yellow(`warning: ${line}`));
  if (r.pruned.length > 0) ctx.out.info(`${r.dryRun ? 'would prune' : 'pruned'}: ${r.pruned.join(', ')}`);
  emit(ctx.out, format, r, () => summaryLine(r));
  if (r.invalid.length === 1) throw new SnowdbError('invalid-pourpoint', r.invalid[0]!.message);
  if (r.invalid.length > 1) {
    throw new SnowdbError(
      'invalid-pourpoint',
      `${r.invalid.length} invalid source files; see the messages above`,
    );
  }
}

/** The options naming a basin set's members. */
interface SetFlags {
  set?: string;
  idField?: string;
  nameField?: string;
  layer?: string;
}

const setOf = (o: SetFlags): SetOptions => ({
  set: o.set,
  idField: o.idField,
  nameField: o.nameField,
  layer: o.layer,
});

function setOptions(cmd: Command): Command {
  return cmd
    .option(
      '--set <name>',
      `the basin set's name: ids are <set>:<id> (default ${DEFAULT_SET}; sync needs it)`,
    )
    .option('--id-field <field>', "the attribute identifying each basin (default: the feature's id)")
    .option('--name-field <field>', 'the attribute naming each basin (default: name, NAME or Name)')
    .option('--layer <name>', 'the layer of a GeoPackage, or the Shapefile of a zip holding several');
}

export function registerPourpoint(program: Command, run: Runner): void {
  const group = program
    .command('pourpoint')
    .description('basin records: import, sync, list, show, rasterize, reindex, remove');

  setOptions(
    group
      .command('import')
      .description(
        'import one BAGIS record, or a basin set: a GeoJSON Feature or FeatureCollection of polygons, a zipped Shapefile or a GeoPackage layer (a local file, a raw http(s) URL or a GitHub file URL)',
      )
      .argument('<source>', 'record or basin-set file, or URL')
      .option('--dry-run', 'report what would be imported; write nothing')
      .addOption(formatOption()),
  ).action((source: string, opts: SetFlags & { dryRun?: boolean; format: Format }, cmd: Command) =>
    run(cmd, async (ctx) => {
      const db = await ctx.openDatabase();
      const { listing, set } = await fileSource(source, ctx.settings.github, setOf(opts));
      const report = await importPourpoints(db, listing, { mode: 'import', dryRun: opts.dryRun, set });
      printReport(ctx, report, opts.format);
    }),
  );

  setOptions(
    group
      .command('sync')
      .description(
        'mirror every *.geojson of a folder or GitHub folder URL (import, skip point-only, prune absent), or a basin-set file into its --set (prune members it lacks)',
      )
      .argument(
        '<source>',
        'local directory, https://github.com/<owner>/<repo>/tree/<ref>/<path>, or a basin-set file with --set',
      )
      .option('--prune-to <dir>', 'archive folder for pruned records (required when the sync would prune)')
      .option('--dry-run', 'report what would change; write nothing')
      .addOption(formatOption()),
  ).action(
    (source: string, opts: SetFlags & { pruneTo?: string; dryRun?: boolean; format: Format }, cmd: Command) =>
      run(cmd, async (ctx) => {
        const db = await ctx.openDatabase();
        if (opts.set !== undefined) {
          const { listing } = await fileSource(source, ctx.settings.github, setOf(opts));
          ctx.out.info(`syncing set ${opts.set} from ${listing.description}`);
          const set = opts.set;
          const report = await importPourpoints(db, listing, {
            mode: 'sync',
            scope: (id) => id.startsWith(`${set}:`),
            pruneTo: opts.pruneTo,
            dryRun: opts.dryRun,
            onRasterProgress: progressBar(ctx.out, 'AOI rasters'),
            set,
          });
          return printReport(ctx, report, opts.format);
        }
        const listing = await listFolderSource(source, ctx.settings.github);
        ctx.out.info(`syncing ${listing.files.length} record file(s) from ${listing.description}`);
        const report = await importPourpoints(db, listing, {
          mode: 'sync',
          pruneTo: opts.pruneTo,
          dryRun: opts.dryRun,
          onProgress: progressBar(ctx.out, 'reading records'),
          onRasterProgress: progressBar(ctx.out, 'AOI rasters'),
        });
        printReport(ctx, report, opts.format);
      }),
  );

  registerPourpointCatalog(group, run);
  registerPourpointRemove(group, run);

  group
    .command('reindex')
    .description('rebuild pourpoints/index.geojson from the stored records, coverage included')
    .action((_opts: unknown, cmd: Command) =>
      run(cmd, async (ctx) => {
        const r = await reindex(await ctx.openDatabase());
        for (const i of r.invalid) ctx.out.warn(ctx.out.style.red(`invalid: ${i.message}`));
        ctx.out.data(`reindexed ${r.indexed} pourpoint(s) into ${r.index}`);
        if (r.invalid.length > 0) {
          throw new SnowdbError(
            'invalid-pourpoint',
            `${r.invalid.length} stored record(s) could not be indexed; see above`,
          );
        }
      }),
    );
}
