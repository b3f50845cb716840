import { access, readdir, readFile } from 'node:fs/promises';

/** Whether anything exists at `path`. */
export function pathExists(path: string): Promise<boolean> {
  return access(path).then(
    () => true,
    () => false,
  );
}

/** A file's bytes, or null when it does not exist (other errors propagate). */
export async function readFileIfExists(path: string): Promise<Buffer | null> {
  return readFile(path).catch((e: NodeJS.ErrnoException) => {
    if (e.code === 'ENOENT') return null;
    throw e;
  });
}

/** Names in a folder; none when it is absent. */
export const namesIn = (dir: string): Promise<string[]> => readdir(dir).catch(() => [] as string[]);
