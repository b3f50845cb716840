/**
 * Forecast points: the AWDB triplet a basin record names, its observed monthly volumes summed
 * over a season, and the forecasts NRCS published for it. Pure: records in, plain data out.
 * snowdb issues no forecasts of its own.
 */
import { QueryParameterError } from '../errors.js';
import type { PourpointRecord } from '../pourpoints/record.js';
import { isTriplet } from '../pourpoints/triplet.js';
import type { Forecast, ForecastPoint } from './store.js';

/** Record properties that may name a basin's AWDB forecast point, in order. */
const FORECAST_PROPERTIES = ['forecast_point', 'awdb_triplet', 'awdb_id'] as const;

/**
 * The AWDB triplet of a basin's forecast point: a property naming one (`forecast_point`,
 * `awdb_triplet`, `awdb_id`), else the basin id when it is a station triplet (BAGIS records are
 * keyed by their forecast point's triplet); null for a set member naming none.
 */
export function forecastTripletOf(rec: Pick<PourpointRecord, 'triplet' | 'properties'>): string | null {
  for (const k of FORECAST_PROPERTIES) {
    const v = rec.properties[k];
    if (typeof v === 'string' && isTriplet(v)) return v;
  }
  return isTriplet(rec.triplet) ? rec.triplet : null;
}

/** A season of months: first and last month (1–12), wrapping over the new year (10 → 3). */
export interface Season {
  readonly from: number;
  readonly to: number;
}

const MONTHS = ['JAN', 'FEB', 'MAR', 'APR', 'MAY', 'JUN', 'JUL', 'AUG', 'SEP', 'OCT', 'NOV', 'DEC'];

/**
 * Parse `APR-JUL` (or `4-7`) into a season.
 * @throws QueryParameterError for anything else.
 */
export function parseSeason(text: string, parameter = 'period'): Season {
  const m = /^([A-Za-z]{3}|\d{1,2})-([A-Za-z]{3}|\d{1,2})$/.exec(text.trim());
  const month = (s: string) => (/^\d+$/.test(s) ? Number(s) : MONTHS.indexOf(s.toUpperCase()) + 1);
  const from = m ? month(m[1]!) : 0;
  const to = m ? month(m[2]!) : 0;
  if (!(from >= 1 && from <= 12 && to >= 1 && to <= 12))
    throw new QueryParameterError(`${parameter}: expected months like APR-JUL or 4-7, got '${text}'`, {
      parameter,
    });
  return { from, to };
}

export const seasonName = (s: Season): string => `${MONTHS[s.from - 1]}-${MONTHS[s.to - 1]}`;

/** The months of a season in order, with the water-year offset of each (Oct–Dec belong to the next water year). */
function seasonMonths(s: Season): number[] {
  const out: number[] = [];
  for (let m = s.from; ; m = (m % 12) + 1) {
    out.push(m);
    if (m === s.to) break;
  }
  return out;
}

/**
 * The observed volume of each water year's season: the sum of its months, only for years whose
 * every month has a value (a partial season is no volume).
 */
export function seasonalVolumes(fp: ForecastPoint, s: Season): Map<number, number> {
  const at = new Map(fp.volumes.months.map(([y, m, v]) => [`${y}-${m}`, v]));
  const years = new Set(fp.volumes.months.map(([y, m]) => (m >= 10 ? y + 1 : y)));
  const out = new Map<number, number>();
  for (const wy of [...years].sort((a, b) => a - b)) {
    let sum = 0;
    let whole = true;
    for (const m of seasonMonths(s)) {
      const v = at.get(`${m >= 10 ? wy - 1 : wy}-${m}`);
      if (v === null || v === undefined) {
        whole = false;
        break;
      }
      sum += v;
    }
    if (whole) out.set(wy, sum);
  }
  return out;
}

/** The forecasts of the newest publication date up to `asOf` (ISO), per period. */
export function latestForecasts(fp: ForecastPoint, asOf: string): Forecast[] {
  const dates = fp.forecasts.map((f) => f.publication_date).filter((d) => d <= asOf);
  const newest = dates.sort().at(-1);
  return newest === undefined ? [] : fp.forecasts.filter((f) => f.publication_date === newest);
}
