import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import type { FastifyInstance } from 'fastify';

/** The web page's own files (plain HTML, CSS and an ES module; no build step). */
const STATIC = new URL('../../../../src/web/static/', import.meta.url);
const require = createRequire(import.meta.url);

/** Files under /app/: URL path → [file, content type, cache seconds]; vendor files come from npm packages. */
const JS = 'text/javascript; charset=utf-8';
const MODULES = ['app', 'api', 'charts', 'list', 'map', 'state', 'table', 'units', 'views'];
const FILES: Readonly<Record<string, [string, string, number]>> = {
  '': [new URL('index.html', STATIC).pathname, 'text/html; charset=utf-8', 0],
  ...Object.fromEntries(MODULES.map((m) => [`${m}.js`, [new URL(`${m}.js`, STATIC).pathname, JS, 0]])),
  'app.css': [new URL('app.css', STATIC).pathname, 'text/css; charset=utf-8', 0],
  'vendor/topojson-client.min.js': [
    require.resolve('topojson-client/dist/topojson-client.min.js'),
    JS,
    86400,
  ],
  // State outlines (US Census Bureau cartographic boundaries via us-atlas, TopoJSON, lon/lat).
  'vendor/states-10m.json': [require.resolve('us-atlas/states-10m.json'), 'application/json', 86400],
  // Lakes (OpenStreetMap via @geo-maps, ODbL), cut to North America on first read.
  'vendor/lakes.json': [
    require.resolve('@geo-maps/earth-lakes-10km/map.geo.json'),
    'application/json',
    86400,
  ],
  'vendor/leaflet.js': [require.resolve('leaflet/dist/leaflet.js'), JS, 86400],
  'vendor/leaflet.css': [require.resolve('leaflet/dist/leaflet.css'), 'text/css; charset=utf-8', 86400],
  'vendor/uPlot.iife.min.js': [require.resolve('uplot/dist/uPlot.iife.min.js'), JS, 86400],
  'vendor/uPlot.min.css': [require.resolve('uplot/dist/uPlot.min.css'), 'text/css; charset=utf-8', 86400],
};

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

/** The map + chart page at /app/ (it reads only the public API), and its assets. */
export async function webRoutes(app: FastifyInstance): Promise<void> {
  const hide = { schema: { hide: true } };
  for (const [path, [file, type, maxAge]] of Object.entries(FILES)) {
    let body: Promise<Buffer> | null = null; // read on first request, then kept
    const read = () => {
      body ??= readFile(file).then((b) => (path === 'vendor/lakes.json' ? northAmerica(b) : b));
      return body;
    };
    app.get(`/app/${path}`, hide, async (req, reply) =>
      // '/app' and '/app/' share a route; the page's relative links need the slash.
      path === '' && !req.url.split('?')[0]!.endsWith('/')
        ? reply.redirect('app/')
        : reply
            .type(type)
            .header('Cache-Control', maxAge > 0 ? `public, max-age=${maxAge}` : 'no-cache')
            .send(await read()),
    );
  }
}
