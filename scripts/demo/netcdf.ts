/**
 * NetCDF-4 writers for the demo sources, through h5wasm: HDF5 with dimension scales (what netCDF-C
 * and GDAL's netCDF driver read as dimensions), chunked and deflated like the producers' files.
 *   UA SWANN: `UA_SWE_Depth_800m_v1_<date>_<stage>.nc`, SWE and DEPTH int16 mm (time, lat, lon), fill -999.
 *   SPIRES NRT: one MODIS tile, nine variables (time, y, x), x/y cell centres in sinusoid metres.
 */
import h5wasm from 'h5wasm/node';
import { gridOf } from '../../src/datasets/config.js';
import {
  MODIS_PIXEL,
  MODIS_TILE,
  MODIS_WORLD_X0,
  MODIS_WORLD_Y0,
  TEMPLATES,
} from '../../src/datasets/templates.js';

type H5File = InstanceType<typeof h5wasm.File>;
type H5Dataset = InstanceType<typeof h5wasm.Dataset>;
type Typed = Int16Array | Uint8Array | Uint16Array | Float64Array;

/** h5wasm dtype string of a typed array (little-endian). */
function dtypeOf(a: Typed): string {
  if (a instanceof Int16Array) return '<h';
  if (a instanceof Uint16Array) return '<H';
  if (a instanceof Uint8Array) return '<B';
  return '<d';
}

function attrs(d: H5Dataset | H5File, a: Readonly<Record<string, string | number>>): void {
  for (const [k, v] of Object.entries(a)) {
    if (typeof v === 'string') d.create_attribute(k, v);
    else d.create_attribute(k, new Float64Array([v]), [1], '<d');
  }
}

/** A 1-D coordinate variable that is also its dimension's scale. */
function coordinate(f: H5File, name: string, values: Float64Array, a: Record<string, string>): void {
  f.create_dataset({ name, data: values, shape: [values.length], dtype: '<d' });
  const d = f.get(name) as H5Dataset;
  d.make_scale(name);
  attrs(d, a);
}

/** Rows [r0, r1) and columns [c0, c1) of a row-major grid of `cols` columns outside which every value is 0. */
export type Window = readonly [r0: number, r1: number, c0: number, c1: number];

/** The smallest window of `grids` (same shape) outside which all are 0; rows empty (r0 = r1) when all are 0. */
export function nonZeroWindow(grids: readonly Int16Array[], cols: number): Window {
  let [r0, r1, c0, c1] = [Number.POSITIVE_INFINITY, -1, Number.POSITIVE_INFINITY, -1];
  const zeros = Buffer.alloc(cols * 2);
  for (const g of grids) {
    const bytes = Buffer.from(g.buffer, g.byteOffset, g.byteLength);
    for (let r = 0; r * cols < g.length; r++) {
      const at = r * cols;
      if (zeros.equals(bytes.subarray(at * 2, (at + cols) * 2))) continue; // memcmp: a blank row
      let a = 0;
      while (g[at + a] === 0) a++;
      let b = cols - 1;
      while (g[at + b] === 0) b--;
      r0 = Math.min(r0, r);
      r1 = Math.max(r1, r);
      c0 = Math.min(c0, a);
      c1 = Math.max(c1, b);
    }
  }
  return r1 < 0 ? [0, 0, 0, 0] : [r0, r1 + 1, c0, c1 + 1];
}

/**
 * A (time, rows, cols) data variable, deflated in chunks, with its fill value and dimensions
 * attached. With `window`, only the chunks under it are written: the others stay unallocated and
 * read as HDF5's default fill, 0 (so `data` must be 0 outside it), as in sparse producer files.
 */
function variable(
  f: H5File,
  name: string,
  data: Typed,
  dims: readonly [string, string, string],
  shape: readonly [number, number],
  fill: number,
  a: Record<string, string>,
  window?: Window,
): void {
  const dtype = dtypeOf(data);
  const [rows, cols] = shape;
  const chunks = [1, Math.min(512, rows), Math.min(512, cols)];
  const gzip = { compression: 'gzip', compression_opts: 1 } as const;
  let d: H5Dataset;
  if (window) {
    // One 0 in chunk (0, 0), grown to full size; then the window alone.
    const one = data.slice(0, 1).fill(0);
    f.create_dataset({
      name,
      data: one,
      shape: [1, 1, 1],
      maxshape: [1, rows, cols],
      dtype,
      chunks,
      ...gzip,
    });
    d = f.get(name) as H5Dataset;
    d.resize([1, rows, cols]);
    const [r0, r1, c0, c1] = window;
    if (r1 > r0) {
      const part = data.slice(0, (r1 - r0) * (c1 - c0));
      for (let r = r0; r < r1; r++)
        part.set(data.subarray(r * cols + c0, r * cols + c1), (r - r0) * (c1 - c0));
      d.write_slice(
        [
          [0, 1],
          [r0, r1],
          [c0, c1],
        ],
        part,
      );
    }
  } else {
    f.create_dataset({ name, data, shape: [1, rows, cols], dtype, chunks, ...gzip });
    d = f.get(name) as H5Dataset;
  }
  const fillArray =
    data instanceof Int16Array
      ? new Int16Array([fill])
      : data instanceof Uint16Array
        ? new Uint16Array([fill])
        : new Uint8Array([fill]);
  d.create_attribute('_FillValue', fillArray, [1], dtype);
  attrs(d, a);
  for (const [i, dim] of dims.entries()) d.attach_scale(i, dim);
}

