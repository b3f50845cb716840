import type { Command } from 'commander';
import { rasterizeIndexed } from '../../datasets/rasterize.js';
import { SnowdbError } from '../../errors.js';
import { gitHubSettingsFrom } from '../../io/github.js';
import { listPourpoints, reindexPourpoints, showPourpoint } from '../../pourpoints/catalog.js';
import { listFolderSource, singleFileSource } from '../../pourpoints/sources.js';
import { type SyncReport, syncPourpoints } from '../../pourpoints/sync.js';
import type { CliContext, Runner } from '../context.js';
import { renderJson } from '../json.js';
import { type Format, formatOption } from '../options.js';
import { renderTable } from '../output.js';
import { progressBar } from '../progress.js';

const km2 = (m2: number) => (m2 / 1e6).toFixed(2);
const coverageText = (c: Readonly<Record<string, string>>) =>
  Object.entries(c)
    .map(([d, v]) => `${d}:${v}`)
    .join(' ');

/** Summary line: `imported 3 (2 new, 1 updated), 40 unchanged, skipped 2 point-only, pruned 0, invalid 1`. */
export function summaryLine(r: SyncReport): string {
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

function printReport(ctx: CliContext, r: SyncReport, format: Format): void {
  for (const s of r.skipped)
    ctx.out.info(`skipped point-only record ${s.triplet} (no basin polygon): ${s.label}`);
  for (const w of r.warnings) ctx.out.warn(ctx.out.style.yellow(`warning: ${w}`));
  for (const i of r.invalid) ctx.out.warn(ctx.out.style.red(`invalid: ${i.message}`));
  if (r.aoiBuilt > 0)
    ctx.out.info(`built ${r.aoiBuilt} AOI raster(s) of imported basins in the registered datasets`);
  if (r.pruned.length > 0) ctx.out.info(`${r.dryRun ? 'would prune' : 'pruned'}: ${r.pruned.join(', ')}`);
  ctx.out.data(format === 'json' ? renderJson(r, ctx.out.stdoutIsTty) : summaryLine(r));
  if (r.invalid.length === 1) throw new SnowdbError('invalid-pourpoint', r.invalid[0]!.message);
  if (r.invalid.length > 1) {
    throw new SnowdbError(
      'invalid-pourpoint',
      `${r.invalid.length} invalid source files; see the messages above`,
    );
  }
}

export function registerPourpoint(program: Command, run: Runner): void {
  const group = program.command('pourpoint').description('basin records: import, sync, list, show, reindex');

  group
    .command('import')
    .description('import one record (a local file, a raw http(s) URL or a GitHub file URL)')
    .argument('<source>', 'record file or URL')
    .option('--dry-run', 'report what would be imported; write nothing')
    .addOption(formatOption())
    .action((source: string, opts: { dryRun?: boolean; format: Format }, cmd: Command) =>
      run(cmd, async (ctx) => {
        const db = await ctx.openDatabase();
        const listing = await singleFileSource(source, gitHubSettingsFrom(ctx.env));
        const report = await syncPourpoints(db, listing, { mode: 'import', dryRun: opts.dryRun });
        printReport(ctx, report, opts.format);
      }),
    );

  group
    .command('sync')
    .description(
      'mirror every *.geojson of a folder or GitHub folder URL: import, skip point-only, prune absent',
    )
    .argument('<source>', 'local directory, or https://github.com/<owner>/<repo>/tree/<ref>/<path>')
    .option('--prune-to <dir>', 'archive folder for pruned records (required when the sync would prune)')
    .option('--dry-run', 'report what would change; write nothing')
    .addOption(formatOption())
    .action((source: string, opts: { pruneTo?: string; dryRun?: boolean; format: Format }, cmd: Command) =>
      run(cmd, async (ctx) => {
        const db = await ctx.openDatabase();
        const listing = await listFolderSource(source, gitHubSettingsFrom(ctx.env));
        ctx.out.info(`syncing ${listing.files.length} record file(s) from ${listing.description}`);
        const report = await syncPourpoints(db, listing, {
          mode: 'sync',
          pruneTo: opts.pruneTo,
          dryRun: opts.dryRun,
          onProgress: progressBar(ctx.out, 'reading records'),
          onRasterProgress: progressBar(ctx.out, 'AOI rasters'),
        });
        printReport(ctx, report, opts.format);
      }),
    );

  group
    .command('list')
    .description('indexed (basin-bearing) pourpoints with area and coverage per dataset')
    .addOption(formatOption())
    .action((opts: { format: Format }, cmd: Command) =>
      run(cmd, async (ctx) => {
        const entries = await listPourpoints(await ctx.openDatabase());
        if (opts.format === 'json') {
          const rows = entries.map((e) => ({
            triplet: e.triplet,
            name: e.name,
            area_meters: e.areaMeters,
            point: e.point,
            coverage: e.coverage,
          }));
          ctx.out.data(renderJson(rows, ctx.out.stdoutIsTty));
          return;
        }
        if (entries.length === 0) {
          ctx.out.data(
            "no pourpoints yet (add them with 'snowdb pourpoint import <file>' or 'snowdb pourpoint sync <dir|url>')",
          );
          return;
        }
        const rows = entries.map((e) => [e.triplet, e.name, km2(e.areaMeters), coverageText(e.coverage)]);
        ctx.out.data(renderTable(['triplet', 'name', 'area_km2', 'coverage'], rows));
      }),
    );

  group
    .command('show')
    .description('one pourpoint: ids, outflow point, basin area and shape, coverage')
    .argument('<triplet>', 'station triplet, e.g. 06287000:MT:USGS')
    .addOption(formatOption())
    .action((triplet: string, opts: { format: Format }, cmd: Command) =>
      run(cmd, async (ctx) => {
        const d = await showPourpoint(await ctx.openDatabase(), triplet);
        if (opts.format === 'json') {
          ctx.out.data(renderJson(d, ctx.out.stdoutIsTty));
          return;
        }
        const outside =
          d.point_outside_m === 0
            ? 'inside the basin'
            : `${(d.point_outside_m / 1000).toFixed(3)} km OUTSIDE the basin polygon`;
        const rows: [string, string][] = [
          ['triplet', d.triplet],
          ['name', d.name],
          ['awdb_id', d.awdb_id ?? ''],
          ['usgs_id', d.usgs_id ?? ''],
          ['area_km2', km2(d.area_meters)],
          ['area_meters', String(d.area_meters)],
          ['point', `${d.point[0]}, ${d.point[1]} (${outside})`],
          ['basin', `${d.parts} part(s), ${d.vertices} vertices, bbox ${d.basin_bbox.join(', ')}`],
          ['geometry_hash', d.geometry_hash],
          ['coverage', coverageText(d.coverage) || '(no datasets registered)'],
          ['record', d.record],
        ];
        ctx.out.data(renderTable(['field', 'value'], rows));
      }),
    );

  group
    .command('rasterize')
    .description('build missing or stale AOI rasters of one basin (or --all) in every (or the given) dataset')
    .argument('[triplet]', 'station triplet (or --all)')
    .option('--all', 'every indexed basin')
    .option('--rebuild', 'rebuild even current rasters')
    .option('-d, --dataset <name...>', 'only these datasets (default: every registered dataset)')
    .addOption(formatOption())
    .action(
      (
        triplet: string | undefined,
        opts: { all?: boolean; rebuild?: boolean; dataset?: string[]; format: Format },
        cmd: Command,
      ) =>
        run(cmd, async (ctx) => {
          if ((triplet === undefined) === (opts.all !== true)) {
            throw new SnowdbError('usage-error', 'name exactly one basin: a triplet or --all');
          }
          const rows = await rasterizeIndexed(await ctx.openDatabase(), {
            triplet,
            datasets: opts.dataset,
            rebuild: opts.rebuild,
            onProgress: progressBar(ctx.out, 'rasterizing basins'),
          });
          if (opts.format === 'json') return ctx.out.data(renderJson(rows, ctx.out.stdoutIsTty));
          ctx.out.data(
            renderTable(
              ['triplet', 'dataset', 'coverage', 'action'],
              rows.map((r) => [r.triplet, r.dataset, r.coverage, r.action]),
            ),
          );
          const built = rows.filter((r) => r.action === 'built').length;
          ctx.out.info(
            `built ${built}, current ${rows.filter((r) => r.action === 'current').length}, no raster (not covered) ${rows.length - built - rows.filter((r) => r.action === 'current').length}`,
          );
        }),
    );

  group
    .command('reindex')
    .description('rebuild pourpoints/index.geojson from the stored records, coverage included')
    .action((_opts: unknown, cmd: Command) =>
      run(cmd, async (ctx) => {
        const r = await reindexPourpoints(await ctx.openDatabase());
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
