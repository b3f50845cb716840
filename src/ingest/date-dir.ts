import { lstat, mkdir, readFile, readlink, rename, rm, symlink } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { z } from 'zod';
import type { Dataset } from '../datasets/registry.js';
import { parseJsonAs } from '../db/json-file.js';
import { MANIFEST } from '../db/layout.js';
import { SnowdbError } from '../errors.js';
import { tempTag, writeJsonAtomic } from '../io/atomic.js';
import { namesIn } from '../io/fs.js';
import { sha256Files } from '../io/hash.js';
import { withFileLock } from '../io/lock.js';

/** Manifest of one ingested date: written inside the version folder, so it swaps in with the COGs. */
const ManifestSchema = z.object({
  date: z.string(),
  source_hash: z.string(),
  sources: z.array(z.string()),
  fields: z.record(z.string(), z.string()),
  rank: z.number(),
  variables: z.array(z.string()),
  ingested_at: z.string(),
});
export type DateManifest = Readonly<z.infer<typeof ManifestSchema>>;

/** Bump when the COGs written for the same sources change. */
export const INGEST_FORMAT = 'v1';

/** `v1:` + sha256 over the source files' bytes (sorted paths, streamed). */
export async function sourceHash(files: readonly string[]): Promise<string> {
  return `${INGEST_FORMAT}:${await sha256Files([...files].sort())}`;
}

/** A date's manifest; null when it is absent or not a manifest (the date is then re-ingested). */
export async function readManifest(d: Dataset, date: string): Promise<DateManifest | null> {
  const path = d.paths.manifest(date);
  const text = await readFile(path, 'utf8').catch(() => null);
  if (text === null) return null;
  try {
    return parseJsonAs(text, path, ManifestSchema, 'a date manifest');
  } catch (e) {
    if (SnowdbError.is(e)) return null;
    throw e;
  }
}

/** What a date folder lacks of its manifest and one COG per dataset variable (empty: complete). */
export async function dateMissing(d: Dataset, date: string): Promise<string[]> {
  const names = new Set(await namesIn(d.store, d.paths.date(date)));
  return [MANIFEST, ...Object.keys(d.config.variables).map((v) => `${v}.tif`)].filter((n) => !names.has(n));
}

/** Whether a date folder holds its manifest and one COG per dataset variable. */
export async function dateComplete(d: Dataset, date: string): Promise<boolean> {
  return (await dateMissing(d, date)).length === 0;
}

/**
 * Hold an exclusive lock on one date of a dataset while `fn` runs (`cogs/.<date>.lock`, O_EXCL).
 * A lock whose process is gone is taken over; another live holder is waited for (up to 10 min).
 */
export function withDateLock<T>(d: Dataset, date: string, fn: () => Promise<T>): Promise<T> {
  const lock = d.paths.dateLock(date);
  return withFileLock(
    lock,
    fn,
    (pid) => new SnowdbError('date-locked', `date ${date} stays locked by process ${pid} (${lock})`),
  );
}

/** A fresh version folder beside the date's link: `cogs/.<date>.<pid>-<hex>.v/`. */
export async function stagingDir(d: Dataset, date: string): Promise<string> {
  const p = d.paths.dateVersion(date, tempTag());
  await mkdir(p, { recursive: true });
  return p;
}

/**
 * Make a complete version folder the date: write its manifest, point a new symlink at it and
 * rename the link over `cogs/<date>` (one atomic rename: a reader resolves the old version or the
 * new one, never nothing), then remove the version it replaced. A date stored as a plain folder
 * (databases from before versioned dates) is moved aside first, once. Callers hold the date lock;
 * what killed ingests left is swept when an ingest starts (db/debris.ts), not here: no listing
 * of `cogs/` per date.
 */
export async function swapIn(
  d: Dataset,
  date: string,
  version: string,
  manifest: DateManifest,
  pauseMs = 0,
): Promise<void> {
  const pause = () => (pauseMs > 0 ? new Promise((r) => setTimeout(r, pauseMs)) : undefined);
  await writeJsonAtomic(join(version, MANIFEST), manifest);
  await pause();
  const target = d.paths.date(date);
  const link = d.paths.dateLink(date, tempTag());
  await symlink(basename(version), link);
  await pause();
  const before = await lstat(target).catch(() => null);
  let replaced: string | null = null;
  if (before?.isSymbolicLink()) replaced = join(d.paths.datesDir, await readlink(target));
  else if (before?.isDirectory()) {
    replaced = d.paths.dateVersion(date, `${tempTag()}.old`);
    await rename(target, replaced);
  }
  await rename(link, target);
  await pause();
  if (replaced !== null) await rm(replaced, { recursive: true, force: true });
}

/**
 * Take one date out of a dataset, under its lock: the link goes in one unlink (readers see the
 * whole date or none), then the version it pointed to; a plain folder (an old layout) is renamed
 * aside first. A kill in between leaves an unlinked version, swept as debris.
 * @returns whether the date was there.
 */
export async function removeDateDir(d: Dataset, date: string): Promise<boolean> {
  return withDateLock(d, date, async () => {
    const target = d.paths.date(date);
    const st = await lstat(target).catch(() => null);
    if (st === null) return false;
    let version: string;
    if (st.isSymbolicLink()) {
      version = join(d.paths.datesDir, await readlink(target));
      await rm(target);
    } else {
      version = d.paths.dateVersion(date, `${tempTag()}.old`);
      await rename(target, version);
    }
    await rm(version, { recursive: true, force: true });
    return true;
  });
}
