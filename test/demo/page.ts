/**
 * Helpers for the web page tests: open the page collecting every console error and request that
 * leaves 127.0.0.1, read what the page drew, the NRCS class table, and colour-vision simulation
 * (Machado, Oliveira & Fernandes 2009, severity 1) with CIE76 ΔE for telling colours apart.
 */
import { inflateSync } from 'node:zlib';
import type { Browser, Page } from 'playwright-core';
import { type Tab, tab } from '../helpers/browser.js';

/**
 * Open `url` at `width` × `height` in a tab of `browser` (a reused one when a test released it)
 * and wait until the page says it is ready; `release` gives the tab back.
 */
export async function openPage(browser: Browser, url: string, width = 1400, height = 900): Promise<Tab> {
  const t = await tab(browser);
  await t.page.setViewportSize({ width, height });
  await t.page.goto(url);
  await t.page.waitForSelector('body[data-ready=true]', { state: 'attached' });
  return t;
}

/** Wait until the panel has drawn (its numbers table has rows and nothing is loading). */
export async function settled(page: Page): Promise<void> {
  await page.waitForFunction(
    "document.querySelectorAll('#numbers tbody tr').length > 0 && document.querySelectorAll('[aria-busy=true]').length === 0",
  );
}

/** The map as the page holds it (Leaflet's own map object). */
interface MapWindow {
  snowdb: {
    map: {
      shapes: Map<string, unknown>;
      vertices(triplet: string): number;
      map: {
        getCenter(): { lat: number; lng: number };
        getZoom(): number;
        setView(p: [number, number], zoom: number, o: { animate: boolean }): void;
        latLngToContainerPoint(p: [number, number]): { x: number; y: number };
        getContainer(): { getBoundingClientRect(): { left: number; top: number } };
      };
    };
  };
}

/** The map's centre and zoom. */
export function mapView(page: Page): Promise<{ lon: number; lat: number; zoom: number }> {
  return page.evaluate(() => {
    const m = (globalThis as never as MapWindow).snowdb.map.map;
    const c = m.getCenter();
    return { lon: c.lng, lat: c.lat, zoom: m.getZoom() };
  });
}

/** Centre the map on (lon, lat) at `zoom`, and wait until it has painted. */
export async function setMapView(page: Page, lon: number, lat: number, zoom: number): Promise<void> {
  await page.evaluate(
    ([x, y, z]) =>
      new Promise((painted) => {
        (globalThis as never as MapWindow).snowdb.map.map.setView([y, x], z, { animate: false });
        const frame = (globalThis as never as { requestAnimationFrame(f: () => void): void })
          .requestAnimationFrame;
        frame(() => frame(() => painted(undefined)));
      }),
    [lon, lat, zoom] as const,
  );
}

/** Where (lon, lat) lies on the screen, in CSS px from the page's top left. */
export function screenPoint(page: Page, lon: number, lat: number): Promise<{ x: number; y: number }> {
  return page.evaluate(
    ([x, y]) => {
      const m = (globalThis as never as MapWindow).snowdb.map.map;
      const p = m.latLngToContainerPoint([y, x]);
      const r = m.getContainer().getBoundingClientRect();
      return { x: r.left + p.x, y: r.top + p.y };
    },
    [lon, lat] as const,
  );
}

/**
 * The colour the screen shows at a point, as #rrggbb: a 1×1 screenshot there, decoded here (for
 * one pixel every PNG row filter leaves the bytes as they are).
 */
export async function paintedAt(page: Page, point: { x: number; y: number }): Promise<string> {
  const at = { x: Math.floor(point.x), y: Math.floor(point.y) };
  const png = await page.screenshot({ clip: { ...at, width: 1, height: 1 } });
  const idat: Buffer[] = [];
  let colourType = -1;
  for (let o = 8; o < png.length; ) {
    const length = png.readUInt32BE(o);
    const type = png.toString('latin1', o + 4, o + 8);
    const data = png.subarray(o + 8, o + 8 + length);
    if (type === 'IHDR') {
      if (data[8] !== 8) throw new Error(`bit depth ${data[8]}`);
      colourType = data[9]!;
    }
    if (type === 'IDAT') idat.push(data);
    o += 12 + length;
  }
  if (colourType !== 2 && colourType !== 6) throw new Error(`PNG colour type ${colourType}`);
  const [, r, g, b] = inflateSync(Buffer.concat(idat));
  return `#${[r, g, b].map((v) => v!.toString(16).padStart(2, '0')).join('')}`;
}

/** How many basins the map holds. */
export function mappedBasins(page: Page): Promise<number> {
  return page.evaluate(() => (globalThis as never as MapWindow).snowdb.map.shapes.size);
}

