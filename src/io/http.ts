import { SnowdbError } from '../errors.js';
import { type Bounds, causeOf, fetchBounded, JSON_BOUNDS } from './bounded.js';

/** Per-request timeout of `httpGet`, ms: its callers bound the body themselves. */
const TIMEOUT_MS = 120_000;

/** A basin file or record: at most 1 GiB, 60 s idle, 30 min in all. */
export const FILE_BOUNDS: Bounds = { maxBytes: 2 ** 30, idleMs: 60_000, totalMs: 30 * 60_000 };

function rateLimitMessage(url: string, res: Response): string {
  const reset = Number(res.headers.get('x-ratelimit-reset'));
  const when = Number.isFinite(reset) && reset > 0 ? ` until ${new Date(reset * 1000).toISOString()}` : '';
  return `${url}: rate limit exceeded (HTTP ${res.status})${when}; set GITHUB_TOKEN to raise the limit, or retry later`;
}

/** The error a status that is not 2xx stands for. */
export function statusError(url: string, res: Response): SnowdbError {
  const status = { status: res.status };
  if (res.status === 404) return new SnowdbError('source-not-found', `${url}: not found (HTTP 404)`, status);
  if (res.status === 429 || (res.status === 403 && res.headers.get('x-ratelimit-remaining') === '0'))
    return new SnowdbError('source-rate-limited', rateLimitMessage(url, res), status);
  if (res.status === 401)
    return new SnowdbError(
      'source-login-required',
      `${url}: the archive asks for a login (HTTP 401); for NASA Earthdata set EARTHDATA_TOKEN or add 'machine urs.earthdata.nasa.gov login <user> password <password>' to ~/.netrc`,
      status,
    );
  return new SnowdbError('source-unreachable', `${url}: HTTP ${res.status} ${res.statusText}`.trim(), status);
}

/**
 * GET `url`, resolving only for a 2xx response or a status in `accept` (e.g. 416 to a range).
 * The caller reads (and bounds) the body.
 * @throws SnowdbError `source-not-found` (404), `source-rate-limited` (429, or 403 with no
 *   remaining quota), `source-login-required` (401), `source-unreachable` (network failure,
 *   timeout, any other status).
 */
export async function httpGet(
  url: string,
  headers: Record<string, string> = {},
  accept: readonly number[] = [],
  signal: AbortSignal = AbortSignal.timeout(TIMEOUT_MS),
): Promise<Response> {
  let res: Response;
  try {
    res = await fetch(url, { headers, signal, redirect: 'follow' });
  } catch (e) {
    throw new SnowdbError('source-unreachable', `could not fetch ${url}: ${causeOf(e)}`, {}, { cause: e });
  }
  if (res.ok || accept.includes(res.status)) return res;
  await res.body?.cancel();
  throw statusError(url, res);
}

/**
 * GET a body as bytes within `bounds`: the status errors of `httpGet`; `source-too-large` past
 * the size, `source-unreachable` on a stall or a drip (`fetchBounded`).
 */
export async function httpBytes(
  url: string,
  headers: Record<string, string> = {},
  bounds: Bounds = FILE_BOUNDS,
): Promise<Uint8Array> {
  const { res, read, cancel } = await fetchBounded('', url, { headers }, bounds);
  if (!res.ok) {
    await cancel();
    throw statusError(url, res);
  }
  return read();
}

/** GET a JSON body of at most 64 MiB (see `httpBytes`; a body that is not JSON is `source-unreachable`). */
export async function httpJson(url: string, headers: Record<string, string> = {}): Promise<unknown> {
  const text = new TextDecoder().decode(await httpBytes(url, headers, JSON_BOUNDS));
  try {
    return JSON.parse(text);
  } catch {
    throw new SnowdbError('source-unreachable', `${url}: the answer is not JSON`);
  }
}
