/**
 * The low-snow rule of % of median and ranks. NRCS reports SWE to 0.1 in and snow depth to whole
 * inches, and its basin reports leave a site's % of median out when the day's median is zero or
 * too small to compare against (NRCS snow and precipitation updates). snowdb states one floor per
 * variable: below it a median gives no percentage, and a value below it "has no snow".
 */
import { totalOf, type VariableSpec } from '../datasets/config.js';
import type { Column } from './plan.js';

/** 0.1 in of water (mm): the resolution NRCS reports SWE and precipitation to. */
export const WATER_FLOOR_MM = 2.54;
/** 1 in of snow depth (mm): the resolution NRCS reports snow depth to. */
export const DEPTH_FLOOR_MM = 25.4;
/** 1 % for percentages (snow-covered fraction). */
export const PERCENT_FLOOR = 1;

/** The floor of a variable's mean, in its stored unit; 0 where only a zero median is excluded. */
export function meanFloor(variable: string, spec: Pick<VariableSpec, 'unit'>): number {
  if (spec.unit === 'mm' || spec.unit === 'kg_per_m2')
    return variable === 'depth' ? DEPTH_FLOOR_MM : WATER_FLOOR_MM;
  if (spec.unit === 'percent') return PERCENT_FLOOR;
  return 0;
}

/**
 * The floor of one output column for a zone of `areaM2`, in the column's unit: the mean's floor,
 * or for a total that mean over the zone's area (a volume, or a snow-covered area). Valid fractions have none (0).
 */
export function columnFloor(
  col: Column,
  spec: Pick<VariableSpec, 'unit' | 'volume_m_per_unit'>,
  areaM2: number,
): number {
  const floor = meanFloor(col.variable, spec);
  if (col.kind === 'mean') return floor / col.divisor;
  if (col.kind === 'total')
    return (floor * (totalOf(col.variable, spec)?.perUnit ?? 0) * areaM2) / col.divisor;
  return 0;
}
