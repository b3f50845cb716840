import { createWriteStream } from 'node:fs';
import { rename, rm, stat } from 'node:fs/promises';
import { Readable, Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { SnowdbError } from '../errors.js';
import { causeOf } from './bounded.js';
import { httpGet } from './http.js';

/** Total size from `Content-Range: bytes a-b/total`, or null. */
function totalOf(res: Response): number | null {
  const m = /\/(\d+)\s*$/.exec(res.headers.get('content-range') ?? '');
  return m?.[1] === undefined ? null : Number(m[1]);
}

export interface DownloadOptions {
  /** Bytes of the file so far and its total (NaN when the server does not say). */
  readonly onProgress?: (done: number, total: number) => void;
  /** Bytes of each chunk as it arrives. */
  readonly onChunk?: (n: number) => void;
  readonly headers?: Readonly<Record<string, string>>;
  /** Give up when no byte arrives for this long, ms (the whole transfer may take longer). */
  readonly idleMs?: number;
  /** Give up when the whole file takes longer than this, ms (a server dripping bytes). */
  readonly totalMs?: number;
  /** Refuse a file larger than this, bytes: announced, or as it streams (an endless body). */
  readonly maxBytes?: number;
}

/** A file past its archive's size bound: `how` the server gave `n` bytes ('announces', 'sent over'). */
export const tooLargeError = (url: string, n: number, how: string, maxBytes: number): SnowdbError =>
  new SnowdbError(
    'source-too-large',
    `${url}: the server ${how} ${n} bytes; a file of this archive holds at most ${maxBytes}`,
  );

/**
 * Download `url` to `target`, resumably: bytes go to `target.part`; a later call continues from
 * the bytes already there with a Range request (or starts over when the server ignores ranges).
 * The part file becomes `target` only when it holds every byte the server announced.
 * @returns bytes downloaded by this call.
 * @throws SnowdbError `source-unreachable` on a network failure or a stall (the part file is kept
 *   for resuming); the `httpGet` errors for an error status.
 */
export async function downloadResumable(
  url: string,
  target: string,
  opts: DownloadOptions = {},
): Promise<number> {
  const { onProgress = () => {}, onChunk = () => {}, headers = {}, idleMs = 120_000 } = opts;
  const { totalMs = 30 * 60_000, maxBytes = Number.POSITIVE_INFINITY } = opts;
  const tooLarge = (n: number, how: string) => tooLargeError(url, n, how, maxBytes);
  const part = `${target}.part`;
  const have = await stat(part).then(
    (s) => s.size,
    () => 0,
  );
  // One abort for the request and the body: re-armed by every chunk, fired by a stall.
  const abort = new AbortController();
  let timer = setTimeout(() => abort.abort(new Error(`no data for ${idleMs} ms`)), idleMs);
  const rearm = () => {
    clearTimeout(timer);
    timer = setTimeout(() => abort.abort(new Error(`no data for ${idleMs} ms`)), idleMs);
  };
  const overall = setTimeout(
    () => abort.abort(new Error(`the whole file took over ${Math.round(totalMs / 1000)} s`)),
    totalMs,
  );
  let done = 0;
  let start = 0;
  try {
    const res = await httpGet(
      url,
      have > 0 ? { ...headers, range: `bytes=${have}-` } : { ...headers },
      [],
      abort.signal,
    );
    const resumed = res.status === 206;
    start = resumed ? have : 0;
    const total = resumed ? totalOf(res) : Number(res.headers.get('content-length') ?? Number.NaN);
    done = start;
    if (res.body === null) throw new SnowdbError('source-unreachable', `${url}: empty response`);
    if (total !== null && total > maxBytes) {
      await res.body.cancel();
      await rm(part, { force: true });
      throw tooLarge(total, 'announces');
    }
    const counter = new Transform({
      transform(chunk: Buffer, _enc, cb) {
        rearm();
        done += chunk.length;
        if (done > maxBytes) {
          abort.abort(tooLarge(done, 'sent over'));
          cb(abort.signal.reason as Error);
          return;
        }
        onChunk(chunk.length);
        onProgress(done, total ?? Number.NaN);
        cb(null, chunk);
      },
    });
    try {
      await pipeline(
        Readable.fromWeb(res.body as import('node:stream/web').ReadableStream<Uint8Array>),
        counter,
        createWriteStream(part, { flags: resumed ? 'a' : 'w' }),
      );
    } catch (e) {
      if (SnowdbError.is(abort.signal.reason) && abort.signal.reason.key === 'source-too-large') {
        await rm(part, { force: true }); // nothing of it is worth resuming
        throw abort.signal.reason;
      }
      const why = abort.signal.aborted ? String((abort.signal.reason as Error).message) : causeOf(e);
      throw new SnowdbError(
        'source-unreachable',
        `${url}: download interrupted after ${done} bytes (${why}); run the command again to resume`,
        {},
        { cause: e },
      );
    }
    const size = (await stat(part)).size;
    if (total !== null && Number.isFinite(total) && size !== total) {
      throw new SnowdbError(
        'source-unreachable',
        `${url}: download stopped at ${size} of ${total} bytes; run the command again to resume`,
      );
    }
  } finally {
    clearTimeout(timer);
    clearTimeout(overall);
  }
  await rename(part, target);
  return done - start;
}
