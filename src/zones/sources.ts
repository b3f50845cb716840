import { createHash } from 'node:crypto';
import { mkdir, rm } from 'node:fs/promises';
import { basename, join } from 'node:path';
import type { Database } from '../db/database.js';
import { SnowdbError } from '../errors.js';
import { extractZipMember, listZip } from '../formats/zip.js';
import { downloadResumable } from '../io/download.js';
import { pathExists } from '../io/fs.js';
import { sha256Files } from '../io/hash.js';
import { HttpSource } from '../io/source.http.js';
import { FileSource, type Source } from '../io/source.js';
import { Cog } from '../raster/cog.reader.js';
import { mosaicPixels, type PixelSource } from '../raster/pixels.js';
import { mapPool } from '../util/pool.js';
import type { Provider } from './layers.js';

/** Public USGS 3DEP 1/3 arc-second tiles (override: SNOWDB_3DEP_URL). */
export const THREEDEP_URL = 'https://prd-tnm.s3.amazonaws.com/StagedProducts/Elevation/13/TIFF/current';
/** Annual NLCD Collection 1 v1 land cover 2024, CONUS (override: SNOWDB_NLCD_URL). */
export const NLCD_URL =
  'https://www.mrlc.gov/downloads/sciweb1/shared/mrlc/data-bundles/Annual_NLCD_LndCov_2024_CU_C1V1.zip';

/** Where the network sources are (settings: SNOWDB_3DEP_URL, SNOWDB_NLCD_URL). */
export interface ZoneSourceUrls {
  /** Folder of the 3DEP tile folders, no trailing slash. */
  readonly threeDep: string;
  /** The land-cover zip. */
  readonly nlcd: string;
}

/** Lon/lat bounds: [west, south, east, north], degrees. */
export type LonLatBounds = readonly [number, number, number, number];

/** A provider's source, opened: its pixels, a content hash for provenance, and how to let it go. */
export interface OpenedSource {
  readonly pixels: PixelSource;
  /** Identifies the source's content: a layer generated from the same hash is current. */
  readonly hash: string;
  readonly description: string;
  close(): Promise<void>;
}

async function openCog(src: Source): Promise<Cog> {
  try {
    return await Cog.open(src);
  } catch (e) {
    await src.close();
    throw e;
  }
}

/**
 * A local raster file (any single-band GeoTIFF in a CRS snowdb knows).
 * @throws SnowdbError `source-not-found` when the file is missing.
 */
export async function openLocalSource(path: string, provider?: Provider): Promise<OpenedSource> {
  if (!(await pathExists(path))) throw new SnowdbError('source-not-found', `${path}: no such file`);
  const cog = await openCog(new FileSource(path));
  if (provider === 'landcover' && cog.dtype !== 'uint8') {
    await cog.close();
    // NLCD (and every land-cover product snowdb reads) stores class codes as 8-bit integers.
    throw new SnowdbError(
      'invalid-source',
      `${path}: not a land-cover raster: land cover holds 8-bit class codes (NLCD), this one holds ${cog.dtype} values (an elevation model is --source terrain)`,
    );
  }
  return {
    pixels: mosaicPixels([cog], path),
    hash: `sha256:${await sha256Files([path])}`,
    description: path,
    close: () => cog.close(),
  };
}

/** 3DEP tile names covering lon/lat bounds: each 1° cell named by its NW corner, e.g. n38w113. */
export function threeDepTiles(b: LonLatBounds): string[] {
  const out: string[] = [];
  for (let lat = Math.floor(b[1]); lat <= Math.floor(b[3]); lat++) {
    for (let lon = Math.floor(b[0]); lon <= Math.floor(b[2]); lon++) {
      if (lon >= 0 || lat < 0) continue; // 3DEP names only north-western tiles
      out.push(`n${String(lat + 1).padStart(2, '0')}w${String(-lon).padStart(3, '0')}`);
    }
  }
  return out;
}

/**
 * The 3DEP 1/3″ tiles over `bounds`, read as remote COGs with range requests (tiles that do not
 * exist, e.g. over the sea, are skipped).
 * @throws SnowdbError `source-not-found` when no tile exists; network errors as `httpGet`.
 */
export async function openThreeDep(bounds: LonLatBounds, base: string): Promise<OpenedSource> {
  const names = threeDepTiles(bounds);
  const opened = await mapPool(names, 4, async (n) => {
    try {
      return await openCog(new HttpSource(`${base}/${n}/USGS_13_${n}.tif`));
    } catch (e) {
      if (SnowdbError.is(e) && e.key === 'source-not-found') return null;
      throw e;
    }
  });
  const cogs = opened.filter((c): c is Cog => c !== null);
  if (cogs.length === 0) {
    throw new SnowdbError(
      'source-not-found',
      `no 3DEP tile at ${base} covers ${bounds.map((v) => v.toFixed(3)).join(',')} (tried ${names.join(', ') || 'none'})`,
    );
  }
  // The tiles' layout (where every tile of every level lies) identifies their content.
  const h = createHash('sha256');
  for (const c of cogs)
    h.update(`${c.source.url}\n${c.levels[0]!.offsets.join(',')}\n${c.levels[0]!.counts.join(',')}\n`);
  return {
    pixels: mosaicPixels(cogs, base),
    hash: `3dep:${h.digest('hex')}`,
    description: `${cogs.length} 3DEP tile(s) from ${base}`,
    close: async () => {
      await Promise.all(cogs.map((c) => c.close()));
    },
  };
}

/**
 * The Annual NLCD land-cover GeoTIFF, from the database cache: downloaded (resumably) and
 * extracted on first use into `.cache/landcover/`; the zip is deleted once extracted.
 */
export async function openNlcd(
  db: Database,
  url: string,
  onProgress: (done: number, total: number) => void = () => {},
): Promise<OpenedSource> {
  const dir = db.paths.cache('landcover');
  const zipName = basename(new URL(url).pathname) || 'landcover.zip';
  const tif = join(dir, zipName.replace(/\.zip$/i, '.tif'));
  if (!(await pathExists(tif))) {
    await mkdir(dir, { recursive: true });
    const zip = join(dir, zipName);
    if (!(await pathExists(zip))) await downloadResumable(url, zip, { onProgress });
    const member = (await listZip(zip)).find((m) => /\.tif{1,2}$/i.test(m.name));
    if (!member) throw new SnowdbError('invalid-source', `${url}: the archive holds no .tif`);
    await extractZipMember(zip, member, tif);
    await rm(zip, { force: true });
  }
  return openLocalSource(tif, 'landcover');
}

/**
 * Open a provider's source: `path` when given, else its network default over `bounds`.
 */
export function openProviderSource(
  db: Database,
  provider: Provider,
  path: string | undefined,
  bounds: LonLatBounds,
  urls: ZoneSourceUrls,
  onProgress?: (done: number, total: number) => void,
): Promise<OpenedSource> {
  if (path !== undefined) return openLocalSource(path, provider);
  return provider === 'terrain' ? openThreeDep(bounds, urls.threeDep) : openNlcd(db, urls.nlcd, onProgress);
}
