/**
 * A point: the values of the one grid cell holding a lon/lat point, per date and variable, with
 * the cell's column and row, its centre and its bounds (in the grid's CRS and in lon/lat). Pure
 * plan (the cell, the dates, the columns), then the stats executor over a one-pixel basin: the
 * series store where it holds the cell, the COGs otherwise.
 */
import proj4 from 'proj4';
import { datesOf } from '../datasets/inventory.js';
import { type Dataset, openActiveDataset } from '../datasets/registry.js';
import type { Database } from '../db/database.js';
import { QueryParameterError } from '../errors.js';
import type { IndexEntry } from '../pourpoints/index-file.js';
import { pixelToWorld, worldToPixel } from '../raster/grid.js';
import { columnTable, executeCube } from './cube.js';
import { type DateQuery, emptySelectionNote, parseDateRange, selectDates } from './dates.js';
import type { ExecuteOptions } from './engine.js';
import { checkAnswerSize, planStats } from './plan.js';
import { type Units, unitIn } from './units.js';

export interface PointQuery {
  readonly dataset: string;
  /** WGS 84 degrees. */
  readonly lon: number;
  readonly lat: number;
  readonly dates: DateQuery;
  /** Variable keys (default: every variable). */
  readonly variables?: readonly string[] | undefined;
  readonly units?: Units | undefined;
  readonly maxValues?: number | undefined;
}

/** The grid cell holding the point. */
export interface PointCell {
  readonly col: number;
  readonly row: number;
  /** The grid's CRS id (`EPSG:4326`, `MODIS:SINUSOIDAL`). */
  readonly crs: string;
  /** Centre and [west, south, east, north] in the grid's CRS units. */
  readonly centre_xy: [number, number];
  readonly bounds_xy: [number, number, number, number];
  /** Centre in WGS 84 lon/lat, and the cell's corners' lon/lat bounds. */
  readonly centre_lonlat: [number, number];
  readonly bounds_lonlat: [number, number, number, number];
}

export interface PointPlan {
  readonly dataset: Dataset;
  readonly lon: number;
  readonly lat: number;
  readonly cell: PointCell;
  readonly dates: readonly string[];
  /** Per column: the variable, the column name (`swe_mm`), and value = stored ÷ scale ÷ divisor + offset. */
  readonly columns: readonly { variable: string; name: string; divisor: number; offset: number }[];
  readonly notes: readonly string[];
  readonly units: Units;
}

export interface PointBody {
  lon: number;
  lat: number;
  cell: PointCell;
  variables: string[];
  /** Date → the cell's value per column (null: no data that date). */
  results: Record<string, (number | null)[]>;
}

/**
 * Plan a point query (pure).
 * @throws QueryParameterError for a position off the globe or outside the grid, an unknown variable, too many values.
 */
