import assert from 'node:assert/strict';
import { type ChildProcessByStdio, spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { runCli } from '../../src/cli/program.js';

/** Absolute path of the compiled CLI entry (dist/test/helpers → dist/src/cli/main.js). */
export const CLI = fileURLToPath(new URL('../../src/cli/main.js', import.meta.url));

export interface CliResult {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

export interface CliOptions {
  env?: Record<string, string>;
  cwd?: string;
}

/** This process's environment without SNOWDB_CONFIG and GITHUB_TOKEN, then `extra`. */
function childEnv(...extra: (Record<string, string> | undefined)[]): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env)) {
    if (v !== undefined && k !== 'SNOWDB_CONFIG' && k !== 'GITHUB_TOKEN') env[k] = v;
  }
  return Object.assign(env, ...extra);
}

/** Start the real `snowdb` CLI; SNOWDB_CONFIG and GITHUB_TOKEN are unset unless `env` sets them. */
export function spawnSnowdb(
  args: readonly string[],
  opts: CliOptions = {},
): ChildProcessByStdio<null, Readable, Readable> {
  return spawn(process.execPath, [CLI, ...args], {
    env: childEnv(opts.env),
    cwd: opts.cwd,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
}

/**
 * Wait for a child to end, collecting its stdout and stderr; with `killAtMs`, SIGKILL it then
 * (`killed`: the kill ended it, rather than its own exit).
 */
export function finished(
  child: ChildProcessByStdio<null, Readable, Readable>,
  killAtMs?: number,
): Promise<CliResult & { killed: boolean }> {
  return new Promise((resolve, reject) => {
    let stdout = '';
    let stderr = '';
    let sent = false;
    const timer = killAtMs === undefined ? null : setTimeout(() => (sent = child.kill('SIGKILL')), killAtMs);
    child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    child.on('error', reject);
    child.on('close', (code, signal) => {
      if (timer) clearTimeout(timer);
      resolve({ code: code ?? -1, stdout, stderr, killed: sent && signal === 'SIGKILL' });
    });
  });
}

/** Captures what a command writes; `isTTY` false, as when piped. */
class Capture {
  text = '';
  readonly isTTY = false;
  write(s: string): boolean {
    this.text += s;
    return true;
  }
}

/**
 * Run a `snowdb` command in this process, through the CLI's own entry (`runCli`) with captured
 * stdout and stderr and an environment of `opts.env` alone (nothing of this process's). This is
 * what a user's command runs, less the process start.
 */
export async function snowdb(args: readonly string[], opts: CliOptions = {}): Promise<CliResult> {
  if (opts.cwd !== undefined) throw new Error('snowdb(): a cwd needs snowdbProcess()');
  const stdout = new Capture();
  const stderr = new Capture();
  const code = await runCli(args, { stdout, stderr }, { ...opts.env });
  return { code, stdout: stdout.text, stderr: stderr.text };
}

/** Run the real `snowdb` CLI as a child process to its end (exit codes and streams of a real process). */
export function snowdbProcess(args: readonly string[], opts: CliOptions = {}): Promise<CliResult> {
  return finished(spawnSnowdb(args, opts));
}

/**
 * Run the real `snowdb` CLI with stdout on a pseudo-terminal (util-linux `script`), as a user at a
 * terminal sees it; `stdout` holds the terminal's output with CRLF turned back into LF.
 */
export async function snowdbOnTty(args: readonly string[], opts: CliOptions = {}): Promise<CliResult> {
  const quote = (a: string) => `'${a.replaceAll("'", "'\\''")}'`;
  const command = [process.execPath, CLI, ...args].map(quote).join(' ');
  const child = spawn('script', ['-qec', command, '/dev/null'], {
    env: childEnv({ TERM: 'xterm', NO_COLOR: '1' }, opts.env),
    cwd: opts.cwd,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const r = await finished(child);
  return { ...r, stdout: r.stdout.replaceAll('\r\n', '\n') };
}

/**
 * Start `snowdb api serve --port 0` and wait for the URL it prints; `stop` ends it. The server
 * is a real child process on 127.0.0.1.
 */
export async function serveApi(
  env: Record<string, string>,
  args: readonly string[] = [],
): Promise<{ base: string; stop: () => Promise<void>; log: () => string; pid: number }> {
  const server = spawnSnowdb(['api', 'serve', '--port', '0', ...args], { env });
  let out = ''; // the server log (JSON lines), drained so the pipe never fills
  server.stdout.setEncoding('utf8');
  server.stdout.on('data', (s: string) => {
    out += s;
  });
  let err = '';
  server.stderr.setEncoding('utf8');
  const listening = /on (http:\/\/\S+) /;
  while (!listening.test(err)) err += (await once(server.stderr, 'data'))[0];
  const stop = async () => {
    server.kill('SIGTERM');
    await once(server, 'close');
  };
  return { base: listening.exec(err)![1]!, stop, log: () => out, pid: server.pid! };
}

/** A fresh temp directory, removed by the returned cleanup. */
export async function tempDir(
  prefix = 'snowdb-test-',
): Promise<{ dir: string; cleanup: () => Promise<void> }> {
  const dir = await mkdtemp(join(tmpdir(), prefix));
  return { dir, cleanup: () => rm(dir, { recursive: true, force: true }) };
}

/**
 * The in-process CLI that fails the test unless a command exits 0 (its stderr in the message);
 * `env` is read at each call, so tests may set it in `before`.
 */
export function cliOk(env: () => Record<string, string>): (...args: string[]) => Promise<CliResult> {
  return async (...args) => {
    const r = await snowdb(args, { env: env() });
    assert.equal(r.code, 0, `${args.join(' ')}: ${r.stderr}`);
    return r;
  };
}
