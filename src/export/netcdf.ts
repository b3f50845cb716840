/**
 * The NetCDF-4 export: a plain CF-1.10 cube, basin × time × zone, written through h5wasm (HDF5
 * with dimension scales, what netCDF-C reads as dimensions). Coordinates: `basin` (the ids),
 * `basin_name`, `time` (days since 1970-01-01), `zone` (the index of a cell of the crossed zone
 * axes, the last one `unclassified`) with each axis's definition (`<layer>_min`/`_max`, or its
 * label) and `zone_label`; `area(basin, zone)`, m²; one float64 variable per statistic, NaN where
 * there is no value, with its units and CF standard name where one exists. Each basin's chunk of
 * dates is written as a slab; nothing else is held.
 */
import type H5wasm from 'h5wasm/node';
import type { CellTable } from '../stats/csv.js';
import type { StatsPlan } from '../stats/plan.js';
import type { ZoneRef } from '../zones/schemes.js';

type H5File = InstanceType<(typeof H5wasm)['File']>;
type H5Dataset = InstanceType<(typeof H5wasm)['Dataset']>;

/** CF standard names of snowdb's statistics, where CF has one (units convert: mm of SWE is lwe thickness). */
const STANDARD_NAMES: Readonly<Record<string, string>> = {
  mean_swe: 'lwe_thickness_of_surface_snow_amount',
  mean_depth: 'surface_snow_thickness',
  mean_snow_fraction: 'surface_snow_area_fraction',
};

/** UDUNITS spellings of snowdb's unit suffixes. */
const UDUNITS: Readonly<Record<string, string>> = {
  mm: 'mm',
  in: 'in',
  m3: 'm3',
  acre_ft: 'acre_foot',
  m2: 'm2',
  acres: 'acre',
  kg_per_m2: 'kg m-2',
  k: 'K',
  degf: 'degF',
  percent: 'percent',
};

/** The shape every basin's slabs fill. */
export interface CubeShape {
  readonly pourpoints: readonly string[];
  readonly names: readonly string[];
  readonly dates: readonly string[];
  readonly axes: StatsPlan['axes'];
}

/** Every cell of the crossed axes, in the cube's order (the last the `unclassified` one when there are axes). */
export function cubeZones(axes: StatsPlan['axes']): ZoneRef[][] {
  if (axes.length === 0) return [[]];
  let cells: ZoneRef[][] = [[]];
  for (const { axis } of axes) cells = cells.flatMap((c) => axis.zones.map((z) => [...c, z]));
  return [...cells, axes.map(({ axis }) => ({ kind: 'unclassified', layer: axis.layer }))];
}

const key = (zone: readonly ZoneRef[]) => JSON.stringify(zone);

/** A zone layer's variable name: CF names hold letters, digits and underscores (`terrain_elevation`). */
const ncName = (layer: string) => layer.replaceAll('.', '_');

/** A zone cell in words: `7000–8000 ft · N`, `whole basin`, `unclassified`. */
export function zoneLabelOf(zone: readonly ZoneRef[]): string {
  if (zone.length === 0) return 'whole basin';
  if (zone[0]!.kind === 'unclassified') return 'unclassified';
  return zone
    .map((z) =>
      z.kind === 'band'
        ? `${z.min}–${z.max}${z.unit ? ` ${z.unit}` : ''}`
        : z.kind === 'unclassified'
          ? 'unclassified'
          : z.label,
    )
    .join(' · ');
}

function attrs(d: H5Dataset | H5File, a: Readonly<Record<string, string | number>>): void {
  for (const [k, v] of Object.entries(a)) {
    if (typeof v === 'string') d.create_attribute(k, v);
    else d.create_attribute(k, new Float64Array([v]), [1], '<d');
  }
}

/** A writer of one cube into an open h5wasm file. */
export class NetcdfCube {
  private readonly zones: ZoneRef[][];
  private readonly zoneIndex: Map<string, number>;
  private readonly dateIndex: Map<string, number>;
  private readonly basinIndex: Map<string, number>;
  private vars: string[] | null = null;
  private readonly areaDone = new Set<number>();
  /** The zone axes' coordinate variables (bounds or labels). */
  private readonly axisNames: string[];

