import { SnowdbError } from '../errors.js';
import { downloadResumable } from '../io/download.js';
import { closeFtpSessions, ftpDownload, ftpList } from '../io/ftp.js';
import { httpGet } from '../io/http.js';
import type { NetrcEntry } from '../io/netrc.js';

/** Who we are to an archive: its host's ~/.netrc login, and (Earthdata archives) a bearer token. */
export interface Credentials {
  readonly login: NetrcEntry | null;
  /** Sent over HTTP(S) only, and only when there is no login. */
  readonly bearer: string | undefined;
}

/** Bounds of one file's transfer: no byte for `idleMs`, the whole file over `totalMs` or `maxBytes`. */
export interface Limits {
  readonly idleMs: number;
  readonly totalMs: number;
  readonly maxBytes: number;
}

/** How one URL scheme downloads a file (resumably) and lists a folder. */
export interface Transport {
  /** Bytes downloaded now; errors as `httpGet`'s (`source-not-found` for a file it lacks). */
  download(
    url: string,
    target: string,
    c: Credentials,
    limits: Limits,
    onChunk: (n: number) => void,
  ): Promise<number>;
  /** The folder's listing as text (HTML links or one name per line). */
  list(url: string, c: Credentials, idleMs: number): Promise<string>;
  /** Close what it keeps open between files (FTP sessions): the end of a run. */
  release(): void;
}

/** HTTP headers for the credentials: Basic for a login, else Bearer for a token. */
function headersOf(c: Credentials): Record<string, string> {
  if (c.login !== null)
    return {
      authorization: `Basic ${Buffer.from(`${c.login.login}:${c.login.password}`).toString('base64')}`,
    };
  if (c.bearer !== undefined) return { authorization: `Bearer ${c.bearer}` };
  return {};
}

const http: Transport = {
  download: (url, target, c, limits, onChunk) =>
    downloadResumable(url, target, { headers: headersOf(c), ...limits, onChunk }),
  list: async (url, c, idleMs) => (await httpGet(url, headersOf(c), [], AbortSignal.timeout(idleMs))).text(),
  release: () => {}, // fetch's own keep-alive pool closes idle sockets itself
};

const ftp: Transport = {
  download: (url, target, c, limits, onChunk) =>
    ftpDownload(url, target, { login: c.login, ...limits, onChunk }),
  list: (url, c, idleMs) => ftpList(url, c.login, idleMs),
  release: closeFtpSessions,
};

/** The transport of each URL scheme fetch reads: a registry, not a branch per scheme. */
export const TRANSPORTS: Readonly<Record<string, Transport>> = { 'http:': http, 'https:': http, 'ftp:': ftp };

/** A URL's scheme with its colon, lower case (`FTP://h/x` → `ftp:`); '' when it is no URL. */
const schemeOf = (url: string): string => (URL.canParse(url) ? new URL(url).protocol : '');

/** Whether fetch reads URLs of `url`'s scheme. */
export const fetchable = (url: string): boolean => schemeOf(url) in TRANSPORTS;

/**
 * The transport for `url` (the scheme was checked when the archive was chosen).
 * @throws SnowdbError `invalid-config` for a scheme fetch does not read.
 */
export function transportOf(url: string): Transport {
  const t = TRANSPORTS[schemeOf(url)];
  if (t === undefined)
    throw new SnowdbError('invalid-config', `${url}: snowdb fetches over HTTP(S) and FTP only`);
  return t;
}

/** Close what every transport keeps open between files. */
export function releaseTransports(): void {
  for (const t of new Set(Object.values(TRANSPORTS))) t.release();
}
