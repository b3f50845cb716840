import { join } from 'node:path';
import { currentAoiHashes } from '../datasets/artifacts.js';
import { type StatName, statNames } from '../datasets/config.js';
import { type Freshness, freshnessOf } from '../datasets/freshness.js';
import { type DatasetSummary, datasetSummary, datesOf } from '../datasets/inventory.js';
import { type Dataset, openDataset } from '../datasets/registry.js';
import type { Database } from '../db/database.js';
import { AREA_RASTER } from '../db/layout.js';
import { namesIn } from '../io/fs.js';
import { indexOf } from '../pourpoints/store.js';
import { type PageWriter, rebuildSeries, type SeriesBuildReport } from '../series/build.js';
import { byString } from '../util/compare.js';
import { ZONE_LAYERS, type ZoneInfo, zoneInfos } from '../zones/layers.js';

export interface DatasetInfo extends DatasetSummary {
  readonly description: string;
  readonly ingester: string;
  readonly grid: Dataset['config']['grid'] & {
    readonly bounds: readonly number[];
    readonly geographic: boolean;
  };
  readonly footprint: boolean;
  readonly variables: readonly (StatName & {
    readonly description: string;
    readonly dtype: string;
    readonly nodata: number;
    readonly scale_factor: number;
  })[];
  /** Zone axes the dataset offers (key, parameter, default, unit, domain or classes). */
  readonly zones: readonly ZoneInfo[];
  /** Zone layer files present under `zones/`. */
  readonly zone_layers: readonly string[];
  readonly area_raster: boolean;
  readonly aoi_rasters: number;
  readonly date_list: readonly string[];
}

/** Everything about one registered dataset (active or not). */
/**
 * A folder's names, listed again only when the folder changed (one stat): a server's dataset page
 * then costs no turns of the event loop waiting on the thread pool. Shared: callers copy to sort.
 */
const listed = (db: Database, d: Dataset, dir: string): Promise<readonly string[]> =>
  db.memo(dir, (p) => namesIn(d.store, p));

export async function datasetInfo(db: Database, name: string): Promise<DatasetInfo> {
  const d = await openDataset(db, name);
  const dates = await datesOf(db, d);
  const g = d.config.grid;
  const zoneLayers: string[] = [];
  const names = (dir: string) => listed(db, d, dir);
  for (const provider of [...(await names(d.paths.zonesDir))].sort()) {
    for (const f of [...(await names(join(d.paths.zonesDir, provider)))].sort()) {
      if (f.endsWith('.tif')) zoneLayers.push(`${provider}/${f}`);
    }
  }
  return {
    ...datasetSummary(d, dates),
    description: d.config.description,
    ingester: d.config.ingester,
    grid: {
      ...g,
      geographic: d.grid.crs.geographic,
      bounds: [
        g.origin_x,
        g.origin_y - g.height * g.cell_height,
        g.origin_x + g.width * g.cell_width,
        g.origin_y,
      ],
    },
    footprint: d.footprint !== null,
    variables: statNames(d.config).map((s) => {
      const v = d.config.variables[s.variable]!;
      return {
        ...s,
        description: v.description,
        dtype: v.dtype,
        nodata: v.nodata,
        scale_factor: v.scale_factor,
      };
    }),
    zones: zoneInfos(
      d,
      new Set(ZONE_LAYERS.filter((l) => zoneLayers.includes(`${l.provider}/${l.file}`)).map((l) => l.key)),
    ),
    zone_layers: zoneLayers,
    area_raster: (await names(d.dir)).includes(AREA_RASTER),
    aoi_rasters: (await names(d.paths.aoiDir)).filter((f) => f.endsWith('.tif')).length,
    date_list: dates,
  };
}

/** The active datasets, sorted by name, each with its freshness on `today` (ISO, UTC). */
export async function activeDatasets(db: Database, today: string): Promise<({ name: string } & Freshness)[]> {
  const names = Object.entries(db.config.datasets)
    .filter(([, link]) => link.active)
    .map(([name]) => name)
    .sort(byString);
  return Promise.all(
    names.map(async (name) => {
      const d = await openDataset(db, name);
      return { name, ...freshnessOf(d.config, await datesOf(db, d), today) };
    }),
  );
}

/**
 * `dataset rebuild-series`: the dataset's series store rebuilt, its block list read from the
 * coverage index for every basin it holds at the current AOI hash (else from the AOI rasters).
 */
export async function rebuildSeriesOf(
  db: Database,
  d: Dataset,
  progress: (done: number, total: number) => void,
  pages?: PageWriter,
): Promise<SeriesBuildReport> {
  return rebuildSeries(d, progress, pages, undefined, currentAoiHashes(d, (await indexOf(db)).values()));
}
