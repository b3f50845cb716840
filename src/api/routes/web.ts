import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import type { FastifyInstance } from 'fastify';

/** The web page's own files (plain HTML, CSS and an ES module; no build step). */
const STATIC = new URL('../../../../src/web/static/', import.meta.url);
const require = createRequire(import.meta.url);

/** Files under /app/: URL path → [file, content type, cache seconds]; vendor files come from npm packages. */
const FILES: Readonly<Record<string, [string, string, number]>> = {
  '': [new URL('index.html', STATIC).pathname, 'text/html; charset=utf-8', 0],
  'app.js': [new URL('app.js', STATIC).pathname, 'text/javascript; charset=utf-8', 0],
  'app.css': [new URL('app.css', STATIC).pathname, 'text/css; charset=utf-8', 0],
  'vendor/leaflet.js': [require.resolve('leaflet/dist/leaflet.js'), 'text/javascript; charset=utf-8', 86400],
  'vendor/leaflet.css': [require.resolve('leaflet/dist/leaflet.css'), 'text/css; charset=utf-8', 86400],
  'vendor/uPlot.iife.min.js': [
    require.resolve('uplot/dist/uPlot.iife.min.js'),
    'text/javascript; charset=utf-8',
    86400,
  ],
  'vendor/uPlot.min.css': [require.resolve('uplot/dist/uPlot.min.css'), 'text/css; charset=utf-8', 86400],
};

/** The map + chart page at /app/ (it reads only the public API), and its assets. */
export async function webRoutes(app: FastifyInstance): Promise<void> {
  const hide = { schema: { hide: true } };
  for (const [path, [file, type, maxAge]] of Object.entries(FILES)) {
    let body: Promise<Buffer> | null = null; // read on first request, then kept
    const read = () => {
      body ??= readFile(file);
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
