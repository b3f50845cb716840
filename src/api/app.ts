import compress from '@fastify/compress';
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import Fastify, { type FastifyInstance } from 'fastify';
import type { Database } from '../db/database.js';
import { SnowdbError } from '../errors.js';
import { VERSION } from '../version.js';
import { PROBLEM_JSON, problemOf } from './problems.js';
import { datasetRoutes } from './routes/datasets.js';
import { historyRoutes } from './routes/history.js';
import { pourpointRoutes } from './routes/pourpoints.js';
import { API_DESCRIPTION, API_TITLE, serviceRoutes } from './routes/service.js';
import { statsRoutes } from './routes/stats.js';
import { webRoutes } from './routes/web.js';
import { SHARED_SCHEMAS } from './schemas.js';

/**
 * The HTTP API over one database. Every request first re-checks the root config (one stat), and
 * the pourpoint index and the dates are read through mtime checks, so registrations,
 * activations, imports and ingests show without a restart. Errors are problem+json.
 */
export async function buildApp(db: Database, opts: { logger?: boolean } = {}): Promise<FastifyInstance> {
  const app = Fastify({
    logger: opts.logger ?? false,
    ajv: { customOptions: { coerceTypes: 'array', removeAdditional: false } },
    routerOptions: { ignoreTrailingSlash: true },
  });
  for (const s of SHARED_SCHEMAS) app.addSchema(s);
  await app.register(compress, { global: true, encodings: ['gzip', 'deflate'] });
  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: { title: API_TITLE, description: API_DESCRIPTION, version: VERSION },
      tags: [
        { name: 'root', description: 'landing page, version, problem types' },
        { name: 'datasets', description: 'active datasets' },
        { name: 'pourpoints', description: 'basins' },
        { name: 'stats', description: 'stratified statistics' },
      ],
    },
    refResolver: { buildLocalReference: (json, _base, _fragment, i) => String(json.$id ?? `def-${i}`) },
  });
  await app.register(swaggerUi, { routePrefix: '/docs', uiConfig: { deepLinking: false }, staticCSP: false });
  app.get('/openapi.json', { schema: { hide: true } }, (_req, reply) => reply.send(app.swagger()));

  app.addHook('onRequest', async () => {
    await db.refresh();
  });
  app.setErrorHandler((error, req, reply) => {
    const problem = problemOf(error);
    if (problem.status >= 500) req.log.error(error);
    return reply
      .code(problem.status)
      .type(PROBLEM_JSON)
      .send(JSON.stringify({ ...problem, instance: req.url }));
  });
  app.setNotFoundHandler((req) => {
    throw new SnowdbError('resource-not-found', `no resource at ${req.method} ${req.url.split('?')[0]}`);
  });

  await app.register(async (scope) => {
    await serviceRoutes(scope);
    await datasetRoutes(scope, db);
    await pourpointRoutes(scope, db);
    await statsRoutes(scope, db);
    await historyRoutes(scope, db);
    await webRoutes(scope);
  });
  return app;
}
