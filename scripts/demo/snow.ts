/**
 * The demo's snow: a deterministic, plausible spring of water year 2025 in the western US. SWE
 * rises with elevation (real SRTM heights under the Zion DEM, a smooth synthetic relief elsewhere),
 * accumulates from mid-November to a peak that comes later higher up, then melts.
 */

import { FileSource } from '../../src/io/source.js';
import { Cog } from '../../src/raster/cog.reader.js';
import { fullWindow, type Grid } from '../../src/raster/grid.js';

/** Weekly from 2025-02-01 to 2025-04-26 (13 dates, YYYYMMDD). */
const WEEKLY: readonly string[] = Array.from({ length: 13 }, (_, i) =>
  new Date(Date.UTC(2025, 1, 1 + 7 * i)).toISOString().slice(0, 10).replaceAll('-', ''),
);

/** Demo dates (YYYYMMDD): the weekly dates and 1 April, the main snow-survey date (14 dates). */
export const DEMO_DATES: readonly string[] = [...WEEKLY, '20250401'].sort();

/** SPIRES dates: every other weekly date (fewer, larger mosaics). */
export const SPIRES_DATES: readonly string[] = WEEKLY.filter((_, i) => i % 2 === 0);

/** Reference water years of the SWANN history (2025 is the demo's current year). */
export const HISTORY_YEARS: readonly number[] = [2021, 2022, 2023, 2024];

/** SWANN history dates (YYYYMMDD): the SPIRES days and 1 April of each reference year (8 × 4 = 32 dates). */
export const HISTORY_DATES: readonly string[] = HISTORY_YEARS.flatMap((y) =>
  [...SPIRES_DATES, '20250401'].map((d) => `${y}${d.slice(4)}`).sort(),
);

/** Past years' season relative to their median year (2021 poor … 2024 big). */
const HISTORY_KIND: Readonly<Record<number, number>> = { 2021: 0.8, 2022: 0.95, 2023: 1.05, 2024: 1.2 };
/** Past years' timing, days: a poor year peaks and melts early, a big one late. */
const HISTORY_SHIFT: Readonly<Record<number, number>> = { 2021: -9, 2022: -3, 2023: 11, 2024: 5 };

/** Days water year `wy`'s season runs late (negative: early); 0 in 2025. */
export const seasonShift = (wy: number): number => HISTORY_SHIFT[wy] ?? 0;

/**
 * Season scale of water year `wy` at latitude `lat` (°): 1 in 2025. Past years are bigger in the
 * south, so 2025 runs from about 55 % of median at 37° N to 165 % north of 42° N.
 */
export function seasonScale(wy: number, lat: number): number {
  const kind = HISTORY_KIND[wy];
  return kind === undefined ? 1 : kind * latitudeFactor(lat);
}

/** How much bigger than 2025 a median past year is at latitude `lat` (°). */
export const latitudeFactor = (lat: number): number => Math.min(1.8, Math.max(0.6, 1.8 - 0.25 * (lat - 37)));

/**
 * The season of any water year at a station (the stations' records reach back to 1991): the
 * history years' own scale and timing, 2025's, and for the others a deterministic spread of
 * kinds (0.55–1.45) and timings (±10 days).
 */
export function stationSeason(wy: number, lat: number): { scale: number; shift: number } {
  if (wy === 2025 || HISTORY_KIND[wy] !== undefined)
    return { scale: seasonScale(wy, lat), shift: seasonShift(wy) };
  const u = (k: number) => {
    const x = Math.sin(wy * 12.9898 + k * 78.233) * 43758.5453;
    return x - Math.floor(x);
  };
  return { scale: (0.55 + 0.9 * u(1)) * latitudeFactor(lat), shift: Math.round(20 * u(2) - 10) };
}

/** Day of the water year (1 October = 0) of a YYYYMMDD date. */
export function waterYearDay(date: string): number {
  const y = Number(date.slice(0, 4));
  const t = Date.UTC(y, Number(date.slice(4, 6)) - 1, Number(date.slice(6, 8)));
  const start = Date.UTC(Number(date.slice(4, 6)) >= 10 ? y : y - 1, 9, 1);
  return Math.round((t - start) / 86_400_000);
}

/** Snowfall begins (water-year day 45 = 15 November). */
const ONSET = 45;