export function planPoint(dataset: Dataset, held: readonly string[], q: PointQuery): PointPlan {
  if (!(Math.abs(q.lon) <= 180) || !(Math.abs(q.lat) <= 90))
    throw new QueryParameterError(`lon ${q.lon}, lat ${q.lat} is not a WGS 84 position`, {
      parameter: 'lon',
    });
  const g = dataset.grid;
  const toGrid = g.crs.geographic ? null : proj4('EPSG:4326', g.crs.proj4);
  const [x, y] = toGrid ? toGrid.forward([q.lon, q.lat]) : [q.lon, q.lat];
  const [fc, fr] = worldToPixel(g, x!, y!);
  const col = Math.floor(fc);
  const row = Math.floor(fr);
  if (!(col >= 0 && col < g.width && row >= 0 && row < g.height))
    throw new QueryParameterError(
      `lon ${q.lon}, lat ${q.lat} lies outside the ${dataset.name} grid (${g.width} × ${g.height} cells, ${g.crs.id})`,
      { parameter: 'lon' },
    );
  const keys = Object.keys(dataset.config.variables).sort();
  const wanted = q.variables && q.variables.length > 0 ? [...new Set(q.variables)].sort() : keys;
  for (const v of wanted)
    if (!keys.includes(v))
      throw new QueryParameterError(
        `unknown variable '${v}' for '${dataset.name}'; valid: ${keys.join(', ')}`,
        {
          parameter: 'variable',
          allowed: keys,
        },
      );
  const dates = selectDates(held, q.dates);
  checkAnswerSize(
    dates.length * wanted.length,
    q.maxValues,
    `${dates.length} dates × ${wanted.length} variables`,
  );
  const columns = wanted.map((v) => {
    const { unit, divisor, offset } = unitIn(dataset.config.variables[v]!.unit, q.units ?? 'metric');
    return { variable: v, name: `${v}_${unit}`, divisor, offset };
  });
  const [x0, y1] = pixelToWorld(g, col, row);
  const [x1, y0] = pixelToWorld(g, col + 1, row + 1);
  const toLonLat = (px: number, py: number): [number, number] =>
    toGrid ? (toGrid.inverse([px, py]) as [number, number]) : [px, py];
  const corners = [toLonLat(x0, y0), toLonLat(x1, y0), toLonLat(x1, y1), toLonLat(x0, y1)];
  const cell: PointCell = {
    col,
    row,
    crs: g.crs.id,
    centre_xy: [(x0 + x1) / 2, (y0 + y1) / 2],
    bounds_xy: [x0, y0, x1, y1],
    centre_lonlat: toLonLat((x0 + x1) / 2, (y0 + y1) / 2),
    bounds_lonlat: [
      Math.min(...corners.map((c) => c[0])),
      Math.min(...corners.map((c) => c[1])),
      Math.max(...corners.map((c) => c[0])),
      Math.max(...corners.map((c) => c[1])),
    ],
  };
  const note = dates.length === 0 ? emptySelectionNote(dataset.name, held, q.dates) : null;
  return {
    dataset,
    lon: q.lon,
    lat: q.lat,
    cell,
    dates,
    columns,
    notes: note ? [note] : [],
    units: q.units ?? 'metric',
  };
}

/**
 * Read the cell on every date of a plan through the one executor: the cell is a basin of one
 * pixel weighing 1, so each mean is the stored value ÷ scale exactly, read from the series store
 * where its pages hold the cell's block and from the COGs otherwise (as any basin's dates are).
 */
export async function executePoint(
  p: PointPlan,
  opts: Pick<ExecuteOptions, 'signal' | 'series'> = {},
): Promise<PointBody> {
  const d = p.dataset;
  const id = `point:${p.cell.col}-${p.cell.row}`;
  const entry: IndexEntry = {
    triplet: id,
    name: id,
    point: [p.lon, p.lat],
    outlet: false,
    declaredAreaM2: null,
    outletOutsideM: null,
    areaMeters: 0,
    geometryHash: id,
    basinBbox: p.cell.bounds_lonlat,
    coverage: { [d.name]: 'partial' },
  };
  const window = { col: p.cell.col, row: p.cell.row, width: 1, height: 1 };
  const plan = planStats(
    {
      dataset: d,
      index: new Map([[id, entry]]),
      dates: p.dates,
      drawn: { id, weights: Float64Array.of(1), window },
    },
    {
      dataset: d.name,
      pourpoint: id,
      dates: parseDateRange('../..'),
      variables: p.columns.map((c) => c.variable),
      units: p.units,
    },
  );
  const cube = await executeCube(plan, opts);
  const table = columnTable(cube);
  const C = plan.columns.length;
  // The mean column of each variable (its value × 1 ÷ 1: exact), in the plan's sorted order.
  const at = p.columns.map((c) =>
    plan.columns.findIndex((x) => x.variable === c.variable && x.kind === 'mean'),
  );
  const rows = plan.dates.map((_, i) =>
    at.map((c) => {
      const v = cube.cells.length === 0 ? Number.NaN : table[i * C + c]!;
      return Number.isNaN(v) ? null : v;
    }),
  );
  return {
    lon: p.lon,
    lat: p.lat,
    cell: p.cell,
    variables: p.columns.map((c) => c.name),
    results: Object.fromEntries(plan.dates.map((date, i) => [date, rows[i]!])),
  };
}

/** Plan a point query against the database (an active dataset). */
export async function openPointPlan(db: Database, q: PointQuery): Promise<PointPlan> {
  const dataset = await openActiveDataset(db, q.dataset);
  return planPoint(dataset, await datesOf(db, dataset), q);
}
