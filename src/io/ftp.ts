import { createWriteStream } from 'node:fs';
import { rename, rm, stat } from 'node:fs/promises';
import { finished } from 'node:stream/promises';
import { Client, FTPError } from 'basic-ftp';
import { SnowdbError } from '../errors.js';
import { causeOf } from './bounded.js';
import { tooLargeError } from './download.js';

/** A login for an FTP server (a ~/.netrc entry fits); null logs in as `anonymous` (public archives). */
export interface FtpLogin {
  readonly login: string;
  readonly password: string;
}

/** The password an anonymous login sends (by custom, an address; servers do not check it). */
const ANONYMOUS_PASSWORD = 'snowdb@';

/** The path an FTP URL names, decoded (`ftp://host/a%20b/c` → `/a b/c`). */
const pathOf = (u: URL): string => decodeURIComponent(u.pathname);

/**
 * A catalog error for a failed FTP exchange: 550 (no such file or folder) is `source-not-found`,
 * 530 (login refused) `source-login-required`, anything else `source-unreachable` (retryable:
 * FTP gives no status a retry could not mend).
 */
function ftpError(url: string, e: unknown, login: FtpLogin | null, done?: number): SnowdbError {
  // `done` is undefined until logged in: a failure before that could not reach the server.
  if (e instanceof FTPError && e.code === 550)
    return new SnowdbError('source-not-found', `${url}: not found (FTP 550)`, { status: 404 });
  if (e instanceof FTPError && e.code === 530)
    return new SnowdbError(
      'source-login-required',
      login === null
        ? `${url}: the archive refused an anonymous login (FTP 530); add 'machine ${new URL(url).hostname} login <user> password <password>' to ~/.netrc`
        : `${url}: the archive refused the login of ~/.netrc (FTP 530)`,
      { status: 401 },
    );
  const why = e instanceof FTPError ? `FTP ${e.code}: ${e.message}` : causeOf(e);
  const message =
    done === undefined
      ? `could not fetch ${url}: ${why}`
      : `${url}: transfer failed after ${done} bytes (${why})`;
  return new SnowdbError('source-unreachable', message, {}, { cause: e });
}

/** A client logged in to the URL's server, in binary mode; every socket idle > `idleMs` fails. */
async function connect(u: URL, login: FtpLogin | null, idleMs: number): Promise<Client> {
  const client = new Client(idleMs);
  try {
    await client.access({
      host: u.hostname,
      port: u.port === '' ? 21 : Number(u.port),
      user: login?.login ?? 'anonymous',
      password: login?.password ?? ANONYMOUS_PASSWORD,
    });
  } catch (e) {
    client.close(); // a refused login leaves the control connection open
    throw e;
  }
  return client;
}

/**
 * Logged-in clients between transfers, per server and login: a run of many files logs in once per
 * concurrent transfer, not once per file. A parked client's socket is unref'd (it never keeps the
 * process alive); one the server closed meanwhile is dropped when next asked for.
 */
const parked = new Map<string, Client[]>();

/** The pool key of a server, login (password included) and stall timeout. */
const keyOf = (u: URL, login: FtpLogin | null, idleMs: number): string =>
  JSON.stringify([u.hostname, u.port, login?.login ?? 'anonymous', login?.password ?? '', idleMs]);

/** A parked client of the server and login, or a new one. */
async function borrow(u: URL, login: FtpLogin | null, idleMs: number): Promise<Client> {
  const idle = parked.get(keyOf(u, login, idleMs)) ?? [];
  for (let c = idle.pop(); c !== undefined; c = idle.pop()) {
    if (c.closed) continue;
    c.ftp.socket.ref();
    return c;
  }
  return connect(u, login, idleMs);
}

/** Park a client after a transfer that ended well. */
function giveBack(u: URL, login: FtpLogin | null, idleMs: number, c: Client): void {
  if (c.closed) return;
  c.trackProgress();
  c.ftp.socket.unref();
  const key = keyOf(u, login, idleMs);
  parked.set(key, [...(parked.get(key) ?? []), c]);
}

/** After a failure: a 550 (no such file) leaves the session sound, anything else may not. */
function settle(u: URL, login: FtpLogin | null, idleMs: number, c: Client, e: unknown): void {
  if (e instanceof FTPError && e.code === 550) giveBack(u, login, idleMs, c);
  else c.close();
}

/** Log out of every parked session (QUIT): the end of a fetch run. */
export function closeFtpSessions(): void {
  for (const idle of parked.values()) for (const c of idle) c.close();
  parked.clear();
}

