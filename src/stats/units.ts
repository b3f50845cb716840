/**
 * The forecasters' units: metric (the stored units, the default) or US customary. Exact factors:
 * 25.4 mm per inch (international inch), 1,233.48183754752 m³ per acre-foot (43,560 ft² × 1 ft,
 * international foot). Only depths in mm and volumes in m³ change; fractions and counts do not.
 */
export const UNITS = ['metric', 'us'] as const;
export type Units = (typeof UNITS)[number];

export const MM_PER_INCH = 25.4;
export const M3_PER_ACRE_FOOT = 1233.48183754752;

/** A column's unit in the units asked for, and what its metric values are divided by. */
export function unitIn(unit: string, units: Units): { unit: string; divisor: number } {
  if (units === 'us' && unit === 'mm') return { unit: 'in', divisor: MM_PER_INCH };
  if (units === 'us' && unit === 'm3') return { unit: 'acre_ft', divisor: M3_PER_ACRE_FOOT };
  return { unit, divisor: 1 };
}
