import { lstat, readdir, readFile, readlink, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { tagPid } from '../io/atomic.js';
import { namesIn } from '../io/fs.js';
import { holderGone, isAlive, withFileLock } from '../io/lock.js';
import { localStore } from '../io/store.js';
import type { Database } from './database.js';
import { EXPORT_TEMP_PREFIX, Layout, SYNC_STAGING_PREFIX } from './layout.js';

/**
 * What an interrupted command leaves behind, and the rules that tell it from work in progress.
 * Every temporary name snowdb writes carries its writer's pid (`<pid>-<hex>`, io/atomic.ts
 * `tempTag`): a name whose process is gone is debris. Date versions are told apart by their
 * date's lock instead (only the lock holder stages a date).
 */
export interface Debris {
  readonly path: string;
  /** What it is, for a user: `interrupted ingest of 20240115`, `temporary file`, `stale lock`. */
  readonly what: string;
  /** The lock to hold while removing it (date versions), if any. */
  readonly lock?: string;
}

/** Whether the process named in a lock file is gone (an unreadable or empty lock counts as gone). */
async function lockIsStale(lock: string): Promise<boolean> {
  return holderGone(await readFile(lock, 'utf8').catch(() => ''));
}

/** A tagged name's writer is gone; untagged temporary names (older releases) always are. */
const writerGone = (name: string): boolean => {
  const pid = tagPid(name);
  return pid === null || (pid !== process.pid && !isAlive(pid));
};

/** Temporary names: atomic-write temps `.<name>.<tag>.tmp` and zone staging `.staging-<provider>-<tag>`. */
const TEMP = /^\..+\.[0-9a-f-]+\.tmp$|^\.staging-/;
const DATE_ENTRY = /^\.(\d{8})\.(.+)$/;

/**
 * Leftovers of one dates folder (`cogs/`): per date, every `.<day>.*` entry but its lock and the
 * version its link points to, unless a live process holds that date's lock; and locks whose
 * holder is gone.
 */
async function datesDebris(datesDir: string): Promise<Debris[]> {
  const names = await namesIn(localStore, datesDir);
  const byDay = new Map<string, string[]>();
  for (const n of names) {
    const m = DATE_ENTRY.exec(n);
    if (m !== null) byDay.set(m[1]!, [...(byDay.get(m[1]!) ?? []), n]);
  }
  const out: Debris[] = [];
  for (const [day, entries] of byDay) {
    const lockName = `.${day}.lock`;
    const lock = join(datesDir, lockName);
    if (entries.includes(lockName) && !(await lockIsStale(lock))) continue; // an ingest is at work
    const current = await readlink(join(datesDir, day)).catch(() => null);
    for (const n of entries) {
      if (n === current) continue;
      out.push(
        n === lockName
          ? { path: lock, what: `stale lock of ${day}`, lock }
          : { path: join(datesDir, n), what: `interrupted ingest of ${day}`, lock },
      );
    }
  }
  return out;
}

/** Walk a folder for temporary names whose writer is gone and stale `.lock` files (not into `cogs/`). */
async function walk(dir: string, out: Debris[]): Promise<void> {
  const entries = await readdir(dir, { withFileTypes: true }).catch(() => []);
  for (const e of entries) {
    const p = join(dir, e.name);
    if (TEMP.test(e.name)) {
      if (writerGone(e.name))
        out.push({ path: p, what: e.isDirectory() ? 'temporary folder' : 'temporary file' });
    } else if (e.name === 'cogs' && e.isDirectory()) {
      out.push(...(await datesDebris(p)));
    } else if (e.name.endsWith('.lock') && e.isFile()) {
      if (await lockIsStale(p)) out.push({ path: p, what: 'stale lock', lock: p });
    } else if (e.isDirectory() && e.name !== Layout.cache) {
      await walk(p, out);
    }
  }
}

/** What snowdb leaves in the system temp dir, by name: each name's process id comes first after the prefix. */
const TMP_KINDS = [
  { prefix: SYNC_STAGING_PREFIX, what: 'pourpoint sync staging (temp dir)' },
  { prefix: EXPORT_TEMP_PREFIX, what: 'HTTP export (temp dir)' },
  { prefix: `.${EXPORT_TEMP_PREFIX}`, what: 'HTTP export being written (temp dir)' },
] as const;

/** `pourpoint sync` staging folders and HTTP export files in the system temp dir whose process is gone. */
export async function tmpDebris(): Promise<Debris[]> {
  const out: Debris[] = [];
  for (const n of await namesIn(localStore, tmpdir())) {
    const kind = TMP_KINDS.find((k) => n.startsWith(k.prefix));
    if (kind === undefined) continue;
    const pid = Number(/^(\d+)-/.exec(n.slice(kind.prefix.length))?.[1] ?? 0);
    if (pid === process.pid || (pid > 0 && isAlive(pid))) continue;
    out.push({ path: join(tmpdir(), n), what: kind.what });
  }
  return out;
}

/**
 * Everything interrupted work left under `dirs` (a database root and any dataset folders outside
 * it), plus `pourpoint sync` staging and HTTP exports of dead processes in the temp dir; sorted by path, each path once.
 */
export async function findDebris(dirs: readonly string[], opts: { tmp?: boolean } = {}): Promise<Debris[]> {
  const out: Debris[] = [];
  // A folder inside another one given is walked with it.
  for (const d of dirs) if (!dirs.some((o) => d.startsWith(`${o}/`))) await walk(d, out);
  if (opts.tmp !== false) out.push(...(await tmpDebris()));
  const seen = new Set<string>();
  return out
    .filter((x) => !seen.has(x.path) && seen.add(x.path))
    .sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
}

/** Long enough to take over a lock a kill left empty (2 s old), short beside a live holder. */
const LOCK_WAIT_MS = 2500;

/** The lock of an item is held by a live process: the item is skipped. */
class Held extends Error {}

/**
 * Remove debris; date versions and stale locks under their lock, taken by the lock protocol
 * waiting at most LOCK_WAIT_MS (what another live process has meanwhile locked is skipped). @returns the paths removed.
 */
export async function removeDebris(items: readonly Debris[]): Promise<string[]> {
  const removed: string[] = [];
  for (const x of items) {
    if (!(await lstat(x.path).catch(() => null))) continue;
    const drop = async () => {
      // Under the lock, a version is debris only while its date's link points elsewhere.
      const day = /^\.(\d{8})\.lock$/.exec(basename(x.lock ?? ''))?.[1];
      if (
        day !== undefined &&
        (await readlink(join(dirname(x.path), day)).catch(() => null)) === basename(x.path)
      )
        return;
      await rm(x.path, { recursive: true, force: true });
      removed.push(x.path);
    };
    if (x.lock === undefined) await drop();
    else
      await withFileLock(x.lock, drop, () => new Held(), LOCK_WAIT_MS).catch((e: unknown) => {
        if (!(e instanceof Held)) throw e;
      });
  }
  return removed;
}

/** Where debris is looked for: the database root and every dataset folder (registered ones may be outside). */
export const debrisRoots = (
  db: Database,
  datasets: readonly { readonly paths: { readonly dir: string } }[],
): string[] => [db.root, ...datasets.map((d) => d.paths.dir)];

/** Remove what interrupted runs left under `dirs`: called at the start of every mutating command. */
export async function sweepDebris(dirs: readonly string[], opts: { tmp?: boolean } = {}): Promise<string[]> {
  return removeDebris(await findDebris(dirs, opts));
}
