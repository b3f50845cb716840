import { createWriteStream } from 'node:fs';
import { rename, stat } from 'node:fs/promises';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { SnowdbError } from '../errors.js';
import { httpGet } from './http.js';

/** Total size from `Content-Range: bytes a-b/total`, or null. */
function totalOf(res: Response): number | null {
  const m = /\/(\d+)\s*$/.exec(res.headers.get('content-range') ?? '');
  return m?.[1] === undefined ? null : Number(m[1]);
}

/**
 * Download `url` to `target`, resumably: bytes go to `target.part`; a later call continues from
 * the bytes already there with a Range request (or starts over when the server ignores ranges).
 * The part file becomes `target` only when complete.
 * @returns bytes downloaded by this call.
 * @throws SnowdbError `source-unreachable` on a network failure (the part file is kept for resuming).
 */
export async function downloadResumable(
  url: string,
  target: string,
  onProgress: (done: number, total: number) => void = () => {},
): Promise<number> {
  const part = `${target}.part`;
  const have = await stat(part).then(
    (s) => s.size,
    () => 0,
  );
  const res = await httpGet(url, have > 0 ? { range: `bytes=${have}-` } : {});
  const resumed = res.status === 206;
  const start = resumed ? have : 0;
  const total = resumed ? totalOf(res) : Number(res.headers.get('content-length') ?? Number.NaN);
  let done = start;
  const body = res.body;
  if (body === null) throw new SnowdbError('source-unreachable', `${url}: empty response`);
  const counter = Readable.fromWeb(body as import('node:stream/web').ReadableStream<Uint8Array>);
  counter.on('data', (chunk: Buffer) => {
    done += chunk.length;
    onProgress(done, total ?? done);
  });
  try {
    await pipeline(counter, createWriteStream(part, { flags: resumed ? 'a' : 'w' }));
  } catch (e) {
    throw new SnowdbError(
      'source-unreachable',
      `${url}: download interrupted after ${done} bytes (${String((e as Error).message)}); run the command again to resume`,
    );
  }
  const size = (await stat(part)).size;
  if (total !== null && Number.isFinite(total) && size !== total) {
    throw new SnowdbError(
      'source-unreachable',
      `${url}: download stopped at ${size} of ${total} bytes; run the command again to resume`,
    );
  }
  await rename(part, target);
  return done - start;
}
