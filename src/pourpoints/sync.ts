import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type { Database } from '../db/database.js';
import { recordFileName, SYNC_STAGING_PREFIX, tripletOfFileName } from '../db/layout.js';
import { SnowdbError } from '../errors.js';
import { writeFileAtomic } from '../io/atomic.js';
import { gitBlobSha } from '../io/github.js';
import { byString } from '../util/compare.js';
import { mapPool } from '../util/pool.js';
import {
  applyGroupChanges,
  describeGroupChange,
  type GroupChange,
  groupChanges,
  readGroups,
} from './groups.js';
import {
  areaVsDeclared,
  type CoverageOf,
  type DatasetCoverage,
  entryOf,
  type IndexEntry,
  readIndex,
  writeIndex,
} from './index-file.js';
import { addPending, readPending } from './pending.js';
import { type BasinRecord, parseRecord } from './record.js';
import type { SourceFile, SourceListing } from './sources.js';
import { deleteBasin, readStoredRecord, storedTriplets } from './store.js';
import { isTriplet } from './triplet.js';

/** Outflow points farther than this outside their basin are reported, m. */
export const POINT_OFFSET_WARNING_M = 1000;
/** Polygon areas farther than this from the record's declared area are reported, %. */
export const AREA_WARNING_PERCENT = 5;

export interface SyncOptions {
  /** `import` adds and updates; `sync` also prunes stored pourpoints absent from the source. */
  readonly mode: 'import' | 'sync';
  /** `sync`: which stored basins the source speaks for (default all); only those are pruned. */
  readonly scope?: ((id: string) => boolean) | undefined;
  /** Archive folder for pruned records; a prune without it is refused before any write. */
  readonly pruneTo?: string | undefined;
  /** Plan and report, write nothing. */
  readonly dryRun?: boolean | undefined;
  /** Downloads/reads in flight (default 8). */
  readonly concurrency?: number | undefined;
  readonly onProgress?: ((done: number, total: number) => void) | undefined;
  /** Coverage of a basin against the registered datasets, folded into new index entries. */
  readonly coverage: DatasetCoverage;
}

export interface SyncReport {
  readonly source: string;
  readonly dryRun: boolean;
  /** Triplets new to the database. */
  readonly imported: readonly string[];
  /** Stored triplets whose record changed. */
  readonly updated: readonly string[];
  readonly unchanged: readonly string[];
  /** Point-only records (no basin). */
  readonly skipped: readonly { readonly triplet: string; readonly label: string }[];
  readonly invalid: readonly { readonly label: string; readonly message: string }[];
  readonly pruned: readonly string[];
  readonly prunedTo: string | null;
  readonly warnings: readonly string[];
}

/** What one source file turned out to be. */
type Outcome =
  | { kind: 'invalid'; label: string; message: string; name: string }
  | { kind: 'skipped'; label: string; triplet: string }
  | { kind: 'unchanged'; label: string; triplet: string; entry: IndexEntry }
  | {
      kind: 'new' | 'updated';
      label: string;
      triplet: string;
      entry: IndexEntry;
      staged: string;
      warning?: string;
    };

interface Context {
  readonly db: Database;
  readonly index: ReadonlyMap<string, IndexEntry>;
  readonly coverageOf: CoverageOf;
  readonly datasetKeys: string;
  readonly staging: string;
  /** Triplets the journal names (a killed run's): their index entries may predate their records. */
  readonly journalled: ReadonlySet<string>;
}

/**
 * The index entry can be kept as is: same record bytes, same registered datasets, and not named
 * by the journal (a run killed after writing a record and before the index left its old entry).
 */
function reusable(ctx: Context, triplet: string): IndexEntry | undefined {
  const e = ctx.journalled.has(triplet) ? undefined : ctx.index.get(triplet);
  return e && Object.keys(e.coverage).sort().join('\n') === ctx.datasetKeys ? e : undefined;
}

/** Basin QA at import: an outlet far outside the polygon, a polygon area far from the declared one. */
function qaWarning(rec: BasinRecord, entry: IndexEntry): string | undefined {
  const d = entry.outletOutsideM;
  const pct = areaVsDeclared(entry);
  const parts = [
    d !== null && d > POINT_OFFSET_WARNING_M
      ? `outflow point lies ${(d / 1000).toFixed(1)} km outside its basin polygon`
      : '',
    pct !== null && Math.abs(pct) > AREA_WARNING_PERCENT
      ? `polygon area is ${pct > 0 ? '+' : ''}${pct.toFixed(1)} % against the declared basinarea ${(entry.declaredAreaM2! / 1e6).toFixed(2)} km²`
      : '',
  ].filter(Boolean);
  return parts.length === 0 ? undefined : `${rec.triplet}: ${parts.join('; ')} (imported as is)`;
}

