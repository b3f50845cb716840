import type { FastifyReply, FastifyRequest } from 'fastify';

/** A hypermedia link (absolute href). */
export interface Link {
  href: string;
  rel: string;
  type?: string;
  title?: string;
  templated?: boolean;
  [member: string]: unknown;
}

/** The absolute base URL the client used (scheme://host[:port]). */
export function baseOf(req: FastifyRequest): string {
  return `${req.protocol}://${req.host}`;
}

/** Absolute URL of the request itself. */
export function selfOf(req: FastifyRequest): string {
  return `${baseOf(req)}${req.url}`;
}

/** Send a body as minified JSON (pre-serialized: response schemas document, never filter). */
export function sendJson(reply: FastifyReply, body: unknown, type = 'application/json'): FastifyReply {
  return reply.type(type).send(JSON.stringify(body));
}

/** Path segment encoding that keeps a triplet's colons readable. */
export const seg = (s: string) => encodeURIComponent(s).replaceAll('%3A', ':');