/** Days since 1900-01-01 of a YYYYMMDD date (the time coordinate's value). */
const daysSince1900 = (date: string) =>
  (Date.UTC(Number(date.slice(0, 4)), Number(date.slice(4, 6)) - 1, Number(date.slice(6, 8))) -
    Date.UTC(1900, 0, 1)) /
  86_400_000;

/** The UA SWANN 800 m grid (the template's). */
export const SWANN_GRID = gridOf(TEMPLATES['swann-800m']!);

/**
 * Write a SWANN daily file: `swe`, `depth` are north-up int16 mm rows of the UA grid. With `sparse`,
 * only the window holding their non-zero values is written (0, no snow, elsewhere): `true` finds
 * it; a Window names one known to hold them.
 */
export async function writeSwann(
  path: string,
  date: string,
  swe: Int16Array,
  depth: Int16Array,
  sparse: boolean | Window = false,
): Promise<void> {
  await h5wasm.ready;
  const g = SWANN_GRID;
  const window = sparse === true ? nonZeroWindow([swe, depth], g.width) : sparse || undefined;
  const f = new h5wasm.File(path, 'w');
  try {
    coordinate(f, 'time', new Float64Array([daysSince1900(date)]), {
      units: 'days since 1900-01-01 00:00:00',
      calendar: 'gregorian',
    });
    const lat = new Float64Array(g.height).map((_, i) => g.originY - (i + 0.5) * g.cellHeight);
    const lon = new Float64Array(g.width).map((_, i) => g.originX + (i + 0.5) * g.cellWidth);
    coordinate(f, 'lat', lat, { units: 'degrees_north', standard_name: 'latitude' });
    coordinate(f, 'lon', lon, { units: 'degrees_east', standard_name: 'longitude' });
    const dims = ['time', 'lat', 'lon'] as const;
    const shape = [g.height, g.width] as const;
    variable(
      f,
      'SWE',
      swe,
      dims,
      shape,
      -999,
      { units: 'mm', long_name: 'snow water equivalent', grid_mapping: 'crs' },
      window,
    );
    variable(
      f,
      'DEPTH',
      depth,
      dims,
      shape,
      -999,
      { units: 'mm', long_name: 'snow depth', grid_mapping: 'crs' },
      window,
    );
    f.create_dataset({ name: 'crs', data: new Int16Array([0]), shape: [], dtype: '<h' });
    attrs(f.get('crs') as H5Dataset, {
      grid_mapping_name: 'latitude_longitude',
      semi_major_axis: 6378137,
      inverse_flattening: 298.257222101,
      spatial_ref:
        'GEOGCS["NAD83",DATUM["North_American_Datum_1983",SPHEROID["GRS 1980",6378137,298.257222101]],PRIMEM["Greenwich",0],UNIT["degree",0.0174532925199433],AUTHORITY["EPSG","4269"]]',
      GeoTransform: `${g.originX} ${g.cellWidth} 0 ${g.originY} 0 ${-g.cellHeight}`,
    });
    attrs(f, { Conventions: 'CF-1.6', title: 'snowdb demo: UA SWE/depth 800 m layout, generated values' });
  } finally {
    f.close();
  }
}

/** MODIS sinusoid: world upper-left (m), tile edge (m), pixel (m), pixels per tile edge. */
export const MODIS = {
  x0: MODIS_WORLD_X0,
  y0: MODIS_WORLD_Y0,
  tile: MODIS_TILE,
  pixel: MODIS_PIXEL,
  n: 2400,
};

/** SPIRES NRT variables: name, dtype, fill, units. */
export const SPIRES_VARIABLES = [
  ['snow_fraction', 'u8', 255, 'percent'],
  ['viewable_snow_fraction', 'u8', 255, 'percent'],
  ['albedo_dirty_flat', 'u8', 255, 'percent'],
  ['albedo_dirty_terrain_corrected', 'u8', 255, 'percent'],
  ['deltavis', 'u8', 255, 'percent'],
  ['grain_size', 'u16', 65535, 'um'],
  ['dust_concentration', 'u16', 65535, 'ppm'],
  ['snow_cover_duration', 'u16', 65535, 'day'],
  ['radiative_forcing', 'u16', 65535, 'W m-2'],
] as const;

export type SpiresVariable = (typeof SPIRES_VARIABLES)[number][0];

/** Write one SPIRES NRT tile (h, v) of `date`; `values(name)` gives its 2400 × 2400 north-up grid. */
export async function writeSpiresTile(
  path: string,
  h: number,
  v: number,
  date: string,
  values: (name: SpiresVariable) => Uint8Array | Uint16Array,
): Promise<void> {
  await h5wasm.ready;
  const { n, pixel } = MODIS;
  const x0 = MODIS.x0 + h * MODIS.tile;
  const y1 = MODIS.y0 - v * MODIS.tile;
  const f = new h5wasm.File(path, 'w');
  try {
    coordinate(f, 'time', new Float64Array([daysSince1900(date)]), {
      units: 'days since 1900-01-01',
      calendar: 'standard',
    });
    const axis = (start: number, step: number) => new Float64Array(n).map((_, i) => start + (i + 0.5) * step);
    coordinate(f, 'y', axis(y1, -pixel), { standard_name: 'projection_y_coordinate', units: 'm', axis: 'Y' });
    coordinate(f, 'x', axis(x0, pixel), { standard_name: 'projection_x_coordinate', units: 'm', axis: 'X' });
    for (const [name, , fill, units] of SPIRES_VARIABLES)
      variable(f, name, values(name), ['time', 'y', 'x'], [n, n], fill, { units, grid_mapping: 'crs' });
    attrs(f, { Conventions: 'CF-1.7', title: 'snowdb demo: SPIRES NRT tile layout, generated values' });
  } finally {
    f.close();
  }
}