  constructor(
    private readonly f: H5File,
    private readonly shape: CubeShape,
    meta: Readonly<Record<string, string>>,
  ) {
    this.zones = cubeZones(shape.axes);
    this.axisNames = shape.axes.flatMap(({ axis }) =>
      axis.scheme.kind === 'banded' || axis.scheme.kind === 'bucketed'
        ? [`${ncName(axis.layer)}_min`, `${ncName(axis.layer)}_max`]
        : [ncName(axis.layer)],
    );
    this.zoneIndex = new Map(this.zones.map((z, i) => [key(z), i]));
    this.dateIndex = new Map(shape.dates.map((d, i) => [d, i]));
    this.basinIndex = new Map(shape.pourpoints.map((p, i) => [p, i]));
    attrs(f, {
      Conventions: 'CF-1.10',
      title: `snowdb basin statistics: ${meta.dataset}`,
      source: meta.generator ?? 'snowdb',
      snowdb_query: JSON.stringify(meta),
    });
    f.create_dataset({ name: 'basin', data: [...shape.pourpoints] });
    const basin = f.get('basin') as H5Dataset;
    basin.make_scale('basin');
    attrs(basin, { long_name: 'basin id (station triplet or <set>:<id>)', cf_role: 'timeseries_id' });
    f.create_dataset({
      name: 'time',
      data: Int32Array.from(shape.dates, (d) => Date.parse(d) / 86_400_000),
      shape: [shape.dates.length],
      dtype: '<i',
    });
    const time = f.get('time') as H5Dataset;
    time.make_scale('time');
    attrs(time, { standard_name: 'time', units: 'days since 1970-01-01', calendar: 'standard' });
    f.create_dataset({
      name: 'zone',
      data: Int32Array.from(this.zones, (_, i) => i),
      shape: [this.zones.length],
      dtype: '<i',
    });
    const zone = f.get('zone') as H5Dataset;
    zone.make_scale('zone');
    attrs(zone, { long_name: "cell of the crossed zone axes (see zone_label and the axes' bounds)" });
    this.oneD('basin_name', [...shape.names], 'basin', { long_name: 'basin name' });
    this.oneD('zone_label', this.zones.map(zoneLabelOf), 'zone', { long_name: 'zone cell' });
    shape.axes.forEach(({ axis }, a) => {
      const refs = this.zones.map((z) => z[a]!);
      if (axis.scheme.kind === 'banded' || axis.scheme.kind === 'bucketed') {
        const unit = axis.scheme.kind === 'banded' ? axis.scheme.unit : '1';
        for (const side of ['min', 'max'] as const)
          this.oneD(
            `${ncName(axis.layer)}_${side}`,
            Float64Array.from(refs, (r) => (r.kind === 'band' ? r[side] : Number.NaN)),
            'zone',
            {
              long_name: `${axis.layer} band ${side === 'min' ? 'lower' : 'upper'} bound`,
              units: unit === 'ft' ? 'ft' : '1',
            },
          );
      } else
        this.oneD(
          ncName(axis.layer),
          refs.map((r) => (r.kind === 'class' ? r.label : r.kind === 'threshold' ? r.side : 'unclassified')),
          'zone',
          { long_name: `${axis.layer} class` },
        );
    });
  }

  private oneD(name: string, data: string[] | Float64Array, dim: string, a: Record<string, string>): void {
    if (data instanceof Float64Array)
      this.f.create_dataset({ name, data, shape: [data.length], dtype: '<d' });
    else this.f.create_dataset({ name, data });
    const d = this.f.get(name) as H5Dataset;
    if (data instanceof Float64Array)
      d.create_attribute('_FillValue', new Float64Array([Number.NaN]), [1], '<d');
    attrs(d, a);
    d.attach_scale(0, dim);
  }

  /** A (basin, …) variable full of NaN's chunks, to be written slab by slab. */
  private cube(
    name: string,
    dims: readonly string[],
    sizes: readonly number[],
    a: Record<string, string>,
  ): void {
    const chunks = sizes.map((s, i) => (i === 0 ? 1 : Math.min(s, i === 1 && dims.length === 3 ? 4096 : s)));
    this.f.create_dataset({
      name,
      data: new Float64Array([Number.NaN]),
      shape: sizes.map(() => 1),
      maxshape: [...sizes],
      dtype: '<d',
      chunks,
      compression: 'gzip',
      compression_opts: 1,
    });
    const d = this.f.get(name) as H5Dataset;
    d.resize([...sizes]);
    d.create_attribute('_FillValue', new Float64Array([Number.NaN]), [1], '<d');
    attrs(d, a);
    for (const [i, dim] of dims.entries()) d.attach_scale(i, dim);
  }

  /** One basin's answer for one chunk of dates: its slab of every variable (and its areas, once). */
  basin(pourpoint: string, body: CellTable): void {
    const B = this.shape.pourpoints.length;
    const T = this.shape.dates.length;
    const Z = this.zones.length;
    if (this.vars === null) {
      this.vars = [...body.variables];
      this.cube('area', ['basin', 'zone'], [B, Z], {
        long_name: 'in-basin area of the zone cell',
        units: 'm2',
      });
      for (const v of this.vars) {
        const unit = Object.keys(UDUNITS).find((u) => v.endsWith(`_${u}`));
        const stem = unit === undefined ? v : v.slice(0, -unit.length - 1);
        const std = STANDARD_NAMES[stem];
        this.cube(v, ['basin', 'time', 'zone'], [B, T, Z], {
          long_name: v.replaceAll('_', ' '),
          ...(unit !== undefined && { units: UDUNITS[unit]! }),
          ...(std !== undefined && { standard_name: std }),
          coordinates: ['basin_name', 'zone_label', ...this.axisNames].join(' '),
        });
      }
    }
    const b = this.basinIndex.get(pourpoint)!;
    const cells = body.zones.map((z) => this.zoneIndex.get(key(z.zone)) ?? -1);
    if (!this.areaDone.has(b)) {
      const area = new Float64Array(Z);
      body.zones.forEach((z, k) => {
        if (cells[k]! >= 0) area[cells[k]!] = z.area_m2;
      });
      (this.f.get('area') as H5Dataset).write_slice(
        [
          [b, b + 1],
          [0, Z],
        ],
        area,
      );
      this.areaDone.add(b);
    }
    const dates = Object.keys(body.results);
    if (dates.length === 0) return;
    const t0 = this.dateIndex.get(dates[0]!)!;
    const t1 = this.dateIndex.get(dates.at(-1)!)! + 1;
    this.vars.forEach((v, c) => {
      const slab = new Float64Array((t1 - t0) * Z).fill(Number.NaN);
      for (const [date, rows] of Object.entries(body.results)) {
        const t = this.dateIndex.get(date)! - t0;
        rows.forEach((row, k) => {
          const x = row[c];
          if (cells[k]! >= 0 && typeof x === 'number') slab[t * Z + cells[k]!] = x;
        });
      }
      (this.f.get(v) as H5Dataset).write_slice(
        [
          [b, b + 1],
          [t0, t1],
          [0, Z],
        ],
        slab,
      );
    });
  }
}
