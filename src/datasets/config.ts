import { z } from 'zod';
import { parseJsonAs } from '../db/json-file.js';
import { SnowdbError } from '../errors.js';
import { writeJsonAtomic } from '../io/atomic.js';
import { readExistingFile } from '../io/fs.js';
import type { Store } from '../io/store.js';
import { crsFromId } from '../raster/crs.js';
import { DTYPES, type DType } from '../raster/dtype.js';
import type { AreaGeometry } from '../raster/geometry.js';
import type { Grid } from '../raster/grid.js';
import { weakMemo } from '../util/weak-memo.js';

/** Resource type tag of a dataset config. */
export const DATASET_CONFIG_RESOURCE = 'snowdb.dataset/v1';

export const INGESTERS = ['snodas', 'swann', 'spires'] as const;

/** One gridded variable: stored values divided by `scale_factor` give `unit`. */
export const VariableSchema = z.strictObject({
  description: z.string(),
  unit: z.string().regex(/^[a-z0-9_]+$/),
  scale_factor: z.number().positive(),
  dtype: z.enum(Object.keys(DTYPES) as [DType, ...DType[]]),
  nodata: z.number().refine(Number.isFinite, 'nodata must be finite'),
  reducer: z.literal('mean'),
  /** Metres of water per unit: present on water-equivalent variables, which also report a volume. */
  volume_m_per_unit: z.number().positive().optional(),
  /** Inclusive [min, max] the producer documents, in stored units; an ingest refuses values outside. */
  valid_range: z
    .tuple([z.number(), z.number()])
    .refine(([lo, hi]) => lo <= hi, 'valid_range must be [min, max]')
    .optional(),
});

export const GridSchema = z.strictObject({
  crs: z
    .string()
    .refine(
      (id) => crsFromId(id) !== null,
      'unknown CRS (known: EPSG:4326, EPSG:4269, EPSG:5070, UTM, MODIS:SINUSOIDAL)',
    ),
  origin_x: z.number(),
  origin_y: z.number(),
  cell_width: z.number().positive(),
  cell_height: z.number().positive(),
  width: z.number().int().positive(),
  height: z.number().int().positive(),
  tile_size: z.number().int().positive().multipleOf(16),
});

const Position = z.array(z.number()).min(2);
const FootprintSchema = z.strictObject({
  type: z.literal('MultiPolygon'),
  coordinates: z.array(z.array(z.array(Position).min(4)).min(1)).min(1),
});

export const DatasetConfigSchema = z
  .strictObject({
    resource: z.literal(DATASET_CONFIG_RESOURCE),
    template: z.string().optional(),
    description: z.string(),
    ingester: z.enum(INGESTERS),
    grid: GridSchema,
    /** Where data can exist, in the grid CRS (default: the whole grid extent). */
    footprint: FootprintSchema.nullable(),
    variables: z.record(z.string().regex(/^[a-z][a-z0-9_]*$/), VariableSchema),
    /** Zone layers and their parameters, per provider (the zones issue gives them meaning). */
    zones: z.record(z.string(), z.record(z.string(), z.unknown())),
    /** The producer's archive this dataset is fetched from (default: the producer's public one). */
    archive: z.strictObject({ url: z.string().url() }).optional(),
    /** Days the newest date usually trails today when the producer is on time (default: by template). */
    usual_lag_days: z.number().int().min(0).max(3660).optional(),
    /** Variables kept in the time-contiguous series store (default: every variable). */
    series: z.strictObject({ variables: z.array(z.string()) }).optional(),
  })
  .superRefine((c, ctx) => {
    for (const v of c.series?.variables ?? [])
      if (!(v in c.variables))
        ctx.addIssue({ code: 'custom', path: ['series', 'variables'], message: `unknown variable '${v}'` });
  });

export type DatasetConfig = z.infer<typeof DatasetConfigSchema>;
export type VariableSpec = z.infer<typeof VariableSchema>;

/** The raster-core grid of a dataset config. */
export function gridOf(config: DatasetConfig): Grid {
  const g = config.grid;
  return {
    crs: crsFromId(g.crs)!,
    originX: g.origin_x,
    originY: g.origin_y,
    cellWidth: g.cell_width,
    cellHeight: g.cell_height,
    width: g.width,
    height: g.height,
    tileSize: g.tile_size,
  };
}

export function footprintOf(config: DatasetConfig): AreaGeometry | null {
  return config.footprint as AreaGeometry | null;
}

/** One reported statistic of a variable: `mean_swe_mm`, or the volume `total_swe_m3`. */
export interface StatName {
  readonly variable: string;
  readonly stat: string;
  readonly reducer: 'mean' | 'total';
  readonly unit: string;
}

/** A variable is a snow-cover fraction when its key ends in `snow_fraction` and its unit is percent. */
export const isSnowFraction = (key: string, v: Pick<VariableSpec, 'unit'>): boolean =>
  key.endsWith('snow_fraction') && v.unit === 'percent';

/**
 * What a variable's basin total is, and the factor that turns Σ value (stored unit ÷ scale) ×
 * area (m²) into it: a water volume (m³; metres per unit) or, for a snow-cover fraction, the
 * snow-covered area (m²; 0.01 per percent). Null: the variable has no total.
 */
export function totalOf(
  key: string,
  v: Pick<VariableSpec, 'unit' | 'volume_m_per_unit'>,
): { readonly unit: 'm3' | 'm2'; readonly perUnit: number } | null {
  if (v.volume_m_per_unit !== undefined) return { unit: 'm3', perUnit: v.volume_m_per_unit };
  if (isSnowFraction(key, v)) return { unit: 'm2', perUnit: 0.01 };
  return null;
}

/** Stat names of every variable (sorted by key): the mean, then the total (volume or snow-covered area) where there is one. */
export const statNames: (config: DatasetConfig) => readonly StatName[] = weakMemo((config) =>
  Object.keys(config.variables)
    .sort()
    .flatMap((key) => {
      const v = config.variables[key]!;
      const mean: StatName = {
        variable: key,
        stat: `${v.reducer}_${key}_${v.unit}`,
        reducer: 'mean',
        unit: v.unit,
      };
      const total = totalOf(key, v);
      return total === null
        ? [mean]
        : [
            mean,
            {
              variable: key,
              stat: `total_${key}_${total.unit}`,
              reducer: 'total' as const,
              unit: total.unit,
            },
          ];
    }),
);

/**
 * Read and validate a dataset config.
 * @throws SnowdbError `invalid-config` naming the file and the first problem.
 */
export async function readDatasetConfig(store: Store, file: string): Promise<DatasetConfig> {
  const text = await readExistingFile(store, file).then(
    (b) => b.toString('utf8'),
    (e: NodeJS.ErrnoException) => {
      throw new SnowdbError('invalid-config', `cannot read dataset config ${file}: ${e.code ?? e.message}`);
    },
  );
  return parseJsonAs(text, file, DatasetConfigSchema, 'a snowdb dataset config');
}

export async function writeDatasetConfig(file: string, config: DatasetConfig): Promise<void> {
  await writeJsonAtomic(file, config);
}
