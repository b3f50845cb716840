import { randomBytes } from 'node:crypto';
import { mkdir, readFile, rename, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { z } from 'zod';
import type { Dataset } from '../datasets/registry.js';
import { parseJsonAs } from '../db/json-file.js';
import { MANIFEST } from '../db/layout.js';
import { SnowdbError } from '../errors.js';
import { writeJsonAtomic } from '../io/atomic.js';
import { namesIn } from '../io/fs.js';
import { sha256Files } from '../io/hash.js';
import { withFileLock } from '../io/lock.js';

/** Manifest of one ingested date: written inside the date folder, so it swaps in with the COGs. */
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

/** Whether a date folder holds its manifest and one COG per dataset variable. */
export async function dateComplete(d: Dataset, date: string): Promise<boolean> {
  const names = new Set(await namesIn(d.paths.date(date)));
  return names.has(MANIFEST) && Object.keys(d.config.variables).every((v) => names.has(`${v}.tif`));
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

/** A fresh staging folder beside the date's folder: `cogs/.<date>.<random>.tmp/`. */
export async function stagingDir(d: Dataset, date: string): Promise<string> {
  const p = d.paths.dateStaging(date, randomBytes(6).toString('hex'));
  await mkdir(p, { recursive: true });
  return p;
}

/**
 * Put a complete staging folder in the date's place: the old folder is renamed aside, the new
 * one renamed in, the old one removed. A reader sees the old date or the new one, never a mix
 * (the date is briefly absent between the two renames). Callers hold the date lock.
 */
export async function swapIn(
  d: Dataset,
  date: string,
  staging: string,
  manifest: DateManifest,
): Promise<void> {
  await writeJsonAtomic(join(staging, MANIFEST), manifest);
  const target = d.paths.date(date);
  const old = d.paths.dateAside(date, randomBytes(6).toString('hex'));
  const hadOld = await rename(target, old).then(
    () => true,
    (e: NodeJS.ErrnoException) => {
      if (e.code === 'ENOENT') return false;
      throw e;
    },
  );
  try {
    await rename(staging, target);
  } catch (e) {
    if (hadOld) await rename(old, target);
    throw e;
  }
  if (hadOld) await rm(old, { recursive: true, force: true });
}
