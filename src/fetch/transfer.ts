import { rm } from 'node:fs/promises';
import { SnowdbError } from '../errors.js';
import { pathExists } from '../io/fs.js';
import { type NetrcEntry, netrcFor } from '../io/netrc.js';
import type { Archive, ArchiveFile } from './archives.js';
import { type Credentials, transportOf } from './transports.js';

/** How downloads behave: retries, backoff, stall timeout, credentials. */
export interface TransferSettings {
  /** Attempts per file after the first (5xx, timeouts, resets, a file that fails its check). */
  readonly retries: number;
  /** First backoff, ms; doubled per attempt, with jitter (0.5-1×). */
  readonly backoffMs: number;
  /** A transfer with no byte for this long is cut and retried, ms. */
  readonly idleMs: number;
  /** A file's download taking longer than this is cut and retried, ms (HTTP). */
  readonly fileMs: number;
  /** NASA Earthdata bearer token, sent only to archives behind Earthdata login. */
  readonly earthdataToken: string | undefined;
  /** ~/.netrc entries: Basic credentials for the host of a URL. */
  readonly netrc: readonly NetrcEntry[];
}

/** What to send to the archive at `url`: its host's netrc login, and the Earthdata token. */
function credentialsFor(url: string, archive: Archive, s: TransferSettings): Credentials {
  return {
    login: netrcFor(s.netrc, new URL(url).hostname),
    bearer: archive.earthdata ? s.earthdataToken : undefined,
  };
}

/** Whether the credentials say who we are (a 401 then means they were refused). */
const sent = (c: Credentials) => c.login !== null || c.bearer !== undefined;

/**
 * Why a host does not resolve or refuses every connection (`ENOTFOUND`, `ECONNREFUSED`, …), or
 * null: asking it again at once will not help.
 */
export const hostDownCause = (e: SnowdbError): string | null =>
  e.key === 'source-unreachable'
    ? (/\b(ENOTFOUND|ECONNREFUSED|EHOSTUNREACH|ENETUNREACH)\b/.exec(e.message)?.[1] ?? null)
    : null;
const hostDown = (e: SnowdbError): boolean => hostDownCause(e) !== null;

/** Whether a failed attempt may succeed on retry: 5xx, 408, 429, resets, stalls, a bad body. */
function retryable(e: SnowdbError): boolean {
  if (e.key === 'invalid-source' || e.key === 'source-rate-limited') return true;
  if (e.key !== 'source-unreachable' || hostDown(e)) return false;
  const status = e.extra.status as number | undefined;
  return status === undefined || status >= 500 || status === 408 || status === 416;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** A 401 message that says whether credentials were sent. */
function loginError(e: SnowdbError, sent: boolean): SnowdbError {
  if (!sent) return e;
  return new SnowdbError(
    'source-login-required',
    e.message.replace(
      /; for NASA Earthdata.*$/,
      '; the credentials sent (EARTHDATA_TOKEN or ~/.netrc) were refused',
    ),
    e.extra,
  );
}

/**
 * Download one archive file to `target` and check it; a complete, valid file already there is
 * kept (a cache). Retries with backoff; a partial download is resumed with a Range request.
 * @returns 'absent' when the archive does not have it (404), else the bytes downloaded now.
 * @throws SnowdbError the last error once the retries are spent; `source-login-required` at once.
 */
export async function fetchFile(
  f: ArchiveFile,
  target: string,
  archive: Archive,
  s: TransferSettings,
  onBytes: (n: number) => void,
): Promise<number | 'absent'> {
  if (await pathExists(target)) {
    try {
      await archive.check(target, f.name);
      return 0;
    } catch {
      await rm(target, { force: true });
    }
  }
  const creds = credentialsFor(f.url, archive, s);
  const transport = transportOf(f.url);
  let last: SnowdbError | null = null;
  for (let attempt = 0; attempt <= s.retries; attempt++) {
    if (attempt > 0) await sleep(s.backoffMs * 2 ** (attempt - 1) * (0.5 + Math.random() / 2));
    try {
      const limits = { idleMs: s.idleMs, totalMs: s.fileMs, maxBytes: archive.maxBytes };
      const n = await transport.download(f.url, target, creds, limits, onBytes);
      await archive.check(target, f.name);
      return n;
    } catch (e) {
      if (!SnowdbError.is(e)) throw e;
      if (e.key === 'source-not-found') {
        await rm(`${target}.part`, { force: true });
        return 'absent';
      }
      if (e.key === 'source-login-required') throw loginError(e, sent(creds));
      if (!retryable(e)) throw e;
      // A body that fails its check, or a range the server refuses, starts over.
      if (e.key === 'invalid-source') await rm(target, { force: true });
      if (e.extra.status === 416) await rm(`${target}.part`, { force: true });
      last = e;
    }
  }
  throw new SnowdbError(
    last!.key,
    `${last!.message} (gave up after ${s.retries + 1} attempts)`.replace(
      /; run the command again to resume \(/,
      ' (',
    ),
    last!.extra,
  );
}

/**
 * The text of a directory listing, or null when it cannot be had (the caller then tries each
 * file). A folder the archive does not have (404) lists nothing.
 */
export async function fetchListing(
  url: string,
  archive: Archive,
  s: TransferSettings,
): Promise<string | null> {
  const creds = credentialsFor(url, archive, s);
  const transport = transportOf(url);
  for (let attempt = 0; attempt <= s.retries; attempt++) {
    if (attempt > 0) await sleep(s.backoffMs * 2 ** (attempt - 1) * (0.5 + Math.random() / 2));
    try {
      return await transport.list(url, creds, s.idleMs);
    } catch (e) {
      if (!SnowdbError.is(e)) throw e;
      if (e.key === 'source-not-found') return '';
      if (e.key === 'source-login-required') throw loginError(e, sent(creds));
      if (hostDown(e)) throw e;
      if (!retryable(e)) return null;
    }
  }
  return null;
}