/** Elevation (m) above which snow lies: 1500 m at 37° N, 80 m lower per degree further north. */
export const snowLine = (lat: number): number => 1500 - 80 * (lat - 37);

/** A place's snow climate: metres above the snow line, wetness (× SWE) and lateness (days). */
export interface Climate {
  readonly above: number;
  readonly wet: number;
  readonly lag: number;
}

/** The climate at elevation `e` (m), `lon`, `lat` (degrees): wetter west of 119.5° W (Sierra, Cascades). */
export const climateAt = (e: number, lon: number, lat: number): Climate => ({
  above: e - snowLine(lat),
  wet: 1 + Math.max(0, -119.5 - lon) * 0.8,
  lag: 2.5 * (lat - 37), // further north, later
});

/**
 * SWE (mm) of a climate on water-year day `day`, scaled by `scale` and `shift` days late (history
 * years; 2025: 1 and 0): 0.25 mm per metre above the snow line; the peak comes later higher up
 * and further north (mid-March low and south … early May high and north), then melt accelerates.
 */
export function sweOf(c: Climate, day: number, scale = 1, shift = 0): number {
  const peak = Math.max(0, c.above * 0.25 * c.wet);
  if (peak === 0 || day <= ONSET) return 0;
  const peakDay = 150 + c.above / 50 + c.lag + shift;
  const swe =
    day <= peakDay
      ? (peak * (day - ONSET)) / (peakDay - ONSET)
      : peak - (day - peakDay) * (6 + 0.25 * (day - peakDay)); // melt accelerates, mm/day
  return Math.max(0, Math.round(scale * swe));
}

/** SWE (mm) at elevation `e` (m), `lon`, `lat` (degrees) on water-year day `day` in 2025. */
export const sweMm = (e: number, lon: number, lat: number, day: number): number =>
  sweOf(climateAt(e, lon, lat), day);

/** Snow depth (mm) of `swe` mm on water-year day `day`: density 220 kg/m³ rising to 450. */
export function depthMm(swe: number, day: number): number {
  const density = Math.min(0.45, 0.22 + 0.0018 * Math.max(0, day - ONSET));
  return Math.round(swe / density);
}

/** A lon/lat box (degrees): west, south, east, north. */
export type Box = readonly [w: number, s: number, e: number, n: number];

/**
 * Elevation (m) from the bundled SRTM DEM where it has data, else a smooth synthetic relief; 0
 * (no snow) outside the region's boxes, so generated files spend their work where basins are.
 */
export class Terrain {
  private constructor(
    private readonly dem: Uint16Array,
    private readonly x0: number,
    private readonly y0: number,
    private readonly cell: number,
    private readonly cols: number,
    private readonly rows: number,
    private readonly region: readonly Box[],
  ) {}

  /** Load a geographic UInt16 DEM (nodata 65535), e.g. test/fixtures/zion/srtm.tif; `region` bounds the snow. */
  static async load(path: string, region: readonly Box[]): Promise<Terrain> {
    const src = new FileSource(path);
    try {
      const cog = await Cog.open(src);
      const g = cog.grid;
      const dem = (await cog.readWindow(fullWindow(g))) as Uint16Array;
      return new Terrain(dem, g.originX, g.originY, g.cellWidth, g.width, g.height, region);
    } finally {
      await src.close();
    }
  }

  /** Whether a lon/lat (degrees) lies in the region. */
  private inRegion(lon: number, lat: number): boolean {
    for (const [w, s, e, n] of this.region) if (lon >= w && lon <= e && lat >= s && lat <= n) return true;
    return false;
  }

  /** DEM elevation (m) at a lon/lat (degrees), or NaN off the DEM or on its nodata. */
  private dem_(lon: number, lat: number): number {
    const c = Math.floor((lon - this.x0) / this.cell);
    const r = Math.floor((this.y0 - lat) / this.cell);
    if (c < 0 || r < 0 || c >= this.cols || r >= this.rows) return Number.NaN;
    const v = this.dem[r * this.cols + c]!;
    return v === 65535 ? Number.NaN : v;
  }

  /** West and east (degrees) of each region box crossing latitude `lat` (degrees). */
  spans(lat: number): [w: number, e: number][] {
    return this.region.filter(([, s, , n]) => lat >= s && lat <= n).map(([w, , e]) => [w, e]);
  }

