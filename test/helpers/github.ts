import { execFile } from 'node:child_process';
import { readdir, readFile } from 'node:fs/promises';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

/** The commit every ref of the fake resolves to. */
export const FAKE_COMMIT = 'c0ffee0000000000000000000000000000000001';

export interface FakeGitHubOptions {
  owner: string;
  repo: string;
  /** Refs the fake knows (each resolves to FAKE_COMMIT). */
  refs: string[];
  /** Repo path → local file whose bytes it serves. */
  files: Map<string, string>;
}

/** One request the fake saw. */
export interface SeenRequest {
  url: string;
  authorization: string | undefined;
}

/**
 * A loopback HTTP server answering like GitHub's REST API (repos, commits, recursive git trees)
 * and raw.githubusercontent.com, for one repository. Blob shas come from `git hash-object`, an
 * independent implementation. `behaviour` can make it rate-limit or stall a path.
 */
export class FakeGitHub {
  readonly seen: SeenRequest[] = [];
  /** Answer every API call with 403 + x-ratelimit-remaining: 0. */
  rateLimited = false;
  /** Raw paths that never answer (to interrupt a sync mid-download). */
  readonly stall = new Set<string>();
  private readonly shas = new Map<string, string>();
  private server!: Server;
  private constructor(readonly opts: FakeGitHubOptions) {}

  static async start(opts: FakeGitHubOptions): Promise<FakeGitHub> {
    const fake = new FakeGitHub(opts);
    for (const [path, file] of opts.files) {
      fake.shas.set(path, (await run('git', ['hash-object', file])).stdout.trim());
    }
    fake.server = createServer((req, res) => void fake.handle(req, res));
    await new Promise<void>((r) => fake.server.listen(0, '127.0.0.1', r));
    return fake;
  }

  /** Files of a local folder keyed `<prefix>/<name>`. */
  static async folder(dir: string, prefix: string): Promise<Map<string, string>> {
    const names = (await readdir(dir)).sort();
    return new Map(names.map((n) => [`${prefix}/${n}`, join(dir, n)]));
  }

  get base(): string {
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  /** Env pointing snowdb at this fake. */
  env(): Record<string, string> {
    return { SNOWDB_GITHUB_API_URL: `${this.base}/api`, SNOWDB_GITHUB_RAW_URL: `${this.base}/raw` };
  }

  rawRequests(): SeenRequest[] {
    return this.seen.filter((r) => r.url.startsWith('/raw/'));
  }

  close(): Promise<void> {
    this.server.closeAllConnections();
    return new Promise((r) => this.server.close(() => r()));
  }

  private json(
    res: ServerResponse,
    status: number,
    body: unknown,
    headers: Record<string, string> = {},
  ): void {
    res.writeHead(status, { 'content-type': 'application/json', ...headers });
    res.end(JSON.stringify(body));
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = req.url ?? '/';
    this.seen.push({ url, authorization: req.headers.authorization });
    const { owner, repo, refs, files } = this.opts;
    const path = decodeURIComponent(url.split('?')[0]!);
    if (path.startsWith('/api/') && this.rateLimited) {
      this.json(
        res,
        403,
        { message: 'API rate limit exceeded' },
        { 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': '1893456000' },
      );
      return;
    }
    const repoBase = `/api/repos/${owner}/${repo}`;
    if (path === repoBase) return this.json(res, 200, { default_branch: refs[0] });
    if (path.startsWith(`${repoBase}/commits/`)) {
      const ref = path.slice(`${repoBase}/commits/`.length);
      if (refs.includes(ref)) return this.json(res, 200, { sha: FAKE_COMMIT });
      return this.json(res, 404, { message: `No commit found for SHA: ${ref}` });
    }
    if (path === `${repoBase}/git/trees/${FAKE_COMMIT}`) {
      const dirs = new Set<string>();
      for (const p of files.keys()) dirs.add(p.split('/').slice(0, -1).join('/'));
      const tree = [
        ...[...dirs].filter((d) => d !== '').map((d) => ({ path: d, type: 'tree', sha: '0'.repeat(40) })),
        ...[...files.keys()].map((p) => ({ path: p, type: 'blob', sha: this.shas.get(p), size: 1 })),
      ];
      return this.json(res, 200, { sha: FAKE_COMMIT, tree, truncated: false });
    }
    const rawBase = `/raw/${owner}/${repo}/${FAKE_COMMIT}/`;
    if (path.startsWith(rawBase)) {
      const file = files.get(path.slice(rawBase.length));
      if (this.stall.has(path.slice(rawBase.length))) return; // never answers
      if (file !== undefined) {
        res.writeHead(200, { 'content-type': 'text/plain' });
        res.end(await readFile(file));
        return;
      }
    }
    this.json(res, 404, { message: 'Not Found' });
  }
}
