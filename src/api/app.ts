import { STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import { tmpdir } from 'node:os';
import compress from '@fastify/compress';
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import Fastify, {
  type FastifyInstance,
  type FastifyReply,
  type FastifyServerOptions,
  LogController,
} from 'fastify';
import { Admission } from '../app/admission.js';
import { DEFAULT_LIMITS, type ServeLimits } from '../app/serve.js';
import type { Database } from '../db/database.js';
import { type ErrorKey, SnowdbError } from '../errors.js';
import { VERSION } from '../version.js';
import { closePromptly } from './close.js';
import {
  PROBLEM_JSON,
  type Problem,
  problemOf,
  problemOfKey,
  problemTypeUri,
  scrubPaths,
} from './problems.js';
import { datasetRoutes } from './routes/datasets.js';
import { exportRoutes } from './routes/export.js';
import { groupRoutes } from './routes/groups.js';
import { historyRoutes } from './routes/history.js';
import { pointRoutes } from './routes/point.js';
import { pourpointRoutes } from './routes/pourpoints.js';
import { API_DESCRIPTION, API_TITLE, serviceRoutes } from './routes/service.js';
import { stationRoutes } from './routes/stations.js';
import { statsRoutes } from './routes/stats.js';
import { webRoutes } from './routes/web.js';
import { SHARED_SCHEMAS } from './schemas.js';
import { buildSerializer } from './serializers.js';

export interface AppOptions {
  /** Server log (pino options; false = none): one line per request, errors with their cause. */
  readonly logger?: FastifyServerOptions['logger'];
  /** The URL clients reach the API at; links are built from it (default http://localhost). */
  readonly publicUrl?: string;
  readonly limits?: Partial<ServeLimits>;
}

/** A problem written straight to a socket (errors the HTTP parser raises before any route). */
function socketProblem(socket: Socket, key: ErrorKey, detail: string): void {
  const { status, ...rest } = problemOfKey(key, detail);
  const body = JSON.stringify({ ...rest, status });
  socket.end(
    `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\nContent-Type: ${PROBLEM_JSON}\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
  );
}

/** What a client is told of a storage failure (the server's log names it). */
const STORAGE_DETAIL = "the database's storage did not answer as expected; try again shortly";

/**
 * The HTTP API over one database. Every request first re-checks the root config (one stat), and
 * the pourpoint index and the dates are read through mtime checks, so registrations,
 * activations, imports and ingests show without a restart. Every error, the framework's and the
 * HTTP parser's included, is problem+json with no file path or stack in it (those go to the log).
 */
export async function buildApp(db: Database, opts: AppOptions = {}): Promise<FastifyInstance> {
  const limits: ServeLimits = { ...DEFAULT_LIMITS, ...opts.limits };
  // A replica's storage location and blob keys are never echoed (a raster error names its source).
  const roots = [db.root, tmpdir(), ...(db.store.local ? [] : [db.store.url])];
  const send = (problem: Problem, url: string) => {
    const { detail: said, ...rest } = problem;
    // Storage failures name the storage's URL and object keys: the log has them, clients do not.
    const detail = problem.type === problemTypeUri('storage-unreachable') ? STORAGE_DETAIL : said;
    return JSON.stringify({
      ...rest,
      ...(detail !== undefined && { detail: scrubPaths(detail, roots) }),
      instance: url,
    });
  };
  const app = Fastify({
    logger: opts.logger ?? false,
    logController: new LogController({ disableRequestLogging: true }),
    ajv: { customOptions: { coerceTypes: 'array', removeAdditional: false } },
    schemaController: { compilersFactory: { buildSerializer } },
    routerOptions: { ignoreTrailingSlash: true, maxParamLength: 200 },
    // A request reaching a stopping server on a connection it already had is answered (with
    // Connection: close), not given Fastify's own non-problem 503 body.
    return503OnClosing: false,
    frameworkErrors: (error, req, reply) => {
      const problem =
        error.code === 'FST_ERR_MAX_PARAM_LENGTH'
          ? problemOfKey('uri-too-long', 'a path segment is longer than 200 characters')
          : problemOfKey('malformed-query-parameter', 'the request target is not valid percent-encoding');
      void (reply as FastifyReply)
        .code(problem.status)
        .type(PROBLEM_JSON)
        .send(send(problem, req.url.slice(0, 256)));
    },
    clientErrorHandler: (err: NodeJS.ErrnoException, socket: Socket) => {
      if (err.code === 'ECONNRESET' || socket.destroyed || !socket.writable) return socket.destroy();
      if (err.code === 'HPE_HEADER_OVERFLOW')
        socketProblem(socket, 'headers-too-large', 'the request headers exceed 16 KiB');
      else if (err.code === 'ERR_HTTP_REQUEST_TIMEOUT')
        socketProblem(socket, 'request-timeout', 'the request was not received in time');
      else
        socketProblem(
          socket,
          'malformed-request',
          `the request is not valid HTTP/1.1 (${String(err.code ?? 'parse error').replace(/[^A-Z0-9_]/g, '')})`,
        );
    },
  });
  app.decorate('snowdb', {
    publicUrl: (opts.publicUrl ?? 'http://localhost').replace(/\/+$/, ''),
    limits,
    admission: new Admission(limits),
    cheap: new Admission(limits),
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
        { name: 'stations', description: 'AWDB stations beside the grid, forecast points' },
      ],
    },
    refResolver: { buildLocalReference: (json, _base, _fragment, i) => String(json.$id ?? `def-${i}`) },
  });
  await app.register(swaggerUi, { routePrefix: '/docs', uiConfig: { deepLinking: false }, staticCSP: false });
  app.get('/openapi.json', { schema: { hide: true } }, (_req, reply) => reply.send(app.swagger()));

  app.addHook('onRequest', async (req) => {
    if (Buffer.byteLength(req.url) > limits.maxUrlBytes)
      throw new SnowdbError(
        'uri-too-long',
        `the request target is ${Buffer.byteLength(req.url)} bytes, more than the limit of ${limits.maxUrlBytes}`,
        { limit: limits.maxUrlBytes },
      );
    await db.refresh();
  });
  // Ajv coerces '1e400' to Infinity and then skips its bounds: no parameter may be non-finite.
  app.addHook('preHandler', async (req) => {
    for (const [key, v] of Object.entries((req.query ?? {}) as Record<string, unknown>))
      if (typeof v === 'number' && !Number.isFinite(v))
        throw new SnowdbError('malformed-query-parameter', `${key} must be a finite number`, {
          parameter: key,
        });
  });
  // A client that leaves before its answer gets no onResponse: its line is written here, as 499.
  const started = new WeakMap<object, number>();
  app.addHook('onRequest', async (req) => {
    started.set(req.raw, performance.now());
  });
  app.addHook('onRequestAbort', async (req) => {
    const t0 = started.get(req.raw);
    req.log.info(
      {
        method: req.method,
        url: req.url.slice(0, 512),
        status: 499,
        ms: t0 === undefined ? null : Math.round(performance.now() - t0),
      },
      'request',
    );
  });
  app.addHook('onResponse', async (req, reply) => {
    req.log.info(
      {
        method: req.method,
        url: req.url.slice(0, 512),
        status: reply.statusCode,
        ms: Math.round(reply.elapsedTime),
      },
      'request',
    );
  });
  app.setErrorHandler((error, req, reply) => {
    const problem = problemOf(error);
    if (problem.status >= 500 && problem.status !== 503) req.log.error({ err: error }, 'request failed');
    else if (problem.status === 503) req.log.warn({ problem: problem.type }, String(problem.detail));
    else if (problem.status === 499) req.log.info({ problem: problem.type }, String(problem.detail));
    const retry = problem.retry_after;
    if (typeof retry === 'number') void reply.header('Retry-After', String(retry));
    return reply
      .code(problem.status)
      .type(PROBLEM_JSON)
      .send(send(problem, req.url.slice(0, 1024)));
  });
  app.setNotFoundHandler((req) => {
    throw new SnowdbError(
      'resource-not-found',
      `no resource at ${req.method} ${req.url.split('?')[0]!.slice(0, 256)}`,
    );
  });

  closePromptly(app);
  // What the caches held and how they served, for whoever sizes them (SNOWDB_CACHE_MB); then the
  // idle worker threads stop.
  app.addHook('onClose', async () => {
    const runtime = db.runtime.report();
    app.log.info(
      {
        caches: runtime.caches.map(({ name, entries, bytes, maxBytes, hits, misses }) => ({
          name,
          entries,
          bytes,
          maxBytes,
          hits,
          misses,
        })),
        workers: runtime.workers,
      },
      'caches and worker threads at shutdown',
    );
    await db.runtime.close();
  });
  await app.register(async (scope) => {
    await serviceRoutes(scope, db.runtime);
    await datasetRoutes(scope, db);
    await pourpointRoutes(scope, db);
    await statsRoutes(scope, db);
    await historyRoutes(scope, db);
    await pointRoutes(scope, db);
    await groupRoutes(scope, db);
    await stationRoutes(scope, db);
    await exportRoutes(scope, db);
    await webRoutes(scope);
  });
  return app;
}
