import { csvField as field } from '../util/csv.js';
import { ZONE_LAYERS } from '../zones/layers.js';
import type { ZoneRef } from '../zones/schemes.js';
import type { AllBasinsStats } from './all-basins.js';
import type { CompareBody } from './compare.js';
import type { CompactStats } from './engine.js';
import type { PointBody } from './point.js';

const num = (v: number | string | null): string => (v === null ? '' : String(v));

/** The columns of one axis (docs/reference.md#stats): banded min/max, categorical label, threshold side/threshold. */
export function axisHeader(layer: string): string[] {
  const s = ZONE_LAYERS.find((l) => l.key === layer)?.scheme;
  if (s?.kind === 'banded' || s?.kind === 'bucketed') {
    const u = s.kind === 'banded' ? `_${s.unit}` : '';
    return [`${layer}_min${u}`, `${layer}_max${u}`];
  }
  if (s?.kind === 'threshold') return [`${layer}_side`, `${layer}_threshold_${s.unit}`];
  return [layer];
}

/**
 * An axis's cells of one zone. The unclassified cell keeps number columns numeric (empty bounds
 * and threshold) and is named only in text columns: a categorical label or a threshold's side.
 */
export function axisValues(z: ZoneRef): string[] {
  if (z.kind === 'unclassified') {
    const s = ZONE_LAYERS.find((l) => l.key === z.layer)?.scheme;
    if (s?.kind === 'categorical') return ['unclassified'];
    return s?.kind === 'threshold' ? ['unclassified', ''] : ['', ''];
  }
  if (z.kind === 'band') return [String(z.min), String(z.max)];
  if (z.kind === 'class') return [z.label];
  return [z.label, String(z.threshold)];
}

const line = (cells: readonly string[]): string => `${cells.map(field).join(',')}\r\n`;

/** A table of rows keyed by date (stats), day (normals) or water year (summaries). */
export interface CellTable {
  readonly zone_layers: readonly string[];
  readonly variables: readonly string[];
  readonly zones: CompactStats['zones'];
  readonly results: Readonly<Record<string, readonly (number | string | null)[][]>>;
}

/** Header cells: the key column, the axis columns in selection order, `area_m2`, then the stat names. */
export const headerOf = (
  body: Pick<CellTable, 'zone_layers' | 'variables' | 'zones'>,
  key: string,
): string[] => [
  key,
  ...body.zone_layers.flatMap(axisHeader),
  'area_m2',
  ...(inAcres(body) ? ['area_acres'] : []),
  ...body.variables,
];

/** Whether the cells name their area in acres too (US units). */
const inAcres = (body: Pick<CellTable, 'zones'>) => body.zones[0]?.area_acres !== undefined;

/** One row of cells per (key, emitted cell). */
export function* rowsOf(body: Pick<CellTable, 'zones' | 'results'>): Generator<string[]> {
  for (const [date, matrix] of Object.entries(body.results)) {
    for (let k = 0; k < body.zones.length; k++) {
      const z = body.zones[k]!;
      const acres = z.area_acres === undefined ? [] : [num(z.area_acres)];
      yield [date, ...z.zone.flatMap(axisValues), num(z.area_m2), ...acres, ...matrix[k]!.map(num)];
    }
  }
}

/**
 * The CSV table of a stats body: one row per (date, emitted cell); header `date` (or `key`), the
 * axis columns in selection order, `area_m2`, then the stat names. Null is an empty field. CRLF
 * rows. Yields one line at a time so long series can be streamed.
 */
export function* csvLines(body: CellTable, key = 'date'): Generator<string> {
  yield line(headerOf(body, key));
  for (const row of rowsOf(body)) yield line(row);
}

/** The CSV table of an every-basin body: the one-basin table (rows keyed by `key`) with a leading `pourpoint` column. */
export function* allBasinsCsvLines(
  body: Pick<AllBasinsStats<CellTable['results']>, 'zone_layers' | 'variables' | 'basins'>,
  key = 'date',
): Generator<string> {
  yield line(['pourpoint', ...headerOf({ ...body, zones: body.basins[0]?.zones ?? [] }, key)]);
  for (const b of body.basins) for (const row of rowsOf(b)) yield line([b.pourpoint, ...row]);
}

/** The CSV table of a comparison (same columns in every dataset): the one-basin table with a leading `dataset` column. */
export function* compareCsvLines(body: CompareBody): Generator<string> {
  const first = body.datasets[0];
  if (first === undefined) return;
  yield line(['dataset', ...headerOf(first, 'date')]);
  for (const d of body.datasets) for (const row of rowsOf(d)) yield line([d.dataset, ...row]);
}

/** The CSV table of a keyed answer (a point, a station): `date` (or `key`), then one column per variable. */
export function* keyedCsvLines(
  body: Pick<PointBody, 'variables' | 'results'>,
  key = 'date',
): Generator<string> {
  yield line([key, ...body.variables]);
  for (const [date, row] of Object.entries(body.results)) yield line([date, ...row.map(num)]);
}

/** The CSV table of a point answer: `date`, then one column per variable. */
export const pointCsvLines = (body: PointBody): Generator<string> => keyedCsvLines(body);
