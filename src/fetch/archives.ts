import type { INGESTERS } from '../datasets/config.js';
import { STAGES } from '../ingest/swann.js';
import { isoDate, waterYearOf } from '../util/dates.js';
import { checkHdf5File, checkTarFile } from './checks.js';

/** One upstream file: where it is and the producer's own name for it. */
export interface ArchiveFile {
  readonly url: string;
  readonly name: string;
}

/** One way to get a date: all of `files`, ingested at `rank` (the ingester's precedence). */
export interface Alternative {
  readonly rank: number;
  /** What the alternative is, for messages (`stable`, `5 tiles`). */
  readonly label: string;
  readonly files: readonly ArchiveFile[];
}

/**
 * A producer's public archive: where a date's files are, in the producer's URL layout. `base` is
 * the folder that holds the producer's year / water-year / tile folders (no trailing slash).
 */
export interface Archive {
  /** The producer's public archive (overridden per dataset config `archive.url`, then by env). */
  readonly defaultUrl: string;
  /** Ways to get `date` (`YYYYMMDD`), best first. */
  alternatives(base: string, date: string): Alternative[];
  /** The folder whose directory listing names the date's files, when the producer lists them. */
  listing?(base: string, date: string): string;
  /** Whether the archive sits behind a NASA Earthdata login (EARTHDATA_TOKEN is sent to it). */
  readonly earthdata: boolean;
  /** Refuse a downloaded file that is not a whole file of the format (truncated, an HTML page…). */
  check(path: string, name: string): Promise<void>;
  /** The most bytes one file can hold (every variable of a whole grid, uncompressed, and a margin). */
  readonly maxBytes: number;
}

const MIB = 1024 * 1024;

const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];

/** Water year of a `YYYYMMDD` date. */
const wy = (date: string): number => waterYearOf(isoDate(date));

/** The best rank an archive offers, and whether it offers a choice (SWANN stages) at all. */
export function rankOf(archive: Archive): { readonly best: number; readonly ranked: boolean } {
  const alts = archive.alternatives('', '20000101');
  return { best: Math.max(...alts.map((a) => a.rank)), ranked: alts.length > 1 };
}

/** NSIDC G02158 masked daily tars: `<base>/<YYYY>/<MM>_<Mon>/SNODAS_<YYYYMMDD>.tar`. */
const snodas: Archive = {
  defaultUrl: 'https://noaadata.apps.nsidc.org/NOAA/G02158/masked',
  earthdata: false,
  maxBytes: 512 * MIB, // 8 products of 6935 × 3351 int16 (46 MB) with their headers: 372 MB
  alternatives(base, date) {
    const mm = date.slice(4, 6);
    const name = `SNODAS_${date}.tar`;
    const url = `${base}/${date.slice(0, 4)}/${mm}_${MONTHS[Number(mm) - 1]}/${name}`;
    return [{ rank: 0, label: 'daily tar', files: [{ url, name }] }];
  },
  check: checkTarFile,
};

/** UA SWANN 800 m daily files per water-year folder, stable > provisional > early. */
const swann: Archive = {
  defaultUrl: 'https://climate.arizona.edu/data/UA_SWE/DailyData_800m',
  earthdata: false,
  maxBytes: 128 * MIB, // SWE and depth of 7025 × 3105 int16 (44 MB each) with coordinates: 88 MB
  alternatives(base, date) {
    return [...STAGES].reverse().map((stage) => {
      const name = `UA_SWE_Depth_800m_v1_${date}_${stage}.nc`;
      return {
        rank: STAGES.indexOf(stage) + 1,
        label: stage,
        files: [{ url: `${base}/WY${wy(date)}/${name}`, name }],
      };
    });
  },
  listing: (base, date) => `${base}/WY${wy(date)}/`,
  check: checkHdf5File,
};

/** The MODIS tiles of the western US SPIRES NRT publishes (h10v05 is ocean: never published). */
export const SPIRES_TILES = ['h08v04', 'h08v05', 'h09v04', 'h09v05', 'h10v04'] as const;

/** SPIRES NRT tiles: `<base>/<tile>/<YYYY>/SPIRES_NRT_<tile>_MOD09GA061_<YYYYMMDD>_V1.0.nc`. */
const spires: Archive = {
  defaultUrl: 'ftp://dtn.rc.colorado.edu/shares/snow-today/gridded_data/SPIRES_NRT_V01',
  earthdata: true,
  maxBytes: 160 * MIB, // ten variables of 2400 × 2400 (≤ 11.5 MB each): 115 MB
  alternatives(base, date) {
    const files = SPIRES_TILES.map((tile) => {
      const name = `SPIRES_NRT_${tile}_MOD09GA061_${date}_V1.0.nc`;
      return { url: `${base}/${tile}/${date.slice(0, 4)}/${name}`, name };
    });
    return [{ rank: 0, label: `${files.length} tiles`, files }];
  },
  check: checkHdf5File,
};

/** The archive of each ingester: a registry, not a branch per kind. */
export const ARCHIVES: Readonly<Record<(typeof INGESTERS)[number], Archive>> = { snodas, swann, spires };
