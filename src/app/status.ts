import { type Dataset, openDataset, openDatasets } from '../datasets/registry.js';
import type { Database } from '../db/database.js';
import { debrisRoots, sweepDebris } from '../db/debris.js';
import { SnowdbError } from '../errors.js';
import { todayUtc } from '../util/dates.js';
import {
  basinQaChecks,
  CHECKS,
  checkDataset,
  DEFAULT_CHECKS,
  debrisChecks,
  type Finding,
  freshnessCheck,
  indexChecks,
} from './health/checks.js';
import { type DatasetFacts, readFacts } from './health/facts.js';

export type { Finding } from './health/checks.js';

/** One registered dataset as `status` reports it: artifacts, dates and a health summary. */
export interface DatasetStatus {
  readonly name: string;
  readonly active: boolean;
  readonly area_raster: boolean;
  /** AOI rasters present / basins the dataset covers (full or partial). */
  readonly aoi_rasters: number;
  readonly covered_basins: number;
  /** Zone layer files present / layers the dataset enables. */
  readonly zone_layers: number;
  readonly zone_layers_enabled: number;
  readonly dates: number;
  readonly first_date: string | null;
  readonly last_date: string | null;
  /** `ok`, or how many checks failed. */
  readonly health: string;
}

export interface DbStatus {
  /** Absolute database directory. */
  readonly root: string;
  readonly datasets: readonly DatasetStatus[];
  /** Basin-bearing pourpoints in the index. */
  readonly pourpoints: number;
}

function statusOf(f: DatasetFacts, findings: readonly Finding[]): DatasetStatus {
  const failures = findings.filter((x) => x.severity === 'fail').length;
  return {
    name: f.dataset.name,
    active: f.dataset.link.active,
    area_raster: f.area !== null,
    aoi_rasters: f.aoiFiles.size,
    covered_basins: f.basins.filter((b) => b.coverage !== 'none').length,
    zone_layers: f.zoneLayers.filter((l) => l.header !== null).length,
    zone_layers_enabled: f.zoneLayers.length,
    dates: f.dates.length,
    first_date: f.dates[0] ?? null,
    last_date: f.dates.at(-1) ?? null,
    health: failures === 0 ? 'ok' : `${failures} failed`,
  };
}

/**
 * Inventory of a database: each registered dataset (sorted by name) and the indexed pourpoints.
 * Classified shares are not read: they are information, never a failure, so `health` holds without them.
 */
export async function readStatus(db: Database): Promise<DbStatus> {
  const facts = await readFacts(db, undefined, { classified: false, aoiFromIndex: true });
  return {
    root: db.root,
    datasets: facts.datasets.map((f) => statusOf(f, checkDataset(f))),
    pourpoints: facts.indexed.length,
  };
}

export interface DoctorOptions {
  /** Remove debris of interrupted commands first. */
  readonly fix?: boolean;
  /** Only these datasets (active or not), and no database-wide checks. */
  readonly datasets?: readonly string[];
  /** Only these checks (names of `CHECKS`). */
  readonly checks?: readonly string[];
  /** Check inactive datasets too (by default only active ones). */
  readonly includeInactive?: boolean;
}

export interface DoctorReport {
  readonly root: string;
  readonly ok: boolean;
  readonly failures: number;
  readonly findings: readonly Finding[];
  /** Debris `--fix` removed before the checks ran (absolute paths). */
  readonly removed: readonly string[];
}

/**
 * Every health check: grids and files match the configs, every date complete, every covered
 * basin has a current AOI raster, zone layers present and current, index matches the records,
 * no debris of interrupted commands, no pending pourpoint work. A basin outside a dataset's domain
 * is information, not a failure. With `fix`, debris is removed first.
 */
export async function runDoctor(db: Database, opts: DoctorOptions = {}): Promise<DoctorReport> {
  const checks = new Set<string>(opts.checks?.length ? opts.checks : DEFAULT_CHECKS);
  const unknown = [...checks].filter((c) => !(CHECKS as readonly string[]).includes(c));
  if (unknown.length > 0)
    throw new SnowdbError(
      'invalid-name',
      `Unknown check(s): ${unknown.join(', ')}. Known checks: ${CHECKS.join(', ')}.`,
    );
  const named = new Set(opts.datasets ?? []);
  for (const n of named) await openDataset(db, n); // an unknown name is an error, not an empty report
  const pick = (d: Dataset) =>
    named.size > 0 ? named.has(d.name) : d.link.active || opts.includeInactive === true;
  // --fix: what interrupted commands left (nothing a running command holds).
  const removed = opts.fix === true ? await sweepDebris(debrisRoots(db, await openDatasets(db))) : [];
  const facts = await readFacts(db, pick, { classified: checks.has('zones') });
  const findings = [
    // Database-wide checks run unless the run is narrowed to datasets.
    ...(named.size > 0
      ? []
      : [...indexChecks(facts), ...basinQaChecks(facts), ...debrisChecks(facts, db.root)]),
    ...facts.datasets.flatMap(checkDataset),
    ...(checks.has('freshness') ? facts.datasets.flatMap((f) => freshnessCheck(f, todayUtc())) : []),
  ].filter((f) => checks.has(f.check));
  const failures = findings.filter((f) => f.severity === 'fail').length;
  return { root: db.root, ok: failures === 0, failures, findings, removed };
}
