import { mkdir, open, readFile, rm, stat } from 'node:fs/promises';
import { hostname } from 'node:os';
import { dirname } from 'node:path';

/** What a lock file holds: `<pid> <host>` (older releases wrote the pid alone). */
const OWNER = `${process.pid} ${hostname()}`;

/** The pid (NaN or 0 when there is none) and host (older locks: none) a lock file's text names. */
function lockHolder(text: string): { pid: number; host: string | undefined } {
  const [pid, host] = text.trim().split(/\s+/, 2);
  return { pid: Number(pid), host };
}

/**
 * Whether the holder named in a lock file's text is gone: a pid of this machine that no longer
 * runs. A holder on another machine (a shared database folder) cannot be checked from here, so
 * it counts as live. Empty or unreadable text counts as gone (callers age it first).
 */
export function holderGone(text: string): boolean {
  const { pid, host } = lockHolder(text);
  if (!(pid > 0)) return true;
  if (host !== undefined && host !== hostname()) return false;
  return pid !== process.pid && !isAlive(pid);
}

/**
 * Hold an exclusive lock file (O_EXCL, holding `<pid> <host>`) while `fn` runs. A lock whose
 * process is gone is taken over (at once when it names a dead pid of this machine, after 2 s when
 * it names none); another live holder (threads of this process, or any process of another
 * machine, included) is waited for up to `waitMs`, then `onTimeout(pid)` is thrown.
 */
export async function withFileLock<T>(
  lock: string,
  fn: () => Promise<T>,
  onTimeout: (pid: number) => Error,
  waitMs = 600_000,
): Promise<T> {
  await mkdir(dirname(lock), { recursive: true });
  const deadline = Date.now() + waitMs;
  for (;;) {
    try {
      const fh = await open(lock, 'wx');
      await fh.writeFile(OWNER);
      await fh.close();
      break;
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
      const text = await readFile(lock, 'utf8').catch(() => '');
      const { pid } = lockHolder(text);
      // A dead holder's lock is taken over at once; one without a pid yet (being written, or
      // left empty by a kill) only once it is 2 s old.
      if (
        holderGone(text) &&
        (pid > 0 ||
          (await stat(lock).then(
            (s) => Date.now() - s.mtimeMs > 2000,
            () => true,
          )))
      ) {
        await rm(lock, { force: true });
        continue;
      }
      if (Date.now() > deadline) throw onTimeout(pid);
      await new Promise((r) => setTimeout(r, 50));
    }
  }
  try {
    return await fn();
  } finally {
    await rm(lock, { force: true });
  }
}

/** Whether a process exists (EPERM: it exists, owned by another user). */
export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}
