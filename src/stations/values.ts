/**
 * A station's values in the units asked for, its % of median, and a basin's station index
 * (NRCS: Σ current SWE ÷ Σ median SWE of the sites with both, × 100). Medians are AWDB's
 * published 1991–2020 medians where the record carries them, else computed from the station's own
 * record with the normals rule (the reference years' values on the same calendar day; 29 Feb only
 * in leap years; a year without a value that day does not count; at least MIN_MEDIAN_YEARS).
 */
import { WATER_FLOOR_MM } from '../stats/median-floor.js';
import { MM_PER_INCH, type Units } from '../stats/units.js';
import { median } from '../util/median.js';
import type { StationRecord } from './store.js';

/** Station elements snowdb reads, their column stem and unit kind. */
export const ELEMENTS = [
  { code: 'WTEQ', stem: 'swe', kind: 'water' },
  { code: 'SNWD', stem: 'depth', kind: 'water' },
  { code: 'PREC', stem: 'precip', kind: 'water' },
  { code: 'TAVG', stem: 'tavg', kind: 'temperature' },
] as const;

/** Fewest reference years with a value on a day for a computed median. */
export const MIN_MEDIAN_YEARS = 10;
/** NRCS's normal period. */
export const DEFAULT_REFERENCE = { start: 1991, end: 2020 } as const;

export interface Reference {
  readonly start: number;
  readonly end: number;
}

/** A stored value (inches or °F) in the units asked for (mm or °C metric; in or °F US). */
export function convert(code: string, v: number | null, units: Units): number | null {
  if (v === null) return null;
  if (code === 'TAVG') return units === 'us' ? v : Math.round((((v - 32) * 5) / 9) * 100) / 100;
  return units === 'us' ? v : Math.round(v * MM_PER_INCH * 1000) / 1000;
}

/** Column name of an element in the units asked for: `swe_mm`, `swe_in`, `tavg_degc`, `tavg_degf`. */
export function columnName(code: string, units: Units): string {
  const e = ELEMENTS.find((x) => x.code === code)!;
  if (e.kind === 'temperature') return `${e.stem}_${units === 'us' ? 'degf' : 'degc'}`;
  return `${e.stem}_${units === 'us' ? 'in' : 'mm'}`;
}

/** Days from 1970-01-01 of an ISO date. */
const dayNumber = (iso: string): number => Math.round(Date.parse(iso) / 86_400_000);

/** A daily element's stored value on an ISO date (null: none). */
export function dailyValue(rec: StationRecord, code: string, date: string): number | null {
  const s = rec.daily[code];
  if (s === undefined || rec.start === null) return null;
  const i = dayNumber(date) - dayNumber(rec.start);
  return i >= 0 && i < s.values.length ? (s.values[i] ?? null) : null;
}

/** The survey a date asks for: the one measured that day, else the month half holding it (`YYYY-MM-1|2`). */
function surveyOf(rec: StationRecord, date: string): string {
  return (
    rec.measurements.find((m) => m.date === date)?.survey ??
    `${date.slice(0, 7)}-${Number(date.slice(8, 10)) >= 16 ? 2 : 1}`
  );
}

/** A snow course's measurement for the survey a date asks for. */
export function surveyValue(rec: StationRecord, code: string, date: string): number | null {
  const survey = surveyOf(rec, date);
  return rec.measurements.find((m) => m.survey === survey)?.values[code] ?? null;
}

/** The station's stored value on a date: its daily value, or its survey's measurement. */
export const valueOn = (rec: StationRecord, code: string, date: string): number | null =>
  rec.start !== null ? dailyValue(rec, code, date) : surveyValue(rec, code, date);

export type MedianSource = 'awdb' | 'computed';

/** Where a record's medians of an element come from: AWDB's when it published any, else computed. */
export const medianSource = (rec: StationRecord, code: string): MedianSource =>
  Object.keys(rec.medians[code] ?? {}).length > 0 ? 'awdb' : 'computed';

/** The median of an element on a date, stored units (null: none). */
export function medianOn(rec: StationRecord, code: string, date: string, ref: Reference): number | null {
  const mmdd = date.slice(5);
  if (medianSource(rec, code) === 'awdb') {
    const survey = rec.start === null ? surveyOf(rec, date) : '';
    const key = rec.start !== null ? mmdd : `${survey.slice(5, 7)}-${survey.endsWith('-2') ? 16 : '01'}`;
    return rec.medians[code]?.[key] ?? null;
  }
  const xs: number[] = [];
  for (let wy = ref.start; wy <= ref.end; wy++) {
    const y = Number(mmdd.slice(0, 2)) >= 10 ? wy - 1 : wy;
    const day = `${y}-${mmdd}`;
    if (mmdd === '02-29' && !(y % 4 === 0 && (y % 100 !== 0 || y % 400 === 0))) continue;
    const v = valueOn(rec, code, day);
    if (v !== null) xs.push(v);
  }
  return xs.length >= MIN_MEDIAN_YEARS ? median(xs) : null;
}

/** % of median (null when the median is below NRCS's 0.1 in reporting floor, or either is missing). */
export function pctOf(value: number | null, med: number | null): number | null {
  if (value === null || med === null || med * MM_PER_INCH < WATER_FLOOR_MM) return null;
  return Math.round((value / med) * 100 * 10) / 10;
}

/** How a body states its medians. */
export function medianNote(source: MedianSource, ref: Reference): string {
  return source === 'awdb'
    ? "AWDB's published 1991–2020 median of the day"
    : `computed from the station's own record: median of water years ${ref.start}–${ref.end} on the same day (at least ${MIN_MEDIAN_YEARS} years with a value)`;
}

export interface IndexSite {
  readonly triplet: string;
  readonly value: number | null;
  readonly median: number | null;
}

/**
 * NRCS's basin index: Σ current ÷ Σ median × 100 over the sites having both on the day (null when
 * none has both, or their medians sum below the 0.1 in floor).
 */
export function stationIndex(sites: readonly IndexSite[]): { pct: number | null; used: number } {
  let v = 0;
  let m = 0;
  let used = 0;
  for (const s of sites) {
    if (s.value === null || s.median === null) continue;
    v += s.value;
    m += s.median;
    used++;
  }
  return { pct: used === 0 ? null : pctOf(v, m), used };
}
