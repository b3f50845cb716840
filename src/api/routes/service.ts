import { readFile } from 'node:fs/promises';
import type { FastifyInstance } from 'fastify';
import { ErrorCatalog, type ErrorKey, SnowdbError } from '../../errors.js';
import type { Runtime } from '../../util/runtime.js';
import { VERSION } from '../../version.js';
import { baseOf, sendJson } from '../http.js';
import { problemTypeUri } from '../problems.js';
import { jsonResponse, problemResponses } from '../schemas.js';

export const API_TITLE = 'snowdb API';
export const API_DESCRIPTION =
  'Basins (pourpoints), gridded daily snow datasets, and stratified snow statistics per basin.';

const REDOC_JS = new URL('../../../../vendor/redoc/redoc.standalone.js', import.meta.url);
/** The one remote URL in the ReDoc bundle (its footer logo), swapped for an inline blank image. */
const REDOC_CDN_LOGO = 'https://cdn.redoc.ly/redoc/logo-mini.svg';
const BLANK_SVG = "data:image/svg+xml,%3Csvg xmlns='http://www.w3.org/2000/svg'/%3E";
let redocJs: Promise<string> | null = null;
const readRedoc = (): Promise<string> => {
  redocJs ??= readFile(REDOC_JS, 'utf8').then((js) => js.replace(REDOC_CDN_LOGO, BLANK_SVG));
  return redocJs;
};

const redocPage = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>${API_TITLE} - ReDoc</title>
<meta name="viewport" content="width=device-width, initial-scale=1"></head>
<body><redoc spec-url="/openapi.json"></redoc><script src="/redoc/redoc.standalone.js"></script></body></html>
`;

const problemType = (key: string) => {
  const k = ErrorCatalog[key as ErrorKey];
  return { type: problemTypeUri(key), title: k.title, status: k.status };
};

/** Landing page, version, problem types, and the offline ReDoc page. */
export async function serviceRoutes(app: FastifyInstance, rt: Runtime): Promise<void> {
  app.get(
    '/',
    {
      schema: {
        tags: ['root'],
        summary: 'Landing page: links to everything',
        response: jsonResponse('LandingPage', 'title, description and links to everything'),
      },
    },
    (req, reply) => {
      // A browser asking for a page first gets the web page; API clients get this document.
      if (/^\s*text\/html/.test(req.headers.accept ?? '')) return reply.redirect('app/');
      const b = baseOf(req);
      return sendJson(reply, {
        title: API_TITLE,
        description: API_DESCRIPTION,
        links: [
          { href: `${b}/`, rel: 'self', type: 'application/json', title: 'this document' },
          { href: `${b}/`, rel: 'root', type: 'application/json' },
          { href: `${b}/datasets`, rel: 'data', type: 'application/json', title: 'Datasets' },
          { href: `${b}/pourpoints`, rel: 'data', type: 'application/geo+json', title: 'Pourpoints' },
          {
            href: `${b}/openapi.json`,
            rel: 'service-desc',
            type: 'application/vnd.oai.openapi+json;version=3.1',
            title: 'OpenAPI document',
          },
          { href: `${b}/app/`, rel: 'alternate', type: 'text/html', title: 'Web page: basin map and charts' },
          { href: `${b}/docs`, rel: 'service-doc', type: 'text/html', title: 'Swagger UI' },
          { href: `${b}/redoc`, rel: 'service-doc', type: 'text/html', title: 'ReDoc' },
          { href: `${b}/problems`, rel: 'describedby', type: 'application/json', title: 'Problem types' },
          { href: `${b}/version`, rel: 'version', type: 'application/json' },
          { href: `${b}/status`, rel: 'status', type: 'application/json', title: 'Caches of this server' },
        ],
      });
    },
  );
  app.get(
    '/version',
    {
      schema: {
        tags: ['root'],
        summary: 'snowdb version',
        response: jsonResponse('VersionResponse', 'the version'),
      },
    },
    (req, reply) =>
      sendJson(reply, {
        version: VERSION,
        links: [
          { href: `${baseOf(req)}/version`, rel: 'self' },
          { href: `${baseOf(req)}/`, rel: 'root' },
        ],
      }),
  );
  app.get(
    '/status',
    {
      schema: {
        tags: ['root'],
        summary:
          "This server process's caches (entries, bytes held, budget, hits and misses) and worker threads",
        response: jsonResponse('StatusResponse', 'uptime, caches and worker threads'),
      },
    },
    (req, reply) => {
      const runtime = rt.report();
      return sendJson(reply, {
        uptime_s: Math.round(process.uptime() * 10) / 10,
        caches: runtime.caches.map(({ maxBytes, ...c }) => ({
          ...c,
          max_bytes: maxBytes,
          hit_rate: c.hits + c.misses > 0 ? c.hits / (c.hits + c.misses) : null,
        })),
        workers: runtime.workers,
        links: [
          { href: `${baseOf(req)}/status`, rel: 'self' },
          { href: `${baseOf(req)}/`, rel: 'root' },
        ],
      });
    },
  );
  app.get(
    '/problems',
    {
      schema: {
        tags: ['root'],
        summary: 'Every problem type by key',
        response: jsonResponse('ProblemTypes', 'every problem type'),
      },
    },
    (_req, reply) =>
      sendJson(reply, Object.fromEntries(Object.keys(ErrorCatalog).map((k) => [k, problemType(k)]))),
  );
  app.get<{ Params: { key: string } }>(
    '/problems/:key',
    {
      schema: {
        tags: ['root'],
        summary: 'One problem type',
        params: { type: 'object', properties: { key: { type: 'string' } }, required: ['key'] },
        response: problemResponses(404),
      },
    },
    (req, reply) => {
      if (!Object.hasOwn(ErrorCatalog, req.params.key)) {
        throw new SnowdbError('problem-type-not-found', `no problem type '${req.params.key}'`);
      }
      return sendJson(reply, problemType(req.params.key));
    },
  );
  app.get('/redoc', { schema: { hide: true } }, (_req, reply) => reply.type('text/html').send(redocPage));
  app.get('/redoc/redoc.standalone.js', { schema: { hide: true } }, async (_req, reply) =>
    reply
      .type('text/javascript')
      .header('Cache-Control', 'public, max-age=86400')
      .send(await readRedoc()),
  );
}
