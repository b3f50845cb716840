import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import type { Database } from '../db/database.js';
import { AOI_DIR, DATES_DIR, ZONES_DIR } from '../db/layout.js';
import { isoDate } from '../util/dates.js';
import { ZONE_LAYERS, type ZoneInfo, zoneInfos } from '../zones/layers.js';
import { AREA_RASTER } from './artifacts.js';
import { type StatName, statNames } from './config.js';
import { type Dataset, openDataset, openDatasets } from './registry.js';

const names = (dir: string) => readdir(dir).catch(() => [] as string[]);

/** Ingested dates of a dataset, ISO `YYYY-MM-DD`, ascending (folders `cogs/<YYYYMMDD>/`). */
export async function ingestedDates(d: Dataset): Promise<string[]> {
  return (await names(join(d.dir, DATES_DIR)))
    .filter((n) => /^\d{8}$/.test(n))
    .sort()
    .map(isoDate);
}

export interface DatasetSummary {
  readonly name: string;
  readonly active: boolean;
  readonly template: string | null;
  readonly config: string;
  readonly dates: number;
  readonly first_date: string | null;
  readonly last_date: string | null;
}

async function summary(d: Dataset): Promise<DatasetSummary> {
  const dates = await ingestedDates(d);
  return {
    name: d.name,
    active: d.link.active,
    template: d.config.template ?? null,
    config: d.link.path,
    dates: dates.length,
    first_date: dates[0] ?? null,
    last_date: dates.at(-1) ?? null,
  };
}

/** Every registered dataset with its state and date span, sorted by name. */
export async function listDatasets(db: Database): Promise<DatasetSummary[]> {
  return Promise.all((await openDatasets(db)).map(summary));
}

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
export async function datasetInfo(db: Database, name: string): Promise<DatasetInfo> {
  const d = await openDataset(db, name);
  const dates = await ingestedDates(d);
  const g = d.config.grid;
  const zoneLayers: string[] = [];
  for (const provider of (await names(join(d.dir, ZONES_DIR))).sort()) {
    for (const f of (await names(join(d.dir, ZONES_DIR, provider))).sort()) {
      if (f.endsWith('.tif')) zoneLayers.push(`${provider}/${f}`);
    }
  }
  return {
    ...(await summary(d)),
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
    aoi_rasters: (await names(join(d.dir, AOI_DIR))).filter((f) => f.endsWith('.tif')).length,
    date_list: dates,
  };
}
