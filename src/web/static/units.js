// Units and classes: the exact factors the API uses (src/stats/units.ts), and the NRCS classes of
// % of median with their colours (ColorBrewer RdYlBu, safe for the common colour-vision deficiencies).

export const MM_PER_INCH = 25.4;
export const M3_PER_ACRE_FOOT = 1233.48183754752;
export const M2_PER_KM2 = 1e6;
export const M2_PER_MI2 = 2589988.110336; // (1609.344 m)²

/** A metric unit's name and divisor in the chosen units ('metric' or 'us'). */
export function unitOf(unit, units) {
  if (units === 'us' && unit === 'mm') return { unit: 'in', divisor: MM_PER_INCH };
  if (units === 'us' && unit === 'm3') return { unit: 'acre-ft', divisor: M3_PER_ACRE_FOOT };
  if (unit === 'm3') return { unit: 'm³', divisor: 1 };
  if (unit === 'm2')
    return units === 'us' ? { unit: 'mi²', divisor: M2_PER_MI2 } : { unit: 'km²', divisor: M2_PER_KM2 };
  if (unit === 'percent') return { unit: '%', divisor: 1 };
  return { unit, divisor: 1 };
}

/** A value converted with `u` (from unitOf); null stays null. */
export const convert = (v, u) => (v === null || v === undefined ? null : v / u.divisor);

// Formatters by fraction digits, made once (constructing one costs more than formatting).
const FORMATS = [0, 1, 2, 3].map(
  (d) => new Intl.NumberFormat('en-US', { minimumFractionDigits: d, maximumFractionDigits: d }),
);
const AREA = new Intl.NumberFormat('en-US', { maximumFractionDigits: 1 });

/** An area in m² as km² or mi². */
export function areaText(m2, units) {
  return units === 'us' ? `${AREA.format(m2 / M2_PER_MI2)} mi²` : `${AREA.format(m2 / M2_PER_KM2)} km²`;
}

/** A number for a table: about 3 significant digits, thousands separated; '' for null. */
export function num(v) {
  if (v === null || v === undefined) return '';
  const a = Math.abs(v);
  const digits = a === 0 ? 0 : a >= 100 ? 0 : a >= 10 ? 1 : a >= 1 ? 2 : 3;
  return FORMATS[digits].format(v);
}

/** A class of % of median: lower bound (inclusive; '' for none), label, colour. @typedef {readonly [number | string, string, string]} PctClass */

/** NRCS classes of % of median: [lower bound (inclusive), label, colour]. @type {readonly PctClass[]} */
export const CLASSES = [
  [-Infinity, '< 50 %', '#d73027'],
  [50, '50–69 %', '#fc8d59'],
  [70, '70–89 %', '#fee090'],
  [90, '90–109 %', '#ffffbf'],
  [110, '110–129 %', '#e0f3f8'],
  [130, '130–149 %', '#91bfdb'],
  [150, '≥ 150 %', '#4575b4'],
];
/** @type {PctClass} */
export const NO_DATA = ['', 'no median', '#c9c9c9'];
/** A median under the variable's floor (0.1 in of SWE, 1 in of depth): no % of median is given. */
/** @type {PctClass} */
export const NO_SNOW = ['', 'no snow at median', '#c7a977']; // bare-ground tan: ΔE > 10 from every class, colour-blind too

/**
 * The class of a % of median (null → NO_SNOW where the day has a median, else NO_DATA).
 * @returns {PctClass}
 */
export function classOf(pct, median = null) {
  if (pct === null || pct === undefined || !Number.isFinite(pct))
    return median === null || median === undefined ? NO_DATA : NO_SNOW;
  let c = CLASSES[0];
  for (const k of CLASSES) if (pct >= Number(k[0])) c = k;
  return c;
}