async function classify(ctx: Context, file: SourceFile, seq: number): Promise<Outcome> {
  const label = file.label;
  const named = tripletOfFileName(file.name);
  const storedByName = named === null ? null : await readStoredRecord(ctx.db, named);
  if (
    named !== null &&
    storedByName !== null &&
    file.gitSha !== undefined &&
    gitBlobSha(storedByName) === file.gitSha
  ) {
    const entry =
      reusable(ctx, named) ?? entryOf(parseRecord(storedByName, label) as BasinRecord, ctx.coverageOf);
    return { kind: 'unchanged', label, triplet: named, entry };
  }
  const bytes = await file.read();
  let rec: ReturnType<typeof parseRecord>;
  try {
    rec = parseRecord(bytes, label);
  } catch (e) {
    if (SnowdbError.is(e) && e.key === 'invalid-pourpoint') {
      return { kind: 'invalid', label, message: e.message, name: file.name };
    }
    throw e;
  }
  if (rec.kind === 'point-only') return { kind: 'skipped', label, triplet: rec.triplet };
  const stored = rec.triplet === named ? storedByName : await readStoredRecord(ctx.db, rec.triplet);
  if (stored !== null && Buffer.from(stored).equals(bytes)) {
    return {
      kind: 'unchanged',
      label,
      triplet: rec.triplet,
      entry: reusable(ctx, rec.triplet) ?? entryOf(rec, ctx.coverageOf),
    };
  }
  const staged = join(ctx.staging, `${seq}.geojson`);
  await writeFile(staged, bytes);
  const entry = entryOf(rec, ctx.coverageOf);
  const warning = qaWarning(rec, entry);
  const kind = stored === null ? 'new' : 'updated';
  return {
    kind,
    label,
    triplet: rec.triplet,
    entry,
    staged,
    ...(warning ? { warning } : {}),
  };
}

/** Second and later files naming one triplet are invalid: a source must hold each pourpoint once. */
function dropDuplicates(outcomes: readonly Outcome[]): Outcome[] {
  const seen = new Map<string, string>();
  return outcomes.map((o) => {
    if (o.kind === 'invalid') return o;
    const first = seen.get(o.triplet);
    if (first === undefined) {
      seen.set(o.triplet, o.label);
      return o;
    }
    return {
      kind: 'invalid',
      label: o.label,
      message: `${o.label}: triplet ${o.triplet} is also in ${first}`,
      name: '',
    };
  });
}

/**
 * Import (or, in `sync` mode, mirror) the records of a source. Every file is read and classified
 * before anything is written, so a failed download, a refused prune or a dry run leave the
 * database as it was. Then: the journal (pending.ts) records the new, updated and pruned basins,
 * records are written (each atomically), pruned records archived, the index rewritten once
 * (atomically), and only then pruned records and rasters deleted; at every step each index entry
 * has its record on disk. The caller finishes the journal (AOI rasters) and clears it.
 */
export async function syncPourpoints(
  db: Database,
  listing: SourceListing,
  opts: SyncOptions,
): Promise<SyncReport> {
  const index = await readIndex(db.store, db.paths.pourpointIndex);
  const staging = await mkdtemp(join(tmpdir(), `${SYNC_STAGING_PREFIX}${process.pid}-`));
  try {
    const ctx: Context = {
      db,
      index,
      coverageOf: opts.coverage.of,
      datasetKeys: [...opts.coverage.datasets].sort().join('\n'),
      staging,
      journalled: new Set((await readPending(db)).aoi),
    };
    let done = 0;
    const raw = await mapPool(listing.files, opts.concurrency ?? 8, async (f, i) => {
      const o = await classify(ctx, f, i);
      opts.onProgress?.(++done, listing.files.length);
      return o;
    });
    const outcomes = dropDuplicates(raw);
    const scope = opts.scope ?? ownedBy(outcomes);
    const pruned = opts.mode === 'sync' ? (await prunePlan(db, index, outcomes)).filter(scope) : [];
    const dryRun = opts.dryRun === true;
    if (pruned.length > 0 && opts.pruneTo === undefined && !dryRun) {
      throw new SnowdbError(
        'prune-refused',
        `${pruned.length} stored pourpoint(s) would be removed (${pruned.join(', ')}); pass --prune-to <dir> to archive them first, or --dry-run to preview`,
      );
    }
    const prunedTo = pruned.length > 0 && opts.pruneTo !== undefined ? resolve(opts.pruneTo) : null;
    // A pruned basin leaves the groups that held it (a group left with one member goes).
    const groups = groupChanges(await readGroups(db), pruned);
    if (!dryRun) {
      // Journal first: a kill from here on leaves the AOI work for the next run to finish.
      await addPending(db, {
        aoi: outcomes.flatMap((o) => (o.kind === 'new' || o.kind === 'updated' ? [o.triplet] : [])),
        pruned,
      });
      await applyGroupChanges(db, groups);
      await commit(db, index, outcomes, pruned, prunedTo);
    }
    return report(listing.description, dryRun, outcomes, pruned, prunedTo, groups);
  } finally {
    await rm(staging, { recursive: true, force: true });
  }
}

