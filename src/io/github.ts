import { createHash } from 'node:crypto';
import { SnowdbError } from '../errors.js';
import { httpBytes, httpJson } from './http.js';

/** Where GitHub answers: overridable so tests can point at a loopback server that answers alike. */
export interface GitHubSettings {
  /** REST API base, default https://api.github.com (SNOWDB_GITHUB_API_URL). */
  readonly apiUrl: string;
  /** Raw file base, default https://raw.githubusercontent.com (SNOWDB_GITHUB_RAW_URL). */
  readonly rawUrl: string;
  /** Bearer token (GITHUB_TOKEN): 5,000 API calls an hour instead of 60, and private repos. */
  readonly token: string | undefined;
}

/** A github.com URL split into its parts; `rest` is `<ref>/<path…>` (refs may hold slashes). */
export interface GitHubUrl {
  readonly kind: 'repo' | 'tree' | 'blob';
  readonly owner: string;
  readonly repo: string;
  readonly rest: readonly string[];
}

/** Parse `https://github.com/<owner>/<repo>[/(tree|blob)/<ref>[/<path>]]`, or null for other URLs. */
export function parseGitHubUrl(url: string): GitHubUrl | null {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    return null;
  }
  if (u.hostname !== 'github.com' && u.hostname !== 'www.github.com') return null;
  const parts = u.pathname
    .split('/')
    .filter((p) => p !== '')
    .map(decodeURIComponent);
  const [owner, repo, kind, ...rest] = parts;
  if (owner === undefined || repo === undefined) return null;
  const name = repo.replace(/\.git$/, '');
  if (kind === undefined) return { kind: 'repo', owner, repo: name, rest: [] };
  if ((kind === 'tree' || kind === 'blob') && rest.length > 0) return { kind, owner, repo: name, rest };
  return null;
}

/** One file of a listed folder: its path in the repo, git blob sha1 and raw download URL. */
export interface GitHubFile {
  readonly path: string;
  readonly name: string;
  readonly sha: string;
  readonly size: number;
  readonly rawUrl: string;
}

export interface GitHubFolderListing {
  /** `owner/repo@<commit sha>:<path>`: the exact snapshot the files come from. */
  readonly description: string;
  readonly files: readonly GitHubFile[];
}

const enc = (p: string) => p.split('/').map(encodeURIComponent).join('/');

export class GitHubClient {
  constructor(readonly settings: GitHubSettings) {}

  private headers(): Record<string, string> {
    const h: Record<string, string> = {
      accept: 'application/vnd.github+json',
      'x-github-api-version': '2022-11-28',
      'user-agent': 'snowdb',
    };
    if (this.settings.token) h.authorization = `Bearer ${this.settings.token}`;
    return h;
  }

  private api(path: string): Promise<unknown> {
    return httpJson(`${this.settings.apiUrl}${path}`, this.headers());
  }

  /** Resolve `<ref>/<path…>` to a commit sha and a folder path, trying longer refs when one is not found. */
  private async resolve(u: GitHubUrl): Promise<{ sha: string; path: string }> {
    const base = `/repos/${enc(u.owner)}/${enc(u.repo)}`;
    if (u.kind === 'repo') {
      const repo = (await this.api(base)) as { default_branch?: string };
      const ref = repo.default_branch ?? 'main';
      return { sha: await this.commitOf(base, ref), path: '' };
    }
    for (let i = 1; i <= u.rest.length; i++) {
      const ref = u.rest.slice(0, i).join('/');
      try {
        return { sha: await this.commitOf(base, ref), path: u.rest.slice(i).join('/') };
      } catch (e) {
        if (!SnowdbError.is(e) || e.key !== 'source-not-found') throw e;
      }
    }
    throw new SnowdbError(
      'source-not-found',
      `GitHub knows no ref '${u.rest[0]}' in ${u.owner}/${u.repo} (or no such repository); check the URL, and set GITHUB_TOKEN for a private repository`,
    );
  }

  private async commitOf(base: string, ref: string): Promise<string> {
    const c = (await this.api(`${base}/commits/${enc(ref)}`)) as { sha?: unknown };
    if (typeof c.sha !== 'string')
      throw new SnowdbError('source-unreachable', `GitHub gave no commit sha for '${ref}'`);
    return c.sha;
  }

  /** Every file directly inside the folder a repo/tree URL names, pinned to one commit. */
  async listFolder(u: GitHubUrl): Promise<GitHubFolderListing> {
    const { sha, path } = await this.resolve(u);
    const base = `/repos/${enc(u.owner)}/${enc(u.repo)}`;
    const tree = (await this.api(`${base}/git/trees/${sha}?recursive=1`)) as {
      tree?: { path: string; type: string; sha: string; size?: number }[];
      truncated?: boolean;
    };
    if (!Array.isArray(tree.tree))
      throw new SnowdbError('source-unreachable', `GitHub gave no tree for ${sha}`);
    if (tree.truncated) {
      throw new SnowdbError(
        'source-unreachable',
        `GitHub truncated the tree of ${u.owner}/${u.repo}@${sha}; it is too large to list`,
      );
    }
    const prefix = path === '' ? '' : `${path}/`;
    if (prefix !== '' && !tree.tree.some((e) => e.type === 'tree' && e.path === path)) {
      throw new SnowdbError(
        'source-not-found',
        `${u.owner}/${u.repo}@${sha.slice(0, 12)} has no folder '${path}'`,
      );
    }
    const files = tree.tree
      .filter(
        (e) => e.type === 'blob' && e.path.startsWith(prefix) && !e.path.slice(prefix.length).includes('/'),
      )
      .map((e) => ({
        path: e.path,
        name: e.path.slice(prefix.length),
        sha: e.sha,
        size: e.size ?? 0,
        rawUrl: `${this.settings.rawUrl}/${enc(u.owner)}/${enc(u.repo)}/${sha}/${enc(e.path)}`,
      }));
    return { description: `${u.owner}/${u.repo}@${sha.slice(0, 12)}:${path === '' ? '/' : path}`, files };
  }

  /** Download one raw file (token sent as for the API). */
  download(rawUrl: string): Promise<Uint8Array> {
    const h: Record<string, string> = { 'user-agent': 'snowdb' };
    if (this.settings.token) h.authorization = `Bearer ${this.settings.token}`;
    return httpBytes(rawUrl, h);
  }

  /** The raw URL of a `blob` URL's file (`github.com/o/r/blob/<ref>/<path>`), assuming a slash-free ref. */
  rawUrlOfBlob(u: GitHubUrl): string {
    return `${this.settings.rawUrl}/${enc(u.owner)}/${enc(u.repo)}/${u.rest.map(encodeURIComponent).join('/')}`;
  }
}

/** Git's blob id of some bytes: sha1 of `blob <length>\0<bytes>` (what tree listings carry). */
export function gitBlobSha(bytes: Uint8Array): string {
  return createHash('sha1').update(`blob ${bytes.length}\0`).update(bytes).digest('hex');
}
