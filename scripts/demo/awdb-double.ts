/**
 * A local double of the AWDB REST API (version 1) on 127.0.0.1: the four endpoints in their
 * documented JSON shapes (`stations` with triplet wildcards, `data` DAILY / SEMIMONTHLY / MONTHLY
 * with QC flags and, on `centralTendencyType=MEDIAN`, the day's median, `forecasts`,
 * `reference-data`), AWDB's refusal of over-long requests (so clients page by date window), and
 * faults queued per request: a 429 with Retry-After, a 500, a body cut short, a 200 HTML page.
 * The demo serves its stations from it; tests serve theirs.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface DtoStation {
  stationTriplet: string;
  stationId: string;
  stateCode: string;
  networkCode: string;
  name: string;
  huc: string | null;
  elevation: number | null;
  latitude: number;
  longitude: number;
  beginDate: string;
  endDate: string;
}

/** One element's values at a station: DAILY values by date; SEMIMONTHLY/MONTHLY by year, month (and half). */
export interface DoubleSeries {
  readonly duration: 'DAILY' | 'SEMIMONTHLY' | 'MONTHLY';
  readonly unit: string;
  readonly values: readonly {
    date?: string;
    year?: number;
    month?: number;
    monthPart?: string;
    collectionDate?: string;
    value: number | null;
    qcFlag?: string;
    median?: number | null;
  }[];
}

export interface DoubleForecast {
  elementCode: string;
  forecastPeriod: [string, string];
  forecastStatus: string;
  issueDate: string;
  periodNormal: number;
  publicationDate: string;
  unitCode: string;
  forecastValues: Record<string, number>;
}

export interface AwdbWorld {
  stations: DtoStation[];
  /** triplet → element code → series. */
  data: Map<string, Map<string, DoubleSeries>>;
  forecasts: Map<string, { name: string; data: DoubleForecast[] }>;
}

export type AwdbFault = '429' | '500' | 'truncate' | 'html';

export interface AwdbDouble {
  readonly url: string;
  readonly world: AwdbWorld;
  /** Faults the next requests meet, in order (one each). */
  readonly faults: AwdbFault[];
  /** Every request's path and query, in order. */
  readonly seen: string[];
  close(): Promise<void>;
}

/** Longest DAILY request the double answers, days (AWDB refuses long requests; clients page). */
export const MAX_DAILY_DAYS = 3700;

const matches = (pattern: string, triplet: string): boolean => {
  const p = pattern.split(':');
  const t = triplet.split(':');
  return p.length === 3 && p.every((x, i) => x === '*' || x === t[i]);
};

const inMonths = (y: number, m: number, begin: string, end: string): boolean => {
  const key = `${y}-${String(m).padStart(2, '0')}`;
  return key >= begin.slice(0, 7) && key <= end.slice(0, 7);
};

function dataAnswer(w: AwdbWorld, q: URLSearchParams): unknown[] | string {
  const triplets = (q.get('stationTriplets') ?? '').split(',').filter(Boolean);
  const elements = (q.get('elements') ?? '').split(',').filter(Boolean);
  const duration = q.get('duration') ?? 'DAILY';
  const begin = q.get('beginDate') ?? '';
  const end = q.get('endDate') ?? '';
  if (!/^\d{4}-\d{2}-\d{2}$/.test(begin) || !/^\d{4}-\d{2}-\d{2}$/.test(end))
    return 'beginDate and endDate are required';
  const days = (Date.parse(end) - Date.parse(begin)) / 86_400_000;
  if (duration === 'DAILY' && days > MAX_DAILY_DAYS)
    return `Request exceeds ${MAX_DAILY_DAYS} days of daily data`;
  const median = q.get('centralTendencyType') === 'MEDIAN';
  const out: unknown[] = [];
  // Stations and forecast points alike (a forecast point need not be a listed station).
  for (const [triplet, series] of w.data) {
    if (!triplets.some((t) => matches(t, triplet))) continue;
    const s = w.stations.find((x) => x.stationTriplet === triplet) ?? {
      beginDate: '1900-01-01',
      endDate: '2100-01-01',
    };
    const data = [];
    for (const [code, ser] of series) {
      if (!elements.includes(code) || ser.duration !== duration) continue;
      const values = ser.values
        .filter((v) =>
          v.date !== undefined ? v.date >= begin && v.date <= end : inMonths(v.year!, v.month!, begin, end),
        )
        .map(({ median: m, ...v }) => (median && m !== undefined ? { ...v, median: m } : v));
      data.push({
        stationElement: {
          elementCode: code,
          ordinal: 1,
          heightDepth: null,
          durationName: duration,
          dataPrecision: 1,
          storedUnitCode: ser.unit,
          originalUnitCode: ser.unit,
          beginDate: `${s.beginDate}`,
          endDate: `${s.endDate}`,
          derivedData: false,
        },
        values,
      });
    }
    out.push({ stationTriplet: triplet, data });
  }
  return out;
}

