import { readdir, readFile, stat } from 'node:fs/promises';
import { basename, join, resolve } from 'node:path';
import { SnowdbError } from '../errors.js';
import { GitHubClient, type GitHubSettings, parseGitHubUrl } from '../io/github.js';
import { httpBytes } from '../io/http.js';

/** One candidate record file of a source. */
export interface SourceFile {
  /** File name (the last path or URL segment). */
  readonly name: string;
  /** Where it comes from, for messages: a path or URL. */
  readonly label: string;
  /** Git blob sha1 when the listing carries it: equal to a stored record's, the download is skipped. */
  readonly gitSha?: string;
  read(): Promise<Uint8Array>;
}

export interface SourceListing {
  /** The source as reported: a directory, a file, a URL or `owner/repo@sha:path`. */
  readonly description: string;
  readonly files: readonly SourceFile[];
}

const isUrl = (s: string) => /^https?:\/\//i.test(s);
const isRecordName = (name: string) => name.toLowerCase().endsWith('.geojson');

function localFile(path: string): SourceFile {
  return { name: basename(path), label: path, read: () => readFile(path) };
}

/** Every `*.geojson` directly in a local folder, or in a GitHub folder (tree) URL. */
export async function listFolderSource(spec: string, github: GitHubSettings): Promise<SourceListing> {
  if (isUrl(spec)) {
    const gh = parseGitHubUrl(spec);
    if (gh === null || gh.kind === 'blob') {
      throw new SnowdbError(
        'usage-error',
        `${spec} is not a GitHub folder URL (https://github.com/<owner>/<repo>/tree/<ref>/<path>); to import one file use 'snowdb pourpoint import'`,
      );
    }
    const client = new GitHubClient(github);
    const listing = await client.listFolder(gh);
    const files = listing.files
      .filter((f) => isRecordName(f.name))
      .map((f) => ({ name: f.name, label: f.rawUrl, gitSha: f.sha, read: () => client.download(f.rawUrl) }));
    return { description: listing.description, files };
  }
  const dir = resolve(spec);
  const st = await stat(dir).catch(() => null);
  if (st === null) throw new SnowdbError('source-not-found', `${spec}: no such directory`);
  if (!st.isDirectory()) {
    throw new SnowdbError(
      'usage-error',
      `${spec} is a file, not a directory; to import one file use 'snowdb pourpoint import'`,
    );
  }
  const names = (await readdir(dir, { withFileTypes: true }))
    .filter((e) => e.isFile() && isRecordName(e.name))
    .map((e) => e.name)
    .sort();
  return { description: dir, files: names.map((n) => localFile(join(dir, n))) };
}

/** One record file: a local path, a raw http(s) URL, or a GitHub `blob` URL (fetched raw). */
export async function singleFileSource(spec: string, github: GitHubSettings): Promise<SourceListing> {
  if (isUrl(spec)) {
    const gh = parseGitHubUrl(spec);
    if (gh !== null && gh.kind !== 'blob') {
      throw new SnowdbError(
        'usage-error',
        `${spec} is a GitHub folder; to mirror a folder use 'snowdb pourpoint sync'`,
      );
    }
    const url = gh === null ? spec : new GitHubClient(github).rawUrlOfBlob(gh);
    const name = decodeURIComponent(new URL(url).pathname.split('/').pop() ?? url);
    return {
      description: spec,
      files: [{ name, label: url, read: () => httpBytes(url, { 'user-agent': 'snowdb' }) }],
    };
  }
  const path = resolve(spec);
  const st = await stat(path).catch(() => null);
  if (st === null) throw new SnowdbError('source-not-found', `${spec}: no such file`);
  if (st.isDirectory()) {
    throw new SnowdbError(
      'usage-error',
      `${spec} is a directory; to mirror a folder use 'snowdb pourpoint sync'`,
    );
  }
  return { description: path, files: [localFile(path)] };
}
