/**
 * Large JSON answers sent in pieces, so serializing one never holds the event loop for long:
 * objects go member by member, arrays of objects element by element, and every other value
 * (a date's rows, a zone list of plain arrays) whole through `JSON.stringify`; a value with its
 * own `jsonPieces` (a table's rows, stats/engine.ts) writes itself. The text is exactly
 * `JSON.stringify(value)`'s; pieces are gathered into chunks of ~64 KiB for the stream.
 */
import { Readable } from 'node:stream';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { ExecuteOptions } from '../stats/engine.js';
import { Slicer } from '../util/slices.js';
import { admit, type Lane } from './http.js';

/** Chunk size the pieces are gathered to, UTF-16 code units (~64 KiB of mostly ASCII). */
const CHUNK = 64 * 1024;

const isPlainObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' &&
  v !== null &&
  !Array.isArray(v) &&
  typeof (v as { toJSON?: unknown }).toJSON !== 'function';

/** Members `JSON.stringify` leaves out of an object (and writes as null in an array). */
const skipped = (v: unknown) => v === undefined || typeof v === 'function' || typeof v === 'symbol';

/** A value that writes its own JSON text in pieces (a table's rows: no boxed arrays). */
interface Pieced {
  jsonPieces(): Iterable<string>;
}
const isPieced = (v: unknown): v is Pieced =>
  typeof v === 'object' && v !== null && typeof (v as Partial<Pieced>).jsonPieces === 'function';

/** `JSON.stringify(value)` as a sequence of pieces (see the module comment). */
export function* jsonPieces(value: unknown): Generator<string> {
  if (isPieced(value)) {
    yield* value.jsonPieces();
    return;
  }
  if (isPlainObject(value)) {
    yield '{';
    let first = true;
    for (const [k, v] of Object.entries(value)) {
      if (skipped(v)) continue;
      yield `${first ? '' : ','}${JSON.stringify(k)}:`;
      first = false;
      yield* jsonPieces(v);
    }
    yield '}';
    return;
  }
  if (Array.isArray(value) && value.some(isPlainObject) && value.length > 1) {
    yield '[';
    for (let i = 0; i < value.length; i++) {
      if (i > 0) yield ',';
      const v = value[i];
      if (skipped(v)) yield 'null';
      else yield* jsonPieces(v);
    }
    yield ']';
    return;
  }
  yield JSON.stringify(value) ?? 'null';
}

/**
 * Pieces gathered into chunks of about CHUNK characters; every slice (util/slices.ts) it waits a turn
 * of the event loop (a socket on loopback never pushes back, so the stream alone would not), and
 * stops there when `signal` has aborted.
 */
async function* chunked(pieces: Iterable<string>, signal?: AbortSignal): AsyncGenerator<string> {
  let buf: string[] = [];
  let size = 0;
  const slicer = new Slicer(signal);
  for (const p of pieces) {
    buf.push(p);
    size += p.length;
    if (size >= CHUNK) {
      yield buf.join('');
      buf = [];
      size = 0;
      await slicer.pause();
    }
  }
  if (size > 0) yield buf.join('');
}

/**
 * Compute a table answer through the admission gate and write its JSON there too, in slices of
 * the event loop (a few answers of tens of MB at once, never one long block), then send the bytes:
 * the time limit covers the writing, and a slow reader holds no slot.
 * @throws as `admit`.
 */
export async function admitJson(
  req: FastifyRequest,
  reply: FastifyReply,
  work: (exec: ExecuteOptions) => Promise<unknown>,
  lane: Lane = 'scan',
): Promise<FastifyReply> {
  const chunks = await admit(
    req,
    reply,
    async (exec) => {
      const out: Buffer[] = [];
      for await (const c of chunked(jsonPieces(await work(exec)), exec.signal)) out.push(Buffer.from(c));
      return out;
    },
    lane,
  );
  return reply.type('application/json').send(chunks.length === 1 ? chunks[0] : Readable.from(chunks));
}