function answer(w: AwdbWorld, path: string, q: URLSearchParams): { status: number; body: unknown } {
  const triplets = (q.get('stationTriplets') ?? '').split(',').filter(Boolean);
  switch (path) {
    case '/services/v1/stations': {
      // Forecast points are stations too (USGS, BOR…); their metadata says so when asked.
      const points = [...w.forecasts].map(([t, f]) => ({
        stationTriplet: t,
        stationId: t.split(':')[0]!,
        stateCode: t.split(':')[1]!,
        networkCode: t.split(':')[2]!,
        name: f.name,
        huc: null,
        elevation: null,
        latitude: 0,
        longitude: 0,
        beginDate: '1900-01-01 00:00',
        endDate: '2100-01-01 00:00',
        ...(q.get('returnForecastPointMetadata') === 'true' && {
          forecastPoint: { name: f.name, forecaster: 'NRCS', exceedenceProbabilities: [10, 30, 50, 70, 90] },
        }),
      }));
      return {
        status: 200,
        body: [...w.stations, ...points]
          .filter((s) => triplets.some((t) => matches(t, s.stationTriplet)))
          .map((s) => ({ ...s, dcoCode: 'UT', countyName: null, dataTimeZone: -8, shefId: null })),
      };
    }
    case '/services/v1/data': {
      const r = dataAnswer(w, q);
      return typeof r === 'string' ? { status: 400, body: { message: r } } : { status: 200, body: r };
    }
    case '/services/v1/forecasts': {
      const from = q.get('beginPublicationDate') ?? '0000';
      const to = q.get('endPublicationDate') ?? '9999';
      const codes = (q.get('elementCodes') ?? '').split(',');
      return {
        status: 200,
        body: [...w.forecasts]
          .filter(([t]) => triplets.some((p) => matches(p, t)))
          .map(([t, f]) => ({
            stationTriplet: t,
            forecastPointName: f.name,
            data: f.data.filter(
              (d) =>
                codes.includes(d.elementCode) &&
                d.publicationDate.slice(0, 10) >= from &&
                d.publicationDate.slice(0, 10) <= to,
            ),
          })),
      };
    }
    case '/services/v1/reference-data':
      return {
        status: 200,
        body: {
          elements: [
            { code: 'WTEQ', name: 'SNOW WATER EQUIVALENT', storedUnitCode: 'in' },
            { code: 'SNWD', name: 'SNOW DEPTH', storedUnitCode: 'in' },
            { code: 'PREC', name: 'PRECIPITATION ACCUMULATION', storedUnitCode: 'in' },
            { code: 'TAVG', name: 'AIR TEMPERATURE AVERAGE', storedUnitCode: 'degF' },
            { code: 'SRVO', name: 'STREAM VOLUME, ADJUSTED', storedUnitCode: 'kac_ft' },
          ],
          forecastPeriods: [
            { code: '04-01:07-31', name: 'APR-JUL', beginMonthDay: '04-01', endMonthDay: '07-31' },
          ],
        },
      };
    default:
      return { status: 404, body: { message: `no endpoint ${path}` } };
  }
}

/** Start a double serving `world` on 127.0.0.1 (a free port). */
export async function startAwdbDouble(world: AwdbWorld): Promise<AwdbDouble> {
  const faults: AwdbFault[] = [];
  const seen: string[] = [];
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const u = new URL(req.url ?? '/', 'http://x');
    seen.push(`${u.pathname}?${u.searchParams}`);
    const fault = faults.shift();
    if (fault === '429') {
      res
        .writeHead(429, { 'retry-after': '1', 'content-type': 'application/json' })
        .end('{"message":"Too Many Requests"}');
      return;
    }
    if (fault === '500') {
      res.writeHead(500, { 'content-type': 'application/json' }).end('{"message":"Internal Server Error"}');
      return;
    }
    if (fault === 'html') {
      res
        .writeHead(200, { 'content-type': 'text/html' })
        .end('<!DOCTYPE html><html><body><h1>Maintenance</h1></body></html>');
      return;
    }
    const { status, body } = answer(world, u.pathname.replace(/^\/awdbRestApi/, ''), u.searchParams);
    const text = JSON.stringify(body);
    if (fault === 'truncate') {
      // The whole length announced, half of it sent, then the connection dropped.
      res.writeHead(status, {
        'content-type': 'application/json',
        'content-length': String(Buffer.byteLength(text)),
      });
      res.write(text.slice(0, Math.floor(text.length / 2)));
      res.socket?.destroy();
      return;
    }
    res.writeHead(status, { 'content-type': 'application/json' }).end(text);
  });
  await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/awdbRestApi`,
    world,
    faults,
    seen,
    close: () => new Promise((ok) => server.close(() => ok())),
  };
}
