import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { promisify } from 'node:util';
import { gzip } from 'node:zlib';
import type { FastifyInstance } from 'fastify';

/** The web page's own files (plain HTML, CSS and an ES module; no build step). */
const STATIC = new URL('../../../../src/web/static/', import.meta.url);
const require = createRequire(import.meta.url);
const gzipAsync = promisify(gzip);

/** Lon/lat box of the lakes kept for the map: North America south of the Arctic. */
const NORTH_AMERICA = [-170, 14, -50, 72] as const;

/** The polygons of a lakes MultiPolygon (GeoJSON bytes) with a vertex inside NORTH_AMERICA. */
function northAmerica(bytes: Buffer): Buffer {
  const [x0, y0, x1, y1] = NORTH_AMERICA;
  const g = JSON.parse(bytes.toString('utf8')) as { geometries: { coordinates: number[][][][] }[] };
  const inside = (poly: number[][][]) =>
    poly[0]!.some(([x, y]) => x! >= x0 && x! <= x1 && y! >= y0 && y! <= y1);
  const coordinates = g.geometries.flatMap((m) => m.coordinates.filter(inside));
  return Buffer.from(JSON.stringify({ type: 'MultiPolygon', coordinates }));
}

/** One file under /app/: where it is, its content type, cache seconds, and what is served of it. */
interface Served {
  readonly file: string;
  readonly type: string;
  readonly maxAge: number;
  readonly transform?: (bytes: Buffer) => Buffer;
}

const JS = 'text/javascript; charset=utf-8';
const CSS = 'text/css; charset=utf-8';
const DAY = 86400;
const own = (name: string, type: string): Served => ({
  file: new URL(name, STATIC).pathname,
  type,
  maxAge: 0,
});
const vendor = (spec: string, type: string, transform?: Served['transform']): Served => ({
  file: require.resolve(spec),
  type,
  maxAge: DAY,
  ...(transform && { transform }),
});
const MODULES = [
  'app',
  'api',
  'canvas',
  'charts',
  'list',
  'map',
  'state',
  'stations',
  'table',
  'units',
  'views',
];

/** Files under /app/ by URL path; vendor files come from npm packages. */
const FILES: Readonly<Record<string, Served>> = {
  '': own('index.html', 'text/html; charset=utf-8'),
  ...Object.fromEntries(MODULES.map((m) => [`${m}.js`, own(`${m}.js`, JS)])),
  'app.css': own('app.css', CSS),
  'vendor/topojson-client.min.js': vendor('topojson-client/dist/topojson-client.min.js', JS),
  // State outlines (US Census Bureau cartographic boundaries via us-atlas, TopoJSON, lon/lat).
  'vendor/states-10m.json': vendor('us-atlas/states-10m.json', 'application/json'),
  // Lakes (OpenStreetMap via @geo-maps, ODbL), cut to North America on first read.
  'vendor/lakes.json': vendor('@geo-maps/earth-lakes-10km/map.geo.json', 'application/json', northAmerica),
  'vendor/leaflet.js': vendor('leaflet/dist/leaflet.js', JS),
  'vendor/leaflet.css': vendor('leaflet/dist/leaflet.css', CSS),
  'vendor/uPlot.iife.min.js': vendor('uplot/dist/uPlot.iife.min.js', JS),
  'vendor/uPlot.min.css': vendor('uplot/dist/uPlot.min.css', CSS),
};

/** A file as served: its bytes, the same gzipped (once, not per request), and an ETag. */
interface Body {
  readonly raw: Buffer;
  readonly gzip: Buffer;
  readonly etag: string;
}

async function load(file: string, transform: Served['transform']): Promise<Body> {
  const bytes = await readFile(file);
  const raw = transform ? transform(bytes) : bytes;
  const etag = `"${createHash('sha256').update(raw).digest('base64url').slice(0, 22)}"`;
  return { raw, gzip: await gzipAsync(raw, { level: 9 }), etag }; // off the event loop
}

/** The map + chart page at /app/ (it reads only the public API), and its assets. */
export async function webRoutes(app: FastifyInstance): Promise<void> {
  const hide = { schema: { hide: true } };
  for (const [path, { file, type, maxAge, transform }] of Object.entries(FILES)) {
    let body: Promise<Body> | null = null; // read, transformed and gzipped on first request, then kept
    app.get(`/app/${path}`, hide, async (req, reply) => {
      // '/app' and '/app/' share a route; the page's relative links need the slash.
      if (path === '' && !req.url.split('?')[0]!.endsWith('/')) return reply.redirect('app/');
      body ??= load(file, transform);
      const { raw, gzip, etag } = await body;
      reply
        .type(type)
        .header('Cache-Control', maxAge > 0 ? `public, max-age=${maxAge}` : 'no-cache')
        .header('ETag', etag)
        .header('Vary', 'Accept-Encoding');
      if (req.headers['if-none-match'] === etag) return reply.code(304).send();
      if (!/\bgzip\b/.test(req.headers['accept-encoding'] ?? '')) return reply.send(raw);
      return reply.header('Content-Encoding', 'gzip').send(gzip); // the compress plugin leaves it as is
    });
  }
}
