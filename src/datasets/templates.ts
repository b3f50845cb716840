import { DATASET_CONFIG_RESOURCE, type DatasetConfig, type VariableSpec } from './config.js';

/** Zone layers every template enables (parameters as snowtool's defaults). */
const DEFAULT_ZONES: DatasetConfig['zones'] = {
  terrain: {
    elevation: { band_step_ft: 1000 },
    aspect: null,
    northness: { buckets: 4 },
    eastness: { buckets: 4 },
    aspect_entropy: { entropy_threshold: 0.5 },
  },
  landcover: { forest_cover: { threshold_pct: 50 } },
};

/** Millimetres (or kg m⁻² of water) → metres of water. */
const MM = 0.001;

const snodasVar = (description: string, unit: string, scale: number, volume?: number): VariableSpec => ({
  description,
  unit,
  scale_factor: scale,
  dtype: 'int16',
  nodata: -9999,
  reducer: 'mean',
  ...(volume === undefined ? {} : { volume_m_per_unit: volume }),
});

/** SNODAS masked CONUS grid (from 2013-10-01): 6935 × 3351 cells of 30″ on WGS 84. */
const snodas: DatasetConfig = {
  resource: DATASET_CONFIG_RESOURCE,
  template: 'snodas',
  description: 'NOAA NOHRSC SNODAS daily, masked CONUS grid (NSIDC G02158)',
  ingester: 'snodas',
  grid: {
    crs: 'EPSG:4326',
    origin_x: -124.73333333333333,
    origin_y: 52.875,
    cell_width: 0.008333333333333,
    cell_height: 0.008333333333333,
    width: 6935,
    height: 3351,
    tile_size: 256,
  },
  footprint: null,
  variables: {
    swe: snodasVar('modeled snow water equivalent (06 UTC snapshot)', 'mm', 1, MM),
    depth: snodasVar('modeled snow depth (06 UTC snapshot)', 'mm', 1),
    precip_solid: snodasVar('solid precipitation, 24 h total', 'kg_per_m2', 10, MM),
    precip_liquid: snodasVar('liquid precipitation, 24 h total', 'kg_per_m2', 10, MM),
    average_temp: snodasVar('snowpack average temperature, 24 h mean', 'k', 10),
    sublimation_blowing: snodasVar('blowing-snow sublimation, 24 h total', 'mm', 100),
    runoff: snodasVar('snowmelt runoff at the base of the pack, 24 h total', 'mm', 100, MM),
    sublimation: snodasVar('snowpack sublimation, 24 h total', 'mm', 100),
  },
  zones: DEFAULT_ZONES,
  // The store serves the long series users ask for; the fluxes are read from the COGs.
  series: { variables: ['depth', 'swe'] },
};

/** UA SWANN 800 m: the producer's NAD83 grid (cell 0.008333325394357°, not exactly 1/120°). */
const swann: DatasetConfig = {
  resource: DATASET_CONFIG_RESOURCE,
  template: 'swann-800m',
  description: 'University of Arizona daily SWE and snow depth, 800 m (SWANN)',
  ingester: 'swann',
  grid: {
    crs: 'EPSG:4269',
    origin_x: -125.0208,
    origin_y: 49.9375,
    cell_width: 0.008333325394357,
    cell_height: 0.008333325394357,
    width: 7025,
    height: 3105,
    tile_size: 256,
  },
  footprint: null,
  variables: {
    swe: {
      description: 'snow water equivalent',
      unit: 'mm',
      scale_factor: 1,
      dtype: 'int16',
      nodata: -999,
      reducer: 'mean',
      volume_m_per_unit: MM,
      // Downscale.py sets SWE < 1 mm to 0 and masks with -999: nothing below 0 is valid.
      valid_range: [0, 32767],
    },
    depth: {
      description: 'snow depth',
      unit: 'mm',
      scale_factor: 1,
      dtype: 'int16',
      nodata: -999,
      reducer: 'mean',
      valid_range: [0, 32767],
    },
  },
  zones: DEFAULT_ZONES,
};

/** MODIS sinusoid tiling: tile edge (m), pixel size (m), world upper-left corner (m). */
export const MODIS_TILE = 1111950.5196666666;
export const MODIS_PIXEL = 463.3127165693847;
export const MODIS_WORLD_X0 = -20015109.354;
export const MODIS_WORLD_Y0 = 10007554.677;

/** Outline of MODIS tile (h, v) as a closed ring in sinusoid metres. */
export function modisTileRing(h: number, v: number): number[][] {
  const x0 = MODIS_WORLD_X0 + h * MODIS_TILE;
  const y1 = MODIS_WORLD_Y0 - v * MODIS_TILE;
  const x1 = x0 + MODIS_TILE;
  const y0 = y1 - MODIS_TILE;
  return [
    [x0, y0],
    [x1, y0],
    [x1, y1],
    [x0, y1],
    [x0, y0],
  ];
}

/** Published SPIRES NRT tiles of the western US (h10v05 never has data). */
export const INSTARR_TILES: readonly (readonly [number, number])[] = [
  [8, 4],
  [8, 5],
  [9, 4],
  [9, 5],
  [10, 4],
];

/** SPIRES variables with the `valid_range` of the producer's CDL (v2024.1.0). */
const u8 = (description: string, max = 100): VariableSpec => ({
  description,
  unit: 'percent',
  scale_factor: 1,
  dtype: 'uint8',
  nodata: 255,
  reducer: 'mean',
  valid_range: [0, max],
});
const u16 = (description: string, unit: string, range: [number, number]): VariableSpec => ({
  description,
  unit,
  scale_factor: 1,
  dtype: 'uint16',
  nodata: 65535,
  reducer: 'mean',
  valid_range: range,
});

/** SPIRES NRT on MODIS tiles h08–h10 × v04–v05 (7200 × 4800 cells of 463 m). */
const instarr: DatasetConfig = {
  resource: DATASET_CONFIG_RESOURCE,
  template: 'instarr',
  description: 'SPIRES NRT daily snow properties (MODIS/Terra 500 m sinusoid, tiles h08-h10 v04-v05)',
  ingester: 'spires',
  grid: {
    crs: 'MODIS:SINUSOIDAL',
    origin_x: -11119505.196666665,
    origin_y: 5559752.598333333,
    cell_width: MODIS_PIXEL,
    cell_height: MODIS_PIXEL,
    width: 7200,
    height: 4800,
    tile_size: 512,
  },
  footprint: { type: 'MultiPolygon', coordinates: INSTARR_TILES.map(([h, v]) => [modisTileRing(h, v)]) },
  variables: {
    snow_fraction: u8('on-the-ground snow cover fraction'),
    viewable_snow_fraction: u8('viewable snow cover fraction'),
    albedo_dirty_flat: u8('snow albedo, flat surface'),
    albedo_dirty_terrain_corrected: u8('snow albedo, terrain corrected'),
    deltavis: u8('albedo reduction from impurities (visible)', 75),
    grain_size: u16('snow grain size', 'um', [40, 1190]),
    dust_concentration: u16('dust concentration', 'ppm', [0, 950]),
    snow_cover_duration: u16('days of snow cover since 1 October', 'day', [0, 366]),
    radiative_forcing: u16('radiative forcing of impurities', 'w_per_m2', [0, 500]),
  },
  zones: DEFAULT_ZONES,
};

/** The built-in templates by name. */
export const TEMPLATES: Readonly<Record<string, DatasetConfig>> = {
  snodas,
  'swann-800m': swann,
  instarr,
};

export const TEMPLATE_NAMES = Object.keys(TEMPLATES);
