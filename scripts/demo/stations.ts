/**
 * The demo's AWDB: SNOTEL sites and a snow course in each demo basin with snow, placed at that
 * basin's high, middle and upper-middle elevations of the bundled terrain, their daily records
 * from water year 1992 to the demo's last date following the same snow model as the grids (so a
 * station and the cell holding it agree, the station a little snowier: sites sit in clearings);
 * and each USGS basin a forecast point, its monthly volumes following its stations' 1 April SWE,
 * and forecasts published in winter 2025. Served by the AWDB double (awdb-double.ts).
 */
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { geodesicArea } from '../../src/raster/geodesic.js';
import { type AreaGeometry, lineCrossings, polygonsBounds, polygonsOf } from '../../src/raster/geometry.js';
import type { AwdbWorld, DoubleForecast, DoubleSeries, DtoStation } from './awdb-double.js';
import { climateAt, DEMO_DATES, stationSeason, sweOf, type Terrain, waterYearDay } from './snow.js';

/** First day of the stations' records, and the last (the demo's last date). */
const FIRST = '1991-10-01';
const LAST = `${DEMO_DATES.at(-1)!.slice(0, 4)}-${DEMO_DATES.at(-1)!.slice(4, 6)}-${DEMO_DATES.at(-1)!.slice(6)}`;
/** Sites are snowier than the cell around them. */
const SITE_FACTOR = 1.1;
const M_PER_FT = 0.3048;

/** Every day of the stations' records, ISO, and each one's water-year day (made once: 33 sites share them). */
const DAYS: readonly string[] = (() => {
  const out: string[] = [];
  for (let t = Date.parse(FIRST); t <= Date.parse(LAST); t += 86_400_000)
    out.push(new Date(t).toISOString().slice(0, 10));
  return out;
})();
const WY_DAY = new Map(DAYS.map((d) => [d, waterYearDay(d.replaceAll('-', ''))]));
const wyDay = (iso: string) => WY_DAY.get(iso) ?? waterYearDay(iso.replaceAll('-', ''));
const wyOf = (iso: string) => Number(iso.slice(0, 4)) + (iso.slice(5, 7) >= '10' ? 1 : 0);

/** SWE (in, 0.1 steps) at a site of elevation `m` on an ISO date. */
function siteSwe(m: number, lon: number, lat: number, iso: string): number {
  const { scale, shift } = stationSeason(wyOf(iso), lat);
  const mm = sweOf(climateAt(m, lon, lat), wyDay(iso), scale, shift) * SITE_FACTOR;
  return Math.round((mm / 25.4) * 10) / 10;
}

/** The median of the water years 1992–2020 on each calendar day (AWDB's normal period, as far as the record goes). */
function mediansOf(byDate: ReadonlyMap<string, number>): Map<string, number> {
  const per = new Map<string, number[]>();
  for (const [d, v] of byDate) {
    const wy = wyOf(d);
    if (wy > 2020) continue;
    const k = d.slice(5);
    per.set(k, [...(per.get(k) ?? []), v]);
  }
  const out = new Map<string, number>();
  for (const [k, xs] of per) {
    xs.sort((a, b) => a - b);
    const h = (xs.length - 1) / 2;
    out.set(k, Math.round(((xs[Math.floor(h)]! + xs[Math.ceil(h)]!) / 2) * 100) / 100);
  }
  return out;
}

interface Site {
  triplet: string;
  name: string;
  lon: number;
  lat: number;
  m: number;
  network: 'SNTL' | 'SNOW';
}

