import { rm } from 'node:fs/promises';
import type { Database } from '../db/database.js';
import { datasetDir, datasetPaths, tripletOfFileName } from '../db/layout.js';
import { SnowdbError } from '../errors.js';
import { namesIn, readExistingFile, readFileIfExists } from '../io/fs.js';
import { fileSignature } from '../io/memo.js';
import { simplifyGeometry } from '../raster/simplify.js';
import type { Runtime } from '../util/runtime.js';
import { type IndexEntry, readIndex } from './index-file.js';
import { type BasinRecord, parseRecord } from './record.js';
import { checkTriplet } from './triplet.js';

/** The pourpoint index by triplet (read-only; re-read only when the file changed). */
export function indexOf(db: Database): Promise<ReadonlyMap<string, IndexEntry>> {
  return db.memo(db.paths.pourpointIndex, (f) => readIndex(db.store, f));
}

/** Triplets of every record file in `pourpoints/` (the index and stray files are not records). */
export async function storedTriplets(db: Database): Promise<Set<string>> {
  const names = await namesIn(db.store, db.paths.pourpoints);
  return new Set(names.map(tripletOfFileName).filter((t): t is string => t !== null));
}

/** A stored record's bytes, or null when there is none. */
export async function readStoredRecord(db: Database, triplet: string): Promise<Uint8Array | null> {
  return readFileIfExists(db.store, db.paths.record(triplet));
}

/** Every per-dataset raster of a basin: its AOI raster in each registered dataset. */
export function basinRasterPaths(db: Database, triplet: string): string[] {
  return Object.values(db.config.datasets).map((link) =>
    datasetPaths(datasetDir(db.root, link.path)).aoi(triplet),
  );
}

/** Delete a basin's record and its per-dataset rasters (absent files are fine). */
export async function deleteBasin(db: Database, triplet: string): Promise<void> {
  for (const p of basinRasterPaths(db, triplet)) await rm(p, { force: true });
  await rm(db.paths.record(triplet), { force: true });
}

/**
 * The index entry of a triplet.
 * @throws SnowdbError `invalid-name` for a malformed triplet, `pourpoint-not-found` when not indexed.
 */
export function indexedEntry(index: ReadonlyMap<string, IndexEntry>, triplet: string): IndexEntry {
  const e = index.get(checkTriplet(triplet));
  if (e === undefined) {
    throw new SnowdbError(
      'pourpoint-not-found',
      `no pourpoint ${triplet} in the index (see 'snowdb pourpoint list')`,
    );
  }
  return e;
}

/**
 * A stored basin record, parsed.
 * @throws SnowdbError `invalid-pourpoint` when the stored file is not a basin record.
 */
export async function readStoredBasin(db: Database, triplet: string): Promise<BasinRecord> {
  const file = db.paths.record(triplet);
  const rec = parseRecord(await readExistingFile(db.store, file), file);
  if (rec.kind !== 'basin') {
    throw new SnowdbError('invalid-pourpoint', `${file}: holds no basin; run 'snowdb pourpoint reindex'`);
  }
  return rec;
}

/** Serialized basin records by file and signature: a basin page is then one stat and no parse. */
const serialized = (rt: Runtime) =>
  rt.cache<BasinJson>(
    'basin-records',
    (v) => v.geometry.length + 2 * JSON.stringify(v.record).length, // bytes + the record's UTF-16 JSON
  );

/** A basin record's members without its polygon, and the polygon as JSON text (UTF-8 bytes). */
export interface BasinJson {
  readonly record: Omit<BasinRecord, 'basin'>;
  /** Bytes, not a string: a page splices them in without a large string on the JS heap per request. */
  readonly geometry: Buffer;
}

/**
 * A stored basin record with its polygon as JSON text, cached while the file is unchanged (one
 * stat per call).
 * @throws SnowdbError as `readStoredBasin`.
 */
export function storedBasinJson(db: Database, triplet: string): Promise<BasinJson> {
  const file = db.paths.record(triplet);
  return serialized(db.runtime).get(`${file}\0${fileSignature(db.store, file)}`, async () => {
    const { basin, ...record } = await readStoredBasin(db, triplet);
    return { record, geometry: Buffer.from(JSON.stringify(basin)) };
  });
}

/** Simplified basin outlines as GeoJSON text (UTF-8), by record, geometry hash and tolerance (a map page asks for all). */
const simplified = (rt: Runtime) => rt.cache<Buffer>('basin-outlines', (json) => json.length);

/**
 * A basin's polygon simplified with `tolerance` (degrees, Douglas–Peucker per ring) as GeoJSON
 * geometry text (UTF-8 bytes), cached while its record and geometry hash are unchanged.
 * @throws SnowdbError as `readStoredBasin`.
 */
export function simplifiedBasinJson(db: Database, entry: IndexEntry, tolerance: number): Promise<Buffer> {
  const file = db.paths.record(entry.triplet);
  return simplified(db.runtime).get(`${file}\0${entry.geometryHash}\0${tolerance}`, async () =>
    Buffer.from(
      JSON.stringify(simplifyGeometry((await readStoredBasin(db, entry.triplet)).basin, tolerance)),
    ),
  );
}
