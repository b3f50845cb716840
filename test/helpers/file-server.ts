import { readFile } from 'node:fs/promises';
import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One request the server saw. */
export interface SeenFileRequest {
  readonly path: string;
  readonly range: string | undefined;
  readonly status: number;
  readonly authorization: string | undefined;
}

/** A fault the next request to a path meets (each is used once, in order). */
export type Fault =
  /** Answer this status with a short body (503 bursts, 404, 401). */
  | { readonly kind: 'status'; readonly status: number }
  /** Announce the whole length, send `after` bytes, then drop the connection. */
  | { readonly kind: 'reset'; readonly after: number }
  /** No length announced (chunked); end cleanly after `after` bytes: a body cut short. */
  | { readonly kind: 'short'; readonly after: number }
  /** 200 with an HTML error page, as a proxy or a maintenance page answers. */
  | { readonly kind: 'html' }
  /** Wait `ms` before answering (a stalled server). */
  | { readonly kind: 'slow'; readonly ms: number }
  /** Call `arrived`, then answer as usual once `until` settles (a reply the test releases). */
  | { readonly kind: 'held'; readonly arrived: () => void; readonly until: Promise<void> }
  /** The file's byte `at` flipped in what is sent, headers as usual (storage returning bad bytes). */
  | { readonly kind: 'altered'; readonly at: number }
  /** A range reply that names the range asked for but ends after `after` bytes (chunked). */
  | { readonly kind: 'cut'; readonly after: number }
  /** The file's length announced, then one byte every `everyMs` until the client leaves. */
  | { readonly kind: 'drip'; readonly everyMs: number }
  /** No length announced, then zeros without end until the client leaves. */
  | { readonly kind: 'endless' }
  /** `bytes` announced as the length; nothing sent until the client leaves. */
  | { readonly kind: 'announce'; readonly bytes: number };

const HTML_ERROR =
  '<!DOCTYPE html>\n<html><head><title>Service Unavailable</title></head><body><h1>Maintenance</h1></body></html>\n';

/**
 * A loopback static file server with byte ranges (`Range: bytes=a-b` and `bytes=a-`), like a
 * public bucket or a producer's archive: `files` maps URL paths to local files (add to it to
 * publish a new file), a path ending in `/` answers an Apache-style listing of the files under it
 * (404 when there are none), and `fault(path, …)` queues faults for the next requests to a path.
 */
export class FileServer {
  readonly seen: SeenFileRequest[] = [];
  private readonly faults = new Map<string, Fault[]>();
  private server!: Server;

  private constructor(readonly files: Map<string, string>) {}

  static async start(files: ReadonlyMap<string, string>): Promise<FileServer> {
    const s = new FileServer(new Map(files));
    s.server = createServer((req, res) => {
      const path = new URL(req.url ?? '/', 'http://x').pathname;
      void s.answer(path, req.headers.range, req.headers.authorization, res);
    });
    await new Promise<void>((r) => s.server.listen(0, '127.0.0.1', r));
    return s;
  }

  /** Queue faults for the next requests to `path`. */
  fault(path: string, ...faults: Fault[]): void {
    this.faults.set(path, [...(this.faults.get(path) ?? []), ...faults]);
  }

  private async answer(
    path: string,
    range: string | undefined,
    authorization: string | undefined,
    res: ServerResponse,
  ): Promise<void> {
    const status = (n: number) => this.seen.push({ path, range, status: n, authorization });
    const fault = this.faults.get(path)?.shift();
    if (fault?.kind === 'slow') await new Promise((r) => setTimeout(r, fault.ms));
    if (fault?.kind === 'held') {
      fault.arrived();
      await fault.until;
    }
    if (fault?.kind === 'status') {
      status(fault.status);
      res.writeHead(fault.status, { 'content-type': 'text/plain' }).end(`HTTP ${fault.status}\n`);
      return;
    }
    if (fault?.kind === 'html') {
      status(200);
      res.writeHead(200, { 'content-type': 'text/html' }).end(HTML_ERROR);
      return;
    }
    if (path.endsWith('/')) {
      const names = [...this.files.keys()]
        .filter((p) => p.startsWith(path) && !p.slice(path.length).includes('/'))
        .map((p) => p.slice(path.length))
        .sort();
      status(names.length === 0 ? 404 : 200);
      if (names.length === 0) res.writeHead(404).end('not found');
      else
        res
          .writeHead(200, { 'content-type': 'text/html' })
          .end(
            `<html><body><h1>Index of ${path}</h1><pre>\n<a href="../">Parent Directory</a>\n${names.map((n) => `<a href="${encodeURIComponent(n)}">${n}</a>`).join('\n')}\n</pre></body></html>\n`,
          );
      return;
    }
    const file = this.files.get(path);
    if (file === undefined) {
      status(404);
      res.writeHead(404).end('not found');
      return;
    }
    const bytes = await readFile(file);
    if (fault?.kind === 'altered') bytes[fault.at]! ^= 0xff;
    const m = /^bytes=(\d+)-(\d*)$/.exec(range ?? '');
    if (m) {
      const start = Number(m[1]);
      const end = m[2] ? Math.min(Number(m[2]), bytes.length - 1) : bytes.length - 1;
      if (start >= bytes.length) {
        status(416);
        res.writeHead(416, { 'content-range': `bytes */${bytes.length}` }).end();
        return;
      }
      status(206);
      if (fault?.kind === 'cut') {
        res.writeHead(206, { 'content-range': `bytes ${start}-${end}/${bytes.length}` });
        res.end(bytes.subarray(start, Math.min(end + 1, start + fault.after)));
        return;
      }
      res.writeHead(206, {
        'content-range': `bytes ${start}-${end}/${bytes.length}`,
        'content-length': end - start + 1,
      });
      res.end(bytes.subarray(start, end + 1));
      return;
    }
    status(200);
    if (fault?.kind === 'drip' || fault?.kind === 'endless' || fault?.kind === 'announce') {
      const length =
        fault.kind === 'drip' ? bytes.length : fault.kind === 'announce' ? fault.bytes : undefined;
      res.writeHead(200, length === undefined ? {} : { 'content-length': length });
      res.flushHeaders(); // the headers go now, whatever follows
      let at = 0;
      const zeros = Buffer.alloc(1 << 20);
      const send = () => {
        if (res.destroyed) return;
        if (fault.kind === 'drip') {
          if (at < bytes.length) res.write(bytes.subarray(at, ++at));
          setTimeout(send, fault.everyMs);
        } else if (fault.kind === 'endless') {
          if (res.write(zeros)) setImmediate(send);
          else res.once('drain', send);
        }
      };
      send();
      return;
    }
    if (fault?.kind === 'short') {
      res.writeHead(200, { 'accept-ranges': 'bytes' });
      res.end(bytes.subarray(0, fault.after));
      return;
    }
    res.writeHead(200, { 'content-length': bytes.length, 'accept-ranges': 'bytes' });
    if (fault?.kind === 'reset') {
      // Give the client time to take the bytes, then drop the connection.
      res.write(bytes.subarray(0, fault.after), () => setTimeout(() => res.destroy(), 300));
      return;
    }
    res.end(bytes);
  }

  get base(): string {
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  close(): Promise<void> {
    this.server.closeAllConnections();
    return new Promise((r) => this.server.close(() => r()));
  }
}