/** A daily SNOTEL record: SWE, depth, accumulated precipitation (in), mean temperature (°F). */
function snotel(s: Site): Map<string, DoubleSeries> {
  const days = DAYS;
  const swe = new Map(days.map((d) => [d, siteSwe(s.m, s.lon, s.lat, d)]));
  const med = mediansOf(swe);
  let peak = 0;
  const prec = days.map((d) => {
    if (d.endsWith('-10-01')) peak = 0;
    peak = Math.max(peak, swe.get(d)!);
    return { date: d, value: Math.round(peak * 12.5) / 10, qcFlag: 'V' };
  });
  const t = (d: string) =>
    Math.round((45 - 0.0035 * s.m - 18 * Math.cos((2 * Math.PI * (wyDay(d) - 100)) / 365)) * 10) / 10;
  const depth = (d: string) => Math.round(swe.get(d)! * (4.5 - Math.min(2.3, wyDay(d) / 90)) * 10) / 10;
  return new Map<string, DoubleSeries>([
    [
      'WTEQ',
      {
        duration: 'DAILY',
        unit: 'in',
        values: days.map((d) => ({
          date: d,
          value: swe.get(d)!,
          qcFlag: 'V',
          median: med.get(d.slice(5)) ?? null,
        })),
      },
    ],
    [
      'SNWD',
      { duration: 'DAILY', unit: 'in', values: days.map((d) => ({ date: d, value: depth(d), qcFlag: 'V' })) },
    ],
    ['PREC', { duration: 'DAILY', unit: 'in', values: prec }],
    [
      'TAVG',
      { duration: 'DAILY', unit: 'degF', values: days.map((d) => ({ date: d, value: t(d), qcFlag: 'V' })) },
    ],
  ]);
}

/** A snow course: surveys on the 1st of February to May. */
function course(s: Site): Map<string, DoubleSeries> {
  const values: DoubleSeries['values'][number][] = [];
  for (let y = 1992; y <= 2025; y++)
    for (const m of [2, 3, 4, 5]) {
      const date = `${y}-0${m}-01`;
      if (date > LAST) continue;
      values.push({
        year: y,
        month: m,
        monthPart: '1',
        collectionDate: date,
        value: siteSwe(s.m, s.lon, s.lat, date),
      });
    }
  return new Map([['WTEQ', { duration: 'SEMIMONTHLY', unit: 'in', values }]]);
}

/** A basin's sites: the highest, the median and the 75th-percentile elevation of a 0.01° lattice inside it. */
function sitesOf(id: string, basin: AreaGeometry, terrain: Terrain, n: number): Site[] {
  const polys = polygonsOf(basin);
  const [w, s, e, north] = polygonsBounds(polys);
  const pts: { lon: number; lat: number; m: number }[] = [];
  for (let lat = s + 0.005; lat < north; lat += 0.01) {
    const xs = lineCrossings(polys, lat); // inside: xs[2k] ≤ lon < xs[2k + 1]
    let k = 0;
    for (let lon = w + 0.005; lon < e; lon += 0.01) {
      while (k < xs.length && xs[k]! <= lon) k++;
      if (k % 2 === 1)
        pts.push({
          lon: Math.round(lon * 1e4) / 1e4,
          lat: Math.round(lat * 1e4) / 1e4,
          m: terrain.at(lon, lat),
        });
    }
  }
  pts.sort((a, b) => a.m - b.m);
  if (pts.length < 3 || pts.at(-1)!.m < 1800) return [];
  const name = id.split(':')[0]!;
  const state = id.split(':')[1]!;
  const at = (q: number) => pts[Math.min(pts.length - 1, Math.floor(q * pts.length))]!;
  return [
    { ...at(0.97), triplet: `${1000 + n}:${state}:SNTL`, name: `${name} Summit`, network: 'SNTL' as const },
    { ...at(0.6), triplet: `${1001 + n}:${state}:SNTL`, name: `${name} Meadow`, network: 'SNTL' as const },
    { ...at(0.8), triplet: `${2000 + n}:${state}:SNOW`, name: `${name} Course`, network: 'SNOW' as const },
  ];
}

