import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Admission } from '../app/admission.js';
import type { ServeLimits } from '../app/serve.js';
import type { ExecuteOptions } from '../stats/engine.js';

/** What every route of one server shares: its public URL, its limits and its admission gate. */
export interface ServerState {
  /** scheme://host[:port][/prefix] clients reach the API at, no trailing slash. */
  publicUrl: string;
  readonly limits: ServeLimits;
  /** The gate of scans (stats, normals, every basin, exports, drawn polygons). */
  readonly admission: Admission;
  /** A lane of its own for cheap reads (one cell: `/point`), so they never queue behind scans. */
  readonly cheap: Admission;
}

/** Which gate a request's work goes through. */
export type Lane = 'scan' | 'cheap';

declare module 'fastify' {
  interface FastifyInstance {
    snowdb: ServerState;
  }
}

/** A hypermedia link (absolute href). */
export interface Link {
  href: string;
  rel: string;
  type?: string;
  title?: string;
  templated?: boolean;
  [member: string]: unknown;
}

/** The server's public base URL (configured, or the address it listens on; never the Host header). */
export function baseOf(req: FastifyRequest): string {
  return req.server.snowdb.publicUrl;
}

/** The stats engine's caps in force on this server (every stats query carries them). */
export const queryCaps = (req: FastifyRequest) => ({
  maxZoneCells: req.server.snowdb.limits.maxZoneCells,
  maxValues: req.server.snowdb.limits.maxValues,
});

/** A server keeps its event loop for cheap requests: scans over 1 MiB of decoded blocks go to the workers. */
const SERVER_THREADS_ABOVE = 1 << 20;

/**
 * Run expensive work through the server's admission gate: queued behind a bounded number of
 * running queries, abandoned at the time limit or when the client leaves.
 * @throws SnowdbError `service-busy` (queue full), `query-timeout`, `client-closed` (logged as 499).
 */
export function admit<T>(
  req: FastifyRequest,
  reply: FastifyReply,
  work: (exec: ExecuteOptions) => Promise<T>,
  lane: Lane = 'scan',
): Promise<T> {
  const gone = new AbortController();
  reply.raw.once('close', () => {
    if (!reply.raw.writableFinished) gone.abort();
  });
  const gate = lane === 'cheap' ? req.server.snowdb.cheap : req.server.snowdb.admission;
  return gate.run(
    (signal) => work({ signal, threadsAbove: SERVER_THREADS_ABOVE }),
    gone.signal,
    reply.elapsedTime, // ms since the request arrived: the limit runs from arrival
  );
}

/** Absolute URL of the request itself. */
export function selfOf(req: FastifyRequest): string {
  return `${baseOf(req)}${req.url}`;
}

/**
 * Send a body as minified JSON (pre-serialized: response schemas document, never filter);
 * `serialized` = the body is JSON text already.
 */
export function sendJson(
  reply: FastifyReply,
  body: unknown,
  type = 'application/json',
  serialized = false,
): FastifyReply {
  return reply.type(type).send(serialized ? (body as string | Buffer) : JSON.stringify(body));
}

const [OPEN, COMMA, CLOSE] = ['[', ',', ']'].map((c) => Buffer.from(c)) as [Buffer, Buffer, Buffer];

/** JSON array text of JSON texts given as bytes: `[a,b,…]`. */
export function jsonArray(items: readonly Buffer[]): Buffer {
  return Buffer.concat([OPEN, ...items.flatMap((b, i) => (i === 0 ? [b] : [COMMA, b])), CLOSE]);
}

/**
 * JSON text with the value of its first `"<key>":null` member replaced by `value` (JSON text as
 * UTF-8 bytes), as bytes: large cached values go in without a large string per request.
 */
export function spliceJson(text: string, key: string, value: Buffer): Buffer {
  const mark = `"${key}":`;
  const at = text.indexOf(`${mark}null`) + mark.length;
  return Buffer.concat([Buffer.from(text.slice(0, at)), value, Buffer.from(text.slice(at + 4))]);
}

/** Path segment encoding that keeps a triplet's colons readable. */
export const seg = (s: string) => encodeURIComponent(s).replaceAll('%3A', ':');