/**
 * The names in an FTP folder, one per line (the form `listedNames` reads).
 * @throws SnowdbError as `ftpError` (a folder the server does not have is `source-not-found`).
 */
export async function ftpList(url: string, login: FtpLogin | null, idleMs: number): Promise<string> {
  const u = new URL(url);
  let client: Client | null = null;
  try {
    client = await borrow(u, login, idleMs);
    const entries = await client.list(pathOf(u));
    giveBack(u, login, idleMs, client);
    return entries.map((e) => e.name).join('\n');
  } catch (e) {
    if (client !== null) settle(u, login, idleMs, client, e);
    throw ftpError(url, e, login);
  }
}

export interface FtpDownloadOptions {
  readonly login: FtpLogin | null;
  /** Give up when no byte arrives for this long, ms. */
  readonly idleMs: number;
  /** Give up when the whole file takes longer, ms (the part kept: a rerun resumes). */
  readonly totalMs?: number;
  /** Refuse a file larger than this, bytes, announced (SIZE) or sent (the part removed). */
  readonly maxBytes?: number;
  /** Bytes of each chunk as it arrives. */
  readonly onChunk?: (n: number) => void;
}

/**
 * Download `url` to `target` over FTP, resumably like `downloadResumable`: bytes go to
 * `target.part`; a later call continues from the bytes there (`REST`). The part file becomes
 * `target` only when it holds the size the server gives (`SIZE`). A transfer past `totalMs` or
 * `maxBytes` is cut by closing the session.
 * @returns bytes downloaded by this call.
 * @throws SnowdbError as `ftpError`; `source-unreachable` for a transfer cut short or past
 *   `totalMs` (part kept); `source-too-large` past `maxBytes` (part removed).
 */
export async function ftpDownload(url: string, target: string, o: FtpDownloadOptions): Promise<number> {
  const u = new URL(url);
  const part = `${target}.part`;
  const have = await stat(part).then(
    (s) => s.size,
    () => 0,
  );
  const { totalMs = 30 * 60_000, maxBytes = Number.POSITIVE_INFINITY } = o;
  const tooLarge = (n: number, how: string) => tooLargeError(url, n, how, maxBytes);
  let client: Client | null = null;
  let start = 0;
  let got = 0;
  /** Why this side cut the transfer (the session closed under it), if it did. */
  let cut: SnowdbError | null = null;
  const stop = (why: SnowdbError) => {
    cut ??= why;
    client?.close();
  };
  const overall = setTimeout(
    () =>
      stop(
        new SnowdbError(
          'source-unreachable',
          `${url}: the whole file took over ${Math.round(totalMs / 1000)} s; run the command again to resume`,
        ),
      ),
    totalMs,
  );
  try {
    client = await borrow(u, o.login, o.idleMs).catch((e: unknown) => {
      throw ftpError(url, e, o.login);
    });
    const total = await client.size(pathOf(u));
    if (total > maxBytes) {
      await rm(part, { force: true });
      throw tooLarge(total, 'announces');
    }
    start = have <= total ? have : 0; // a part longer than the file is from another file: start over
    if (start < total || total === 0) {
      let seen = 0;
      client.trackProgress((info) => {
        o.onChunk?.(info.bytes - seen);
        got += info.bytes - seen;
        seen = info.bytes;
        if (start + got > maxBytes) stop(tooLarge(start + got, 'sent over'));
      });
      const out = createWriteStream(part, { flags: start > 0 ? 'a' : 'w' });
      try {
        await client.downloadTo(out, pathOf(u), start);
      } finally {
        await finished(out).catch(() => {});
      }
    }
    const size = (await stat(part).catch(() => ({ size: 0 }))).size;
    if (size !== total)
      throw new SnowdbError(
        'source-unreachable',
        `${url}: download stopped at ${size} of ${total} bytes; run the command again to resume`,
      );
    if (cut !== null) throw cut;
    giveBack(u, o.login, o.idleMs, client);
  } catch (e) {
    if (client !== null) settle(u, o.login, o.idleMs, client, e);
    const why = (cut as SnowdbError | null) ?? e;
    if (SnowdbError.is(why) && why.key === 'source-too-large') await rm(part, { force: true }); // nothing worth resuming
    if (SnowdbError.is(why)) throw why;
    throw ftpError(url, e, o.login, start + got);
  } finally {
    clearTimeout(overall);
  }
  await rename(part, target);
  return got;
}