/**
 * What a folder of records speaks for when its caller names no scope: the BAGIS basins (station
 * triplets) and the sets its own files name, never another set's members (`fcst:…` imported
 * from a basin-set file stays when a BAGIS folder is synced).
 */
function ownedBy(outcomes: readonly Outcome[]): (id: string) => boolean {
  const sets = new Set<string>();
  for (const o of outcomes) {
    const t = o.kind === 'invalid' ? tripletOfFileName(o.name) : o.triplet;
    if (t !== null && !isTriplet(t)) sets.add(t.slice(0, t.indexOf(':')));
  }
  return (id) => isTriplet(id) || sets.has(id.slice(0, id.indexOf(':')));
}

/**
 * Stored triplets the source lacks. A point-only source record still counts as present, and an
 * invalid source file protects the triplet its file name stands for (it may be a damaged copy).
 */
async function prunePlan(db: Database, index: ReadonlyMap<string, IndexEntry>, outcomes: readonly Outcome[]) {
  const present = new Set<string>();
  for (const o of outcomes) {
    const t = o.kind === 'invalid' ? tripletOfFileName(o.name) : o.triplet;
    if (t !== null) present.add(t);
  }
  const stored = await storedTriplets(db);
  for (const t of index.keys()) stored.add(t);
  return [...stored].filter((t) => !present.has(t)).sort(byString);
}

async function commit(
  db: Database,
  index: Map<string, IndexEntry>,
  outcomes: readonly Outcome[],
  pruned: readonly string[],
  prunedTo: string | null,
): Promise<void> {
  let changed = pruned.length > 0;
  for (const o of outcomes) {
    if (o.kind === 'new' || o.kind === 'updated') {
      await writeFileAtomic(db.paths.record(o.triplet), await readFile(o.staged));
    }
    if (o.kind === 'new' || o.kind === 'updated' || o.kind === 'unchanged') {
      if (index.get(o.triplet) !== o.entry) changed = true;
      index.set(o.triplet, o.entry);
    }
  }
  if (prunedTo !== null) {
    await mkdir(prunedTo, { recursive: true });
    for (const t of pruned) {
      const bytes = await readStoredRecord(db, t);
      if (bytes !== null) await writeFileAtomic(join(prunedTo, recordFileName(t)), bytes);
    }
  }
  for (const t of pruned) index.delete(t);
  if (changed) await writeIndex(db.paths.pourpointIndex, index.values());
  for (const t of pruned) await deleteBasin(db, t);
}

function report(
  source: string,
  dryRun: boolean,
  outcomes: readonly Outcome[],
  pruned: readonly string[],
  prunedTo: string | null,
  groups: readonly GroupChange[],
): SyncReport {
  const of = (k: Outcome['kind']) =>
    outcomes.filter((o) => o.kind === k).map((o) => (o as { triplet: string }).triplet);
  return {
    source,
    dryRun,
    imported: of('new'),
    updated: of('updated'),
    unchanged: of('unchanged'),
    skipped: outcomes.flatMap((o) => (o.kind === 'skipped' ? [{ triplet: o.triplet, label: o.label }] : [])),
    invalid: outcomes.flatMap((o) => (o.kind === 'invalid' ? [{ label: o.label, message: o.message }] : [])),
    pruned,
    prunedTo,
    warnings: [
      ...outcomes.flatMap((o) =>
        (o.kind === 'new' || o.kind === 'updated') && o.warning ? [o.warning] : [],
      ),
      ...groups.map((c) => `pruning ${describeGroupChange(c)}`),
    ],
  };
}
