/**
 * The stations of the history fixture's basins (FULL and HALF, test/helpers/history-db.ts) as a
 * local AWDB double serves them: two SNOTEL sites inside FULL (one with AWDB's medians, one
 * without), a snow course 3 km east of FULL, a SNOTEL site in HALF that AWDB later moves, one far
 * away; FULL:UT:TEST is a forecast point with monthly volumes and published forecasts. Values are
 * a known function of the day, with gaps and estimated flags, so every answer can be recomputed.
 */
import {
  type AwdbWorld,
  type DoubleSeries,
  type DtoStation,
  startAwdbDouble,
} from '../../scripts/demo/awdb-double.js';
import { yearScale } from './history-db.js';

/** Sites: triplet, lon, lat, elevation (ft), network, SWE factor, medians published. */
export const SITES = {
  in1: { triplet: 'IN1:UT:SNTL', lon: -113.07, lat: 37.33, ft: 7050, network: 'SNTL', k: 1.0, medians: true },
  in2: {
    triplet: 'IN2:UT:SNTL',
    lon: -113.12,
    lat: 37.27,
    ft: 6400,
    network: 'SNTL',
    k: 0.8,
    medians: false,
  },
  course: {
    triplet: 'NEAR:UT:SNOW',
    lon: -112.966,
    lat: 37.3,
    ft: 8120,
    network: 'SNOW',
    k: 1.3,
    medians: true,
  },
  move: {
    triplet: 'MOVE:UT:SNTL',
    lon: -112.85,
    lat: 37.3,
    ft: 9010,
    network: 'SNTL',
    k: 1.1,
    medians: true,
  },
  far: { triplet: 'FAR:UT:SNTL', lon: -111.5, lat: 38.5, ft: 9500, network: 'SNTL', k: 1.0, medians: true },
} as const;

export const FIRST_DAY = '1995-10-01';
export const LAST_DAY = '2024-01-31';
/** Days a site has no value (a sensor outage), in every year. */
const GAP = (date: string) => date.slice(5) === '02-10' || date.slice(5) === '02-11';

/** Day of the water year (1 October = 0). */
const wyDay = (date: string): number => {
  const y = Number(date.slice(0, 4));
  const start = Date.UTC(date.slice(5, 7) >= '10' ? y : y - 1, 9, 1);
  return Math.round((Date.parse(date) - start) / 86_400_000);
};
const wyOf = (date: string) => Number(date.slice(0, 4)) + (date.slice(5, 7) >= '10' ? 1 : 0);

/** A site's SWE (in, 0.1 in steps) on an ISO date. */
export function sweIn(k: number, date: string): number {
  const t = wyDay(date);
  const season = Math.max(0, Math.sin((Math.PI * (t - 30)) / 250));
  return Math.round(18 * k * yearScale(wyOf(date)) * season * 10) / 10;
}

const days = (from: string, to: string): string[] => {
  const out: string[] = [];
  for (let t = Date.parse(from); t <= Date.parse(to); t += 86_400_000)
    out.push(new Date(t).toISOString().slice(0, 10));
  return out;
};

/** AWDB's median of a day: the median of 1991–2020 values on that calendar day (what the double publishes). */
export function medianOf(k: number, mmdd: string): number | null {
  const xs: number[] = [];
  for (let wy = 1996; wy <= 2020; wy++) {
    const y = mmdd >= '10' ? wy - 1 : wy;
    if (mmdd === '02-29' && y % 4 !== 0) continue;
    const d = `${y}-${mmdd}`;
    if (!GAP(d)) xs.push(sweIn(k, d));
  }
  if (xs.length === 0) return null;
  xs.sort((a, b) => a - b);
  const h = (xs.length - 1) / 2;
  return (xs[Math.floor(h)]! + xs[Math.ceil(h)]!) / 2;
}

function dailySeries(k: number, medians: boolean): Map<string, DoubleSeries> {
  const all = days(FIRST_DAY, LAST_DAY);
  const values = (f: (d: string) => number | null, median = false) =>
    all.map((date) => {
      const v = GAP(date) ? null : f(date);
      return {
        date,
        value: v,
        qcFlag: v === null ? undefined : date.endsWith('-15') ? 'E' : 'V',
        ...(median && { median: medianOf(k, date.slice(5)) }),
      };
    });
  return new Map<string, DoubleSeries>([
    ['WTEQ', { duration: 'DAILY', unit: 'in', values: values((d) => sweIn(k, d), medians) }],
    ['SNWD', { duration: 'DAILY', unit: 'in', values: values((d) => Math.round(sweIn(k, d) * 3.5)) }],
    [
      'PREC',
      { duration: 'DAILY', unit: 'in', values: values((d) => Math.round(wyDay(d) * 0.09 * k * 10) / 10) },
    ],
    [
      'TAVG',
      {
        duration: 'DAILY',
        unit: 'degF',
        values: values((d) => Math.round((40 - 25 * Math.sin((Math.PI * wyDay(d)) / 365)) * 10) / 10),
      },
    ],
  ]);
}

