import { mkdir, open, readFile, rm, stat } from 'node:fs/promises';
import { dirname } from 'node:path';

/**
 * Hold an exclusive lock file (O_EXCL, holding the pid) while `fn` runs. A lock whose process is
 * gone is taken over (at once when it names a dead pid, after 2 s when it names none); another
 * live holder (threads of this process included) is waited for up to `waitMs`, then
 * `onTimeout(pid)` is thrown.
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
      await fh.writeFile(String(process.pid));
      await fh.close();
      break;
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
      const pid = Number(await readFile(lock, 'utf8').catch(() => ''));
      const alive = pid > 0 && (pid === process.pid || isAlive(pid));
      // A dead holder's lock is taken over at once; one without a pid yet (being written, or
      // left empty by a kill) only once it is 2 s old.
      if (
        !alive &&
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