  /** Elevation (m) at a lon/lat (degrees); 0 outside the region. */
  at(lon: number, lat: number): number {
    if (!this.inRegion(lon, lat)) return 0;
    const d = this.dem_(lon, lat);
    return Number.isNaN(d) ? syntheticElevation(lon, lat) : d;
  }

  /**
   * Elevations (m) at the cell centres of a north-up geographic grid with square cells, row-major;
   * cells outside the region are 0. The synthetic relief is separable: two multiplications a cell.
   */
  onGrid(g: Grid): Float32Array {
    const { originX: west, originY: north, cellWidth: cell, width: cols, height: rows } = g;
    const out = new Float32Array(cols * rows);
    const lon = (c: number) => west + (c + 0.5) * cell;
    for (const [w, s, e, n] of this.region) {
      const c0 = Math.max(0, Math.ceil((w - west) / cell - 0.5));
      const c1 = Math.min(cols, Math.floor((e - west) / cell - 0.5) + 1);
      const r0 = Math.max(0, Math.ceil((north - n) / cell - 0.5));
      const r1 = Math.min(rows, Math.floor((north - s) / cell - 0.5) + 1);
      const sx1 = Float64Array.from({ length: c1 - c0 }, (_, i) => Math.sin(lon(c0 + i) * 1.7));
      const sx2 = Float64Array.from({ length: c1 - c0 }, (_, i) => Math.sin(lon(c0 + i) * 6.1));
      const east = Float64Array.from({ length: c1 - c0 }, (_, i) => Math.max(0, lon(c0 + i) + 105) * 120);
      for (let r = r0; r < r1; r++) {
        const lat = north - (r + 0.5) * cell;
        const cy1 = 900 * Math.cos(lat * 2.3);
        const sy2 = 300 * Math.sin(lat * 5.3);
        const inDem = lat <= this.y0 && lat >= this.y0 - this.rows * this.cell;
        for (let c = c0; c < c1; c++) {
          const d = inDem ? this.dem_(lon(c), lat) : Number.NaN;
          const k = c - c0;
          out[r * cols + c] = Number.isNaN(d)
            ? Math.max(0, 2100 + sx1[k]! * cy1 + sx2[k]! * sy2 - east[k]!, massifHeight(lon(c), lat))
            : d;
        }
      }
    }
    return out;
  }
}

/**
 * The ranges the demo's basins drain, as domes: [lon, lat] of the summit (°), its height and the
 * height at `radius` (m), radius (°). Heights follow the real ranges (USGS station pages): the
 * Spanish Peaks over Cucharas R, the Elk Mountains over Slate R, the western Uintas over the Weber,
 * the Sierra crest over the West Fork Carson, the Carson Range, and the Cascades at Bumping Lake.
 */
const MASSIFS: readonly (readonly [number, number, number, number, number])[] = [
  [-105.1, 37.36, 3900, 2200, 0.2],
  [-107.04, 38.93, 3750, 2700, 0.2],
  [-111.0, 40.74, 3450, 2100, 0.3],
  [-119.95, 38.72, 3150, 1800, 0.22],
  [-119.93, 39.16, 2850, 1500, 0.15],
  [-121.4, 46.8, 2150, 1100, 0.22],
];

/** The massifs' height (m) at a lon/lat (°), or 0 off every dome. */
export function massifHeight(lon: number, lat: number): number {
  let h = 0;
  for (const [x, y, top, rim, r] of MASSIFS) {
    const d2 = ((lon - x) * Math.cos((y * Math.PI) / 180)) ** 2 + (lat - y) ** 2;
    if (d2 < r * r) h = Math.max(h, top - ((top - rim) * d2) / (r * r));
  }
  return h;
}

/** A smooth relief of ranges and valleys (m): 900–3300 m over the West, falling east of 105° W, with the massifs. */
export function syntheticElevation(lon: number, lat: number): number {
  const ranges = 900 * Math.sin(lon * 1.7) * Math.cos(lat * 2.3);
  const hills = 300 * Math.sin(lon * 6.1) * Math.sin(lat * 5.3);
  return Math.max(0, 2100 + ranges + hills - Math.max(0, lon + 105) * 120, massifHeight(lon, lat));
}
