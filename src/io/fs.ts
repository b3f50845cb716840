import { access } from 'node:fs/promises';
import { storeOf } from './store.js';

/** Whether anything exists at `path`. */
export function pathExists(path: string): Promise<boolean> {
  return access(path).then(
    () => true,
    () => false,
  );
}

/** A file's bytes (from the store it lies on), or null when it does not exist (other errors propagate). */
export function readFileIfExists(path: string): Promise<Buffer | null> {
  return storeOf(path).read(path);
}

/**
 * A file's bytes (from the store it lies on).
 * @throws Error with code ENOENT naming the file when it is absent.
 */
export async function readExistingFile(path: string): Promise<Buffer> {
  const b = await storeOf(path).read(path);
  if (b === null) throw Object.assign(new Error(`ENOENT: no such file, open '${path}'`), { code: 'ENOENT' });
  return b;
}

/** Names in a folder; none when it is absent. */
export const namesIn = (dir: string): Promise<string[]> => storeOf(dir).list(dir);
