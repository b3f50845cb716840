import { readFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One request the server saw. */
export interface SeenFileRequest {
  readonly path: string;
  readonly range: string | undefined;
  readonly status: number;
}

/**
 * A loopback static file server with byte ranges (`Range: bytes=a-b` and `bytes=a-`), like a
 * public bucket. `cutAfter` makes the next full GET of a path drop the connection after that many
 * body bytes (an interrupted download).
 */
export class FileServer {
  readonly seen: SeenFileRequest[] = [];
  readonly cutAfter = new Map<string, number>();
  private server!: Server;

  private constructor(private readonly files: ReadonlyMap<string, string>) {}

  static async start(files: ReadonlyMap<string, string>): Promise<FileServer> {
    const s = new FileServer(files);
    s.server = createServer((req, res) => {
      const path = new URL(req.url ?? '/', 'http://x').pathname;
      const file = s.files.get(path);
      const range = req.headers.range;
      const answer = (status: number) => s.seen.push({ path, range, status });
      if (file === undefined) {
        answer(404);
        res.writeHead(404).end('not found');
        return;
      }
      void readFile(file).then((bytes) => {
        const m = /^bytes=(\d+)-(\d*)$/.exec(range ?? '');
        if (m) {
          const start = Number(m[1]);
          const end = m[2] ? Math.min(Number(m[2]), bytes.length - 1) : bytes.length - 1;
          if (start >= bytes.length) {
            answer(416);
            res.writeHead(416, { 'content-range': `bytes */${bytes.length}` }).end();
            return;
          }
          answer(206);
          res.writeHead(206, {
            'content-range': `bytes ${start}-${end}/${bytes.length}`,
            'content-length': end - start + 1,
          });
          res.end(bytes.subarray(start, end + 1));
          return;
        }
        answer(200);
        res.writeHead(200, { 'content-length': bytes.length, 'accept-ranges': 'bytes' });
        const cut = s.cutAfter.get(path);
        if (cut !== undefined) {
          s.cutAfter.delete(path);
          // Give the client time to take the bytes, then drop the connection.
          res.write(bytes.subarray(0, cut), () => setTimeout(() => res.destroy(), 300));
          return;
        }
        res.end(bytes);
      });
    });
    await new Promise<void>((r) => s.server.listen(0, '127.0.0.1', r));
    return s;
  }

  get base(): string {
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  close(): Promise<void> {
    this.server.closeAllConnections();
    return new Promise((r) => this.server.close(() => r()));
  }
}
