/**
 * How a table answer (stats, normals, water-years) is sent, shared by the table routes: the cell
 * options every one takes, its ETag and 304, its links, and CSV as a streamed download.
 */
import { Readable } from 'node:stream';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { baseOf, type Link, seg, selfOf } from './http.js';
import { DATASET_PARAM, POURPOINT_PARAM, tableResponses } from './schemas.js';

/** Bytes of CSV text a streamed chunk gathers (one chunk per line made gzip ~6× slower at 10⁵ lines). */
const CSV_CHUNK = 64 * 1024;

/** Lines gathered into chunks of about CSV_CHUNK characters. */
function* chunked(lines: Iterable<string>): Generator<string> {
  let chunk = '';
  for (const line of lines) {
    chunk += line;
    if (chunk.length >= CSV_CHUNK) {
      yield chunk;
      chunk = '';
    }
  }
  if (chunk !== '') yield chunk;
}

/** A CSV table as a named, streamed download. */
export function sendCsv(reply: FastifyReply, name: string, lines: Iterable<string>): FastifyReply {
  return reply
    .type('text/csv; charset=utf-8')
    .header('Content-Disposition', `attachment; filename="${name}"`)
    .send(Readable.from(chunked(lines)));
}

/** `self`, `root`, any `extra`, then `alternate` → the same request as CSV. */
export function statsLinks(req: FastifyRequest, extra: Link[] = []): Link[] {
  const self = selfOf(req);
  const csv = new URL(self);
  csv.searchParams.set('f', 'csv');
  return [
    { href: self, rel: 'self', type: 'application/json' },
    { href: `${baseOf(req)}/`, rel: 'root', type: 'application/json' },
    ...extra,
    { href: csv.href, rel: 'alternate', type: 'text/csv', title: 'csv' },
  ];
}

/** Whether an If-None-Match header names this entity tag (or is `*`). */
export function notModified(header: string | undefined, etag: string): boolean {
  if (header === undefined) return false;
  return header.split(',').some((t) => {
    const v = t.trim().replace(/^W\//, '');
    return v === '*' || v === etag;
  });
}

/**
 * Set the ETag of an answer from the key of the state it reads and its format; whether the
 * request's If-None-Match names it (then the answer is 304).
 */
export function conditional(
  req: FastifyRequest,
  reply: FastifyReply,
  stateKey: string,
  format: string,
): boolean {
  const etag = `"${stateKey}.${format}"`;
  reply.header('ETag', etag).header('Cache-Control', 'no-cache').header('Vary', 'Accept, Accept-Encoding');
  return notModified(req.headers['if-none-match'], etag);
}

/** The responses of a table route: 200 (JSON or CSV) and 304. */
export const conditionalResponses = (ref: string, what: string) => ({
  ...tableResponses(ref, what),
  304: { description: 'not modified (If-None-Match matched the ETag)' },
});

/** The path parameters of a one-basin table route, and their schema. */
export type BasinParams = { dataset: string; pourpoint: string };
export const basinParams = {
  type: 'object',
  properties: { dataset: DATASET_PARAM, pourpoint: POURPOINT_PARAM },
  required: ['dataset', 'pourpoint'],
} as const;

/** The `up` link of a one-basin answer: the basin's Feature. */
export const upLink = (req: FastifyRequest, pourpoint: string): Link => ({
  href: `${baseOf(req)}/pourpoints/${seg(pourpoint)}`,
  rel: 'up',
  type: 'application/geo+json',
});
