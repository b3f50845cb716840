/**
 * Bounded upstream bodies: every answer read from a remote server (AWDB, GitHub, archives'
 * listings, replicas) is read through here, so none can grow past a size, stall past an idle time
 * or drip past a total time. A body over its size is refused as soon as it is announced or
 * streamed past the bound (`source-too-large`: never worth a retry); a stall or a drip ends with
 * how much arrived in how long.
 */
import { SnowdbError } from '../errors.js';

export interface Bounds {
  /** Most bytes a body may hold. */
  readonly maxBytes: number;
  /** Longest wait for the headers or the next chunk, ms. */
  readonly idleMs: number;
  /** Longest a whole request (headers and body) may take, ms. */
  readonly totalMs: number;
}

/** Bounds of small JSON answers and records: 64 MiB, 60 s idle, 10 min in all. */
export const JSON_BOUNDS: Bounds = { maxBytes: 64 * 2 ** 20, idleMs: 60_000, totalMs: 600_000 };

/** What reading a body ran into: the error and whether another attempt may go better. */
export class BodyError extends SnowdbError {
  constructor(
    key: 'source-unreachable' | 'source-too-large',
    message: string,
    readonly retry: boolean,
    cause?: unknown,
  ) {
    super(key, message, {}, cause === undefined ? undefined : { cause });
  }
}

/** Why a network error happened, from undici's `cause` chain (ECONNREFUSED, ENOTFOUND, …). */
export function causeOf(e: unknown): string {
  let c: unknown = e;
  while (
    typeof c === 'object' &&
    c !== null &&
    'cause' in c &&
    (c as { cause: unknown }).cause !== undefined
  ) {
    c = (c as { cause: unknown }).cause;
  }
  const err = c as { code?: string; message?: string };
  return err.code ?? err.message ?? String(c);
}

const seconds = (ms: number) => `${Math.round(ms / 100) / 10} s`;
const mib = (n: number) => (n >= 2 ** 20 ? `${Math.round((n / 2 ** 20) * 10) / 10} MiB` : `${n} bytes`);

/**
 * A fetch whose headers and body are both bounded: `read` gives the body's bytes, or a
 * `BodyError` naming `who` (e.g. `AWDB`; '' for "the server"), the URL, the bytes that came and the time they took.
 * `stream` hands each chunk on as it arrives instead (kept nowhere; when `each` throws, the
 * request is aborted and that error thrown). The caller looks at the status first, then calls
 * `read`, `stream` or `cancel` (one of them, always).
 */
export async function fetchBounded(
  who: string,
  url: string,
  init: { headers?: Record<string, string> },
  bounds: Bounds,
): Promise<{
  res: Response;
  read: () => Promise<Uint8Array>;
  stream: (each: (chunk: Uint8Array) => void) => Promise<number>;
  cancel: () => Promise<void>;
}> {
  const subject = who === '' ? 'the server' : who;
  const abort = new AbortController();
  const t0 = Date.now();
  let got = 0;
  let why: 'idle' | 'total' | null = null;
  const stall = () => {
    why = 'idle';
    abort.abort();
  };
  // Unref'd: a response dropped without `read` or `cancel` never holds the process.
  let idle = setTimeout(stall, bounds.idleMs).unref();
  const total = setTimeout(() => {
    why = 'total';
    abort.abort();
  }, bounds.totalMs).unref();
  const done = () => {
    clearTimeout(idle);
    clearTimeout(total);
  };
  const timedOut = (e: unknown): BodyError | null =>
    why === null
      ? null
      : new BodyError(
          'source-unreachable',
          why === 'idle'
            ? `${subject} sent ${got} bytes in ${seconds(Date.now() - t0)}, then nothing for ${seconds(bounds.idleMs)}: gave up on ${url}`
            : `${subject} sent ${got} bytes in ${seconds(Date.now() - t0)}, over the ${seconds(bounds.totalMs)} an answer may take: gave up on ${url}`,
          true,
          e,
        );
  let res: Response;
  try {
    res = await fetch(url, { headers: init.headers ?? {}, signal: abort.signal, redirect: 'follow' });
  } catch (e) {
    done();
    const msg =
      who === '' ? `could not fetch ${url}: ${causeOf(e)}` : `${who} unreachable at ${url}: ${causeOf(e)}`;
    throw timedOut(e) ?? new BodyError('source-unreachable', msg, true, e);
  }
  const tooLarge = (n: number, how: string) =>
    new BodyError(
      'source-too-large',
      `${subject} ${how} ${mib(n)} to ${url}; an answer may hold at most ${mib(bounds.maxBytes)}`,
      false,
    );
  /** Every chunk to `each`; resolves to the bytes read. */
  const stream = async (each: (chunk: Uint8Array) => void): Promise<number> => {
    try {
      const announced = Number(res.headers.get('content-length') ?? Number.NaN);
      if (announced > bounds.maxBytes) {
        abort.abort();
        throw tooLarge(announced, 'announced');
      }
      const reader = res.body?.getReader();
      if (reader === undefined) return 0;
      for (;;) {
        let r: Awaited<ReturnType<typeof reader.read>>;
        try {
          r = await reader.read();
        } catch (e) {
          throw (
            timedOut(e) ??
            new BodyError(
              'source-unreachable',
              `the answer of ${subject} to ${url} broke off after ${got} bytes: ${causeOf(e)}`,
              true,
              e,
            )
          );
        }
        if (r.done) break;
        got += r.value.byteLength;
        if (got > bounds.maxBytes) {
          abort.abort();
          throw tooLarge(got, 'sent over');
        }
        clearTimeout(idle);
        idle = setTimeout(stall, bounds.idleMs).unref();
        try {
          each(r.value);
        } catch (e) {
          abort.abort();
          throw e;
        }
      }
      return got;
    } finally {
      done();
    }
  };
  const read = async (): Promise<Uint8Array> => {
    const parts: Uint8Array[] = [];
    const n = await stream((c) => parts.push(c));
    if (parts.length === 1) return parts[0]!;
    const out = new Uint8Array(n);
    let at = 0;
    for (const p of parts) {
      out.set(p, at);
      at += p.byteLength;
    }
    return out;
  };
  const cancel = async () => {
    done();
    await res.body?.cancel().catch(() => {});
  };
  return { res, read, stream, cancel };
}
