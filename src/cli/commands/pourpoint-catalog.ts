import type { Command } from 'commander';
import { rasterizePourpoints } from '../../app/pourpoints.js';
import { SnowdbError } from '../../errors.js';
import {
  BASIN_TABLE,
  basinTableRow,
  listPourpoints,
  type PourpointDetail,
  showPourpoint,
} from '../../pourpoints/catalog.js';
import type { Runner } from '../context.js';
import { emit, emitRows, type Format, formatOption } from '../options.js';
import { renderTable } from '../output.js';
import { progressBar } from '../progress.js';

const km2 = (m2: number) => (m2 / 1e6).toFixed(2);
const coverageText = (c: Readonly<Record<string, string>>) =>
  Object.entries(c)
    .map(([d, v]) => `${d}:${v}`)
    .join(' ');

/** `pourpoint list | show | rasterize`: what the index holds, and the basins' AOI rasters. */
export function registerPourpointCatalog(group: Command, run: Runner): void {
  group
    .command('list')
    .description('indexed (basin-bearing) pourpoints with area and coverage per dataset')
    .addOption(formatOption(['table', 'json', 'csv']))
    .action((opts: { format: Format }, cmd: Command) =>
      run(cmd, async (ctx) => {
        const entries = await listPourpoints(await ctx.openDatabase('read'));
        const json = entries.map((e) => ({
          triplet: e.triplet,
          name: e.name,
          area_meters: e.areaMeters,
          point: e.point,
          coverage: e.coverage,
        }));
        emitRows(
          ctx.out,
          opts.format,
          json,
          // CSV: the whole basin table; the terminal's table: its narrow columns.
          opts.format === 'csv' ? BASIN_TABLE : ['triplet', 'name', 'area_km2', 'coverage'],
          entries.map((e) =>
            opts.format === 'csv'
              ? basinTableRow(e, e.coverage)
              : [e.triplet, e.name, km2(e.areaMeters), coverageText(e.coverage)],
          ),
          "no pourpoints yet (add them with 'snowdb pourpoint import <file>' or 'snowdb pourpoint sync <dir|url>')",
        );
      }),
    );

  group
    .command('show')
    .description('one pourpoint: ids, outflow point, basin area and shape, coverage')
    .argument('<triplet>', 'station triplet, e.g. 06287000:MT:USGS')
    .addOption(formatOption())
    .action((triplet: string, opts: { format: Format }, cmd: Command) =>
      run(cmd, async (ctx) => {
        const d = await showPourpoint(await ctx.openDatabase('read'), triplet);
        emit(ctx.out, opts.format, d, () => showText(d));
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
          const rows = await rasterizePourpoints(await ctx.openDatabase(), {
            triplet,
            datasets: opts.dataset,
            rebuild: opts.rebuild,
            onProgress: progressBar(ctx.out, 'rasterizing basins'),
          });
          emit(ctx.out, opts.format, rows, () =>
            renderTable(
              ['triplet', 'dataset', 'coverage', 'action'],
              rows.map((r) => [r.triplet, r.dataset, r.coverage, r.action]),
            ),
          );
          if (opts.format === 'json') return;
          const built = rows.filter((r) => r.action === 'built').length;
          ctx.out.info(
            `built ${built}, current ${rows.filter((r) => r.action === 'current').length}, no raster (not covered) ${rows.length - built - rows.filter((r) => r.action === 'current').length}`,
          );
        }),
    );
}

/** The table `pourpoint show` prints. */
function showText(d: PourpointDetail): string {
  const outside =
    d.point_outside_m === null
      ? 'no outlet: a point inside the basin'
      : d.point_outside_m === 0
        ? 'inside the basin'
        : `${(d.point_outside_m / 1000).toFixed(3)} km OUTSIDE the basin polygon`;
  const declared =
    d.declared_area_m2 === null
      ? 'none declared'
      : `${km2(d.declared_area_m2)} km² declared (basinarea); the polygon's is ${d.area_vs_declared_percent! >= 0 ? '+' : ''}${d.area_vs_declared_percent!.toFixed(2)} %`;
  const rows: [string, string][] = [
    ['triplet', d.triplet],
    ['name', d.name],
    ['awdb_id', d.awdb_id ?? ''],
    ['usgs_id', d.usgs_id ?? ''],
    ['area_km2', km2(d.area_meters)],
    ['area_meters', String(d.area_meters)],
    ['declared_area', declared],
    ['inside', d.parents.join(', ') || '(no other basin)'],
    ['holds', d.children.join(', ') || '(no other basin)'],
    ['point', `${d.point[0]}, ${d.point[1]} (${outside})`],
    ['basin', `${d.parts} part(s), ${d.vertices} vertices, bbox ${d.basin_bbox.join(', ')}`],
    ['geometry_hash', d.geometry_hash],
    ['coverage', coverageText(d.coverage) || '(no datasets registered)'],
    ['record', d.record],
  ];
  return renderTable(['field', 'value'], rows);
}
