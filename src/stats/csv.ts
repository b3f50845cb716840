import type { ZoneRef } from '../zones/schemes.js';
import type { CompactStats } from './engine.js';

/** A CSV field: minimal quoting (RFC 4180). */
const field = (v: string): string => (/[",\r\n]/.test(v) ? `"${v.replaceAll('"', '""')}"` : v);
const num = (v: number | null): string => (v === null ? '' : String(v));

/** The axis columns of one zone (spec §2.5): banded min/max, categorical label, threshold side/threshold. */
function axisHeader(z: ZoneRef): string[] {
  if (z.kind === 'band') {
    const u = z.unit === null ? '' : `_${z.unit}`;
    return [`${z.layer}_min${u}`, `${z.layer}_max${u}`];
  }
  if (z.kind === 'class') return [z.layer];
  return [`${z.layer}_side`, `${z.layer}_threshold_${z.unit}`];
}

function axisValues(z: ZoneRef): string[] {
  if (z.kind === 'band') return [String(z.min), String(z.max)];
  if (z.kind === 'class') return [z.label];
  return [z.label, String(z.threshold)];
}

/**
 * The CSV table of a stats body: one row per (date, emitted cell); header `date`, the axis
 * columns in selection order, `area_m2`, then the stat names. Null is an empty field. CRLF rows.
 * Yields one line at a time so long series can be streamed.
 */
export function* csvLines(body: CompactStats, axisZones: readonly ZoneRef[][] = []): Generator<string> {
  const first = body.zones[0]?.zone ?? axisZones[0] ?? [];
  const header = ['date', ...first.flatMap(axisHeader), 'area_m2', ...body.variables];
  yield `${header.map(field).join(',')}\r\n`;
  for (const [date, matrix] of Object.entries(body.results)) {
    for (let k = 0; k < body.zones.length; k++) {
      const z = body.zones[k]!;
      const row = [date, ...z.zone.flatMap(axisValues), num(z.area_m2), ...matrix[k]!.map(num)];
      yield `${row.map(field).join(',')}\r\n`;
    }
  }
}