/** The vertices of a basin's outline as the map holds it. */
export function mappedVertices(page: Page, triplet: string): Promise<number> {
  return page.evaluate((t) => (globalThis as never as MapWindow).snowdb.map.vertices(t), triplet);
}

/** Wait until the map holds `n` vertices for the basin (outlines are swapped as the view zooms). */
export async function waitForVertices(page: Page, triplet: string, n: number): Promise<void> {
  await page.waitForFunction(([t, k]) => (globalThis as never as MapWindow).snowdb.map.vertices(t) === k, [
    triplet,
    n,
  ] as const);
}

/** The arrays a chart of the page drew: `view` season | years, or zones with `index`. */
export function chartData(
  page: Page,
  view: 'season' | 'years' | 'zones',
  index = 0,
): Promise<(number | null)[][]> {
  return page.evaluate(
    ([v, i]) => {
      const charts = (globalThis as unknown as { snowdb: { charts: Record<string, unknown> } }).snowdb.charts;
      const c = charts[v as string];
      return ((Array.isArray(c) ? c[i as number] : c) as { data: (number | null)[][] }).data;
    },
    [view, index] as const,
  );
}

/** NRCS classes of % of median: lower bound (inclusive) and the colour the page uses. */
export const NRCS: readonly (readonly [number, string])[] = [
  [-Infinity, '#d73027'],
  [50, '#fc8d59'],
  [70, '#fee090'],
  [90, '#ffffbf'],
  [110, '#e0f3f8'],
  [130, '#91bfdb'],
  [150, '#4575b4'],
];
export const NO_MEDIAN = '#c9c9c9';
/** A median under the variable's floor (0.1 in of SWE): no % of median, "no snow at median". */
export const NO_SNOW = '#c7a977';

/** The colour of a % of median's class (null: no snow at median where a median exists, else no median). */
export function classColour(pct: number | null, median: number | null = null): string {
  if (pct === null) return median === null ? NO_MEDIAN : NO_SNOW;
  return NRCS.filter(([lo]) => pct >= lo).at(-1)![1];
}

const SIMULATIONS: Record<string, number[][]> = {
  deuteranopia: [
    [0.367322, 0.860646, -0.227968],
    [0.280085, 0.672501, 0.047413],
    [-0.01182, 0.04294, 0.968881],
  ],
  protanopia: [
    [0.152286, 1.052583, -0.204868],
    [0.114503, 0.786281, 0.099216],
    [-0.003882, -0.048116, 1.051998],
  ],
  tritanopia: [
    [1.255528, -0.076749, -0.178779],
    [-0.078411, 0.930809, 0.147602],
    [0.004733, 0.691367, 0.3039],
  ],
};
export const DEFICIENCIES = Object.keys(SIMULATIONS);

const linear = (c: number) => (c <= 0.04045 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4);

/** CIE L*a*b* (D65) of an `rgb(r, g, b)` or `#rrggbb` colour as seen with `deficiency` (or none). */
export function labAs(colour: string, deficiency?: string): [number, number, number] {
  const m = /^#(..)(..)(..)$/.exec(colour) ?? /^rgb\((\d+), (\d+), (\d+)\)$/.exec(colour);
  if (!m) throw new Error(`colour '${colour}'`);
  const hex = colour.startsWith('#');
  let rgb = [1, 2, 3].map((i) => linear((hex ? Number.parseInt(m[i]!, 16) : Number(m[i])) / 255));
  const sim = deficiency && SIMULATIONS[deficiency];
  if (sim)
    rgb = sim.map((row) =>
      Math.min(1, Math.max(0, row[0]! * rgb[0]! + row[1]! * rgb[1]! + row[2]! * rgb[2]!)),
    );
  const [r, g, b] = rgb as [number, number, number];
  const f = (t: number) => (t > 0.008856 ? Math.cbrt(t) : 7.787 * t + 16 / 116);
  const fx = f((0.4124 * r + 0.3576 * g + 0.1805 * b) / 0.95047);
  const fy = f(0.2126 * r + 0.7152 * g + 0.0722 * b);
  const fz = f((0.0193 * r + 0.1192 * g + 0.9505 * b) / 1.08883);
  return [116 * fy - 16, 500 * (fx - fy), 200 * (fy - fz)];
}

/** The smallest CIE76 ΔE between any two of `colours` as seen with `deficiency`. */
export function closestPair(colours: readonly string[], deficiency?: string): number {
  const lab = colours.map((c) => labAs(c, deficiency));
  let min = Infinity;
  for (let i = 0; i < lab.length; i++)
    for (let j = i + 1; j < lab.length; j++)
      min = Math.min(min, Math.hypot(...lab[i]!.map((v, k) => v - lab[j]![k]!)));
  return min;
}