/** Snow-course surveys: 1 Feb, 1 Mar, 1 Apr (first half) and 15 Apr (second half) of each year. */
function courseSeries(k: number): Map<string, DoubleSeries> {
  const surveys: DoubleSeries['values'][number][] = [];
  const depth: DoubleSeries['values'][number][] = [];
  for (let y = 1996; y <= 2023; y++)
    for (const [m, part, day] of [
      [2, '1', 1],
      [3, '1', 2],
      [4, '1', 1],
      [4, '2', 15],
    ] as const) {
      const date = `${y}-${String(m).padStart(2, '0')}-${String(day).padStart(2, '0')}`;
      const base = { year: y, month: m, monthPart: part, collectionDate: date };
      surveys.push({ ...base, value: sweIn(k, date), median: medianOf(k, date.slice(5)) });
      depth.push({ ...base, value: Math.round(sweIn(k, date) * 3) });
    }
  return new Map<string, DoubleSeries>([
    ['WTEQ', { duration: 'SEMIMONTHLY', unit: 'in', values: surveys }],
    ['SNWD', { duration: 'SEMIMONTHLY', unit: 'in', values: depth }],
  ]);
}

/** Observed April–July volume of water year `wy` at FULL, kac-ft: linear in the year's scale plus a known wobble. */
export const aprJulVolume = (wy: number): number =>
  Math.round((20 + 60 * yearScale(wy) + ((wy * 37) % 7) - 3) * 100) / 100;
/** Share of the April–July volume in each of its months. */
const SHARE: Record<number, number> = { 4: 0.15, 5: 0.35, 6: 0.35, 7: 0.15 };

function volumes(): DoubleSeries {
  const values: DoubleSeries['values'][number][] = [];
  for (let wy = 2004; wy <= 2024; wy++)
    for (const m of [10, 11, 12, 1, 2, 3, 4, 5, 6, 7, 8, 9]) {
      const year = m >= 10 ? wy - 1 : wy;
      if (`${year}-${String(m).padStart(2, '0')}` > '2024-01') continue;
      const v = SHARE[m] !== undefined ? Math.round(aprJulVolume(wy) * SHARE[m]! * 100) / 100 : 1.5;
      values.push({ year, month: m, value: v });
    }
  return { duration: 'MONTHLY', unit: 'kac_ft', values };
}

const station = (s: (typeof SITES)[keyof typeof SITES]): DtoStation => ({
  stationTriplet: s.triplet,
  stationId: s.triplet.split(':')[0]!,
  stateCode: 'UT',
  networkCode: s.network,
  name: `${s.triplet.split(':')[0]} site`,
  huc: '160300080101',
  elevation: s.ft,
  latitude: s.lat,
  longitude: s.lon,
  beginDate: `${FIRST_DAY} 00:00`,
  endDate: '2100-01-01 00:00',
});

/** The world of the history fixture's stations. */
export function historyWorld(): AwdbWorld {
  const data = new Map<string, Map<string, DoubleSeries>>();
  for (const s of Object.values(SITES))
    data.set(s.triplet, s.network === 'SNOW' ? courseSeries(s.k) : dailySeries(s.k, s.medians));
  data.set('FULL:UT:TEST', new Map([['SRVO', volumes()]]));
  const forecast = (pub: string, p50: number) => ({
    elementCode: 'SRVO',
    forecastPeriod: ['04-01', '07-31'] as [string, string],
    forecastStatus: 'final',
    issueDate: `${pub} 00:00:00`,
    periodNormal: 82,
    publicationDate: `${pub} 00:00:00`,
    unitCode: 'kac_ft',
    forecastValues: { '10': p50 * 1.4, '30': p50 * 1.15, '50': p50, '70': p50 * 0.87, '90': p50 * 0.65 },
  });
  return {
    stations: Object.values(SITES).map(station),
    data,
    forecasts: new Map([
      [
        'FULL:UT:TEST',
        {
          name: 'Full Creek nr Test',
          data: [forecast('2023-03-01', 90), forecast('2023-04-01', 95), forecast('2024-01-01', 70)],
        },
      ],
    ]),
  };
}

export const startHistoryAwdb = () => startAwdbDouble(historyWorld());