/** The forecast point of a USGS basin: monthly volumes (kac-ft) from its sites' 1 April SWE, and winter 2025's forecasts. */
function forecastPoint(
  basin: AreaGeometry,
  sites: readonly Site[],
): { volumes: DoubleSeries; forecasts: DoubleForecast[] } {
  const areaM2 = geodesicArea(basin);
  const apr1 = (wy: number) =>
    sites.reduce((t, s) => t + siteSwe(s.m, s.lon, s.lat, `${wy}-04-01`), 0) / sites.length;
  // April–July runoff: 45 % of the sites' 1 April SWE over the basin, ± a year's own wobble.
  const aprJul = (wy: number) =>
    (areaM2 * apr1(wy) * 0.0254 * 0.45 * (0.92 + (0.16 * ((wy * 7919) % 11)) / 10)) / 1233.48183754752 / 1000;
  const share: Record<number, number> = { 4: 0.2, 5: 0.35, 6: 0.3, 7: 0.15 };
  const values: DoubleSeries['values'][number][] = [];
  for (let wy = 1992; wy <= 2025; wy++)
    for (const m of [10, 11, 12, 1, 2, 3, 4, 5, 6, 7, 8, 9]) {
      const year = m >= 10 ? wy - 1 : wy;
      if (`${year}-${String(m).padStart(2, '0')}-28` > LAST) continue;
      const v = share[m] !== undefined ? aprJul(wy) * share[m]! : aprJul(wy) * 0.02;
      values.push({ year, month: m, value: Math.round(v * 100) / 100 });
    }
  const normals = Array.from({ length: 29 }, (_, i) => aprJul(1992 + i)).sort((a, b) => a - b);
  const normal = normals[14]!;
  const forecasts = ['2025-01-01', '2025-02-01', '2025-03-01', '2025-04-01'].map((pub, i): DoubleForecast => {
    const p50 = aprJul(2025) * (0.8 + 0.06 * i);
    const r = (k: number) => Math.round(p50 * k * 10) / 10;
    return {
      elementCode: 'SRVO',
      forecastPeriod: ['04-01', '07-31'],
      forecastStatus: 'final',
      issueDate: `${pub} 00:00:00`,
      periodNormal: Math.round(normal * 10) / 10,
      publicationDate: `${pub} 00:00:00`,
      unitCode: 'kac_ft',
      forecastValues: { '10': r(1.45), '30': r(1.15), '50': r(1), '70': r(0.86), '90': r(0.62) },
    };
  });
  return { volumes: { duration: 'MONTHLY', unit: 'kac_ft', values }, forecasts };
}

/** The demo's AWDB world from the demo basins in `basinsDir` and the demo terrain. */
export async function demoWorld(basinsDir: string, terrain: Terrain): Promise<AwdbWorld> {
  const world: AwdbWorld = { stations: [], data: new Map(), forecasts: new Map() };
  let n = 0;
  for (const file of (await readdir(basinsDir)).filter((f) => f.endsWith('.geojson')).sort()) {
    const gj = JSON.parse(await readFile(join(basinsDir, file), 'utf8')) as {
      id: string;
      geometries: { type: string; coordinates: unknown }[];
    };
    const basin = gj.geometries.find((g) => g.type !== 'Point') as AreaGeometry;
    const sites = sitesOf(gj.id, basin, terrain, n);
    n += 10;
    for (const s of sites) {
      world.stations.push({
        stationTriplet: s.triplet,
        stationId: s.triplet.split(':')[0]!,
        stateCode: s.triplet.split(':')[1]!,
        networkCode: s.network,
        name: s.name,
        huc: null,
        elevation: Math.round(s.m / M_PER_FT),
        latitude: s.lat,
        longitude: s.lon,
        beginDate: `${FIRST} 00:00`,
        endDate: '2100-01-01 00:00',
      } satisfies DtoStation);
      world.data.set(s.triplet, s.network === 'SNTL' ? snotel(s) : course(s));
    }
    if (sites.length > 0 && gj.id.endsWith(':USGS')) {
      const fp = forecastPoint(
        basin,
        sites.filter((s) => s.network === 'SNTL'),
      );
      world.data.set(gj.id, new Map([['SRVO', fp.volumes]]));
      world.forecasts.set(gj.id, { name: file.replace('.geojson', ''), data: fp.forecasts });
    }
  }
  return world;
}

export { LAST as STATIONS_LAST_DAY };
