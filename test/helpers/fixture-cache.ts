import { rmSync } from 'node:fs';
import { cp, mkdir, rename, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * Where fixture databases are built once per run: `npm test` sets SNOWDB_TEST_FIXTURES to a
 * fresh folder and removes it at the end; a test file run alone builds into a folder of its own
 * process (removed when it exits).
 */
function cacheRoot(): string {
  const set = process.env.SNOWDB_TEST_FIXTURES;
  if (set !== undefined && set !== '') return set;
  const own = join(tmpdir(), `snowdb-fixtures-${process.pid}`);
  process.env.SNOWDB_TEST_FIXTURES = own;
  process.once('exit', () => rmSync(own, { recursive: true, force: true }));
  return own;
}

const exists = (p: string) =>
  stat(p).then(
    () => true,
    () => false,
  );

/**
 * The folder `name` of the run's fixture cache, built by `build(folder)` the first time any test
 * process of the run asks for it (other processes wait for it), then reused as it is.
 */
export async function cachedFixture(name: string, build: (dir: string) => Promise<void>): Promise<string> {
  const root = cacheRoot();
  const done = join(root, name);
  const lock = join(root, `${name}.lock`);
  await mkdir(root, { recursive: true });
  for (;;) {
    if (await exists(done)) return done;
    const mine = await mkdir(lock).then(
      () => true,
      () => false,
    );
    if (mine) {
      const work = join(root, `${name}.build-${process.pid}`);
      try {
        await rm(work, { recursive: true, force: true });
        await mkdir(work);
        await build(work);
        await rename(work, done);
        return done;
      } finally {
        await rm(lock, { recursive: true, force: true });
      }
    }
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** A private copy of a cached fixture: its files copied into `dest` (created if absent). */
export async function copyFixture(
  name: string,
  build: (dir: string) => Promise<void>,
  dest: string,
): Promise<void> {
  // verbatimSymlinks: a date link stays relative to its cogs/ folder (else it would point at the cache).
  await cp(await cachedFixture(name, build), dest, {
    recursive: true,
    preserveTimestamps: true,
    verbatimSymlinks: true,
  });
}
