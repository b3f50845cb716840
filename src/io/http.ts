import { SnowdbError } from '../errors.js';

/** Per-request timeout, ms: generous for a 5 MB record over a slow link. */
const TIMEOUT_MS = 120_000;

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

function rateLimitMessage(url: string, res: Response): string {
  const reset = Number(res.headers.get('x-ratelimit-reset'));
  const when = Number.isFinite(reset) && reset > 0 ? ` until ${new Date(reset * 1000).toISOString()}` : '';
  return `${url}: rate limit exceeded (HTTP ${res.status})${when}; set GITHUB_TOKEN to raise the limit, or retry later`;
}

/**
 * GET `url`, resolving only for a 2xx response or a status in `accept` (e.g. 416 to a range).
 * @throws SnowdbError `source-not-found` (404), `source-rate-limited` (429, or 403 with no
 *   remaining quota), `source-unreachable` (network failure, timeout, any other status).
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
  const status = { status: res.status };
  if (res.status === 404) throw new SnowdbError('source-not-found', `${url}: not found (HTTP 404)`, status);
  if (res.status === 429 || (res.status === 403 && res.headers.get('x-ratelimit-remaining') === '0')) {
    throw new SnowdbError('source-rate-limited', rateLimitMessage(url, res), status);
  }
  if (res.status === 401)
    throw new SnowdbError(
      'source-login-required',
      `${url}: the archive asks for a login (HTTP 401); for NASA Earthdata set EARTHDATA_TOKEN or add 'machine urs.earthdata.nasa.gov login <user> password <password>' to ~/.netrc`,
      status,
    );
  throw new SnowdbError('source-unreachable', `${url}: HTTP ${res.status} ${res.statusText}`.trim(), status);
}

/** GET a body as bytes (see `httpGet` for errors). */
export async function httpBytes(url: string, headers: Record<string, string> = {}): Promise<Uint8Array> {
  return bodyBytes(url, await httpGet(url, headers));
}

/**
 * The whole body of a response as bytes.
 * @throws SnowdbError `source-unreachable` when the transfer breaks off.
 */
export async function bodyBytes(url: string, res: Response): Promise<Uint8Array> {
  try {
    return new Uint8Array(await res.arrayBuffer());
  } catch (e) {
    throw new SnowdbError(
      'source-unreachable',
      `${url}: download interrupted: ${causeOf(e)}`,
      {},
      { cause: e },
    );
  }
}

/** GET a JSON body (see `httpGet` for errors; a body that is not JSON is `source-unreachable`). */
export async function httpJson(url: string, headers: Record<string, string> = {}): Promise<unknown> {
  const text = new TextDecoder().decode(await httpBytes(url, headers));
  try {
    return JSON.parse(text);
  } catch {
    throw new SnowdbError('source-unreachable', `${url}: the answer is not JSON`);
  }
}
