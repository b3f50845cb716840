/** Fetch options: what a caller chooses, and the rest from the settings; the archive of a dataset. */
import { readFile } from 'node:fs/promises';
import type { Dataset } from '../datasets/registry.js';
import { SnowdbError } from '../errors.js';
import { ARCHIVES } from '../fetch/archives.js';
import type { FetchOptions } from '../fetch/run.js';
import { fetchable } from '../fetch/transports.js';
import { parseNetrc } from '../io/netrc.js';
import type { Settings } from './settings.js';

/** What a caller of fetch or update chooses (the rest comes from the settings). */
export interface FetchChoices {
  readonly concurrency?: number | undefined;
  readonly dryRun?: boolean | undefined;
  readonly keepDownloads?: boolean | undefined;
  readonly onBytes?: FetchOptions['onBytes'];
  readonly onPlanned?: FetchOptions['onPlanned'];
  readonly onDate?: FetchOptions['onDate'];
  /** A Redis URL: the dates run as jobs on that queue's workers instead of here. */
  readonly queue?: string | undefined;
}

/**
 * The archive folder of a dataset: its config's `archive.url`, else SNOWDB_<KIND>_URL, else the
 * producer's public archive.
 * @throws SnowdbError `invalid-config` for an archive scheme fetch cannot read.
 */
export function archiveBase(d: Dataset, settings: Settings): string {
  const kind = d.config.ingester;
  const base = (d.config.archive?.url ?? settings.archives[kind] ?? ARCHIVES[kind].defaultUrl).replace(
    /\/+$/,
    '',
  );
  if (!fetchable(base))
    throw new SnowdbError(
      'invalid-config',
      `${d.name}: the archive ${base} is not http(s) or ftp; snowdb fetches over HTTP(S) and FTP only: set the dataset config's archive.url or SNOWDB_${kind.toUpperCase()}_URL to a mirror of it`,
    );
  return base;
}

/** The fetch options from the settings and the caller's choices (reads ~/.netrc once). */
export async function fetchOptions(settings: Settings, c: FetchChoices): Promise<FetchOptions> {
  const s = settings.fetch;
  const netrcText = s.netrcPath === undefined ? '' : await readFile(s.netrcPath, 'utf8').catch(() => '');
  const concurrency = c.concurrency ?? 4;
  if (!Number.isInteger(concurrency) || concurrency < 1 || concurrency > 32)
    throw new SnowdbError('usage-error', `--concurrency ${concurrency}: expected an integer 1-32`);
  return {
    retries: s.retries,
    backoffMs: s.backoffMs,
    idleMs: s.idleMs,
    fileMs: s.fileMs,
    earthdataToken: s.earthdataToken,
    netrc: parseNetrc(netrcText),
    concurrency,
    dryRun: c.dryRun === true,
    keepDownloads: c.keepDownloads === true,
    swapPauseMs: settings.swapPauseMs,
    onBytes: c.onBytes,
    onPlanned: c.onPlanned,
    onDate: c.onDate,
  };
}
