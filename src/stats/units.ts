/**
 * The forecasters' units: metric (the stored units, the default) or US customary. Exact factors:
 * 25.4 mm per inch (international inch; 1 kg/m² of water is 1 mm), 1,233.48183754752 m³ per
 * acre-foot (43,560 ft² × 1 ft, international foot), °F = K × 9/5 − 459.67. Depths (mm),
 * precipitation (kg/m²), volumes (m³), snow-covered areas (m² → acres) and temperatures (K)
 * change; fractions and counts do not.
 */
export const UNITS = ['metric', 'us'] as const;
export type Units = (typeof UNITS)[number];

export const MM_PER_INCH = 25.4;
/** m² per international acre: 43,560 ft² × 0.3048² m²/ft². */
export const M2_PER_ACRE = 4046.8564224;
export const M3_PER_ACRE_FOOT = 1233.48183754752;

/** K → °F: divide by 5/9, then add −459.67. */
export const K_PER_DEGF = 5 / 9;
export const DEGF_AT_0K = -459.67;

/** A column's unit in the units asked for: value = metric ÷ divisor + offset. */
export function unitIn(unit: string, units: Units): { unit: string; divisor: number; offset: number } {
  if (units === 'us' && (unit === 'mm' || unit === 'kg_per_m2'))
    return { unit: 'in', divisor: MM_PER_INCH, offset: 0 };
  if (units === 'us' && unit === 'm3') return { unit: 'acre_ft', divisor: M3_PER_ACRE_FOOT, offset: 0 };
  if (units === 'us' && unit === 'm2') return { unit: 'acres', divisor: M2_PER_ACRE, offset: 0 };
  if (units === 'us' && unit === 'k') return { unit: 'degf', divisor: K_PER_DEGF, offset: DEGF_AT_0K };
  return { unit, divisor: 1, offset: 0 };
}
