import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { link, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';

/** The Python server beside this helper, in the source tree (tests run from dist/). */
const SCRIPT = join(dirname(fileURLToPath(import.meta.url)), '../../../test/helpers/ftp-archive.py');

/** One RETR the server saw: the path, the restart offset (REST), and who was logged in. */
export interface SeenRetr {
  readonly path: string;
  readonly rest: number;
  readonly user: string;
}

/**
 * A fault the next RETR of a path meets: the file ends cleanly (`short`) or fails (`reset`) after
 * `after` bytes, goes on with zeros past its end (`endless`), or comes one byte every 0.2 s (`drip`).
 */
export type FtpFault =
  | { readonly kind: 'short' | 'reset'; readonly after: number }
  | { readonly kind: 'endless' | 'drip' };

/**
 * A real FTP server on 127.0.0.1 (Debian's pyftpdlib) serving `files` (served path → local file,
 * hard-linked into its root) to `anonymous` and to `snow`/`pw`, with faults and a RETR log.
 */
export class FtpArchive {
  private constructor(
    private readonly proc: ChildProcess,
    private readonly root: string,
    private readonly state: string,
    readonly base: string,
  ) {}

  static async start(files: ReadonlyMap<string, string>): Promise<FtpArchive> {
    const work = await mkdtemp(join(tmpdir(), 'snowdb-ftp-'));
    const [root, state] = [join(work, 'root'), join(work, 'state')];
    await mkdir(state, { recursive: true });
    for (const [path, file] of files) {
      await mkdir(dirname(join(root, path)), { recursive: true });
      await link(file, join(root, path));
    }
    const proc = spawn('/usr/bin/python3', [SCRIPT, root, state], { stdio: ['ignore', 'pipe', 'ignore'] });
    const [line] = (await Promise.race([
      once(createInterface({ input: proc.stdout! }), 'line'),
      once(proc, 'exit').then(() => {
        throw new Error('the FTP test archive did not start (is python3-pyftpdlib installed?)');
      }),
    ])) as [string];
    return new FtpArchive(proc, root, state, `ftp://127.0.0.1:${Number(line)}`);
  }

  /** Queue faults for the next RETRs of `path`. */
  async fault(path: string, ...faults: FtpFault[]): Promise<void> {
    const file = join(this.state, 'faults.json');
    const plan = JSON.parse(await readFile(file, 'utf8').catch(() => '{}')) as Record<string, FtpFault[]>;
    plan[path] = [...(plan[path] ?? []), ...faults];
    await writeFile(file, JSON.stringify(plan));
  }

  /** Refuse (true) or allow anonymous logins. */
  async refuseAnonymous(on: boolean): Promise<void> {
    if (on) await writeFile(join(this.state, 'noanon'), '');
    else await rm(join(this.state, 'noanon'), { force: true });
  }

  /** Every RETR so far, in order. */
  seen(): Promise<SeenRetr[]> {
    return this.lines<SeenRetr>('log.jsonl');
  }

  /** The user of every login that succeeded so far, in order. */
  async logins(): Promise<string[]> {
    return (await this.lines<{ user: string }>('logins.jsonl')).map((l) => l.user);
  }

  private async lines<T>(name: string): Promise<T[]> {
    const text = await readFile(join(this.state, name), 'utf8').catch(() => '');
    return text
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l) as T);
  }

  async close(): Promise<void> {
    this.proc.kill();
    await once(this.proc, 'exit').catch(() => {});
    await rm(dirname(this.root), { recursive: true, force: true });
  }
}
