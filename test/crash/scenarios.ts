/**
 * Crash scenarios: a mutating command on a copy of the Zion database, killed with SIGKILL at a
 * chosen moment, then the invariants of issue 21 checked:
 *  1. right after the kill, every date is complete or absent (its link resolves to a folder with
 *     every COG and the manifest) and doctor reports nothing but the interrupted work (debris,
 *     the pourpoint journal, and the op's own domain: stale series dates, AOI rasters, zones);
 *  2. the same command run again exits 0;
 *  3. then the database equals, file for file, what one uninterrupted run makes (dates followed
 *     through their links, manifests without `ingested_at`), and doctor says what it says there.
 * The uninterrupted run is made once per scenario (`reference`), as a process, which also times it.
 */
import assert from 'node:assert/strict';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { finished, snowdb, spawnSnowdb } from '../helpers/cli.js';
import { logicalTree, shiftedRecord, treeDiff } from '../helpers/fs.js';
import { fixturePath } from '../helpers/raster.js';
import { buildZionDb, zionTar, zionZoneSources } from '../helpers/zion-db.js';

/** One command to interrupt. */
export interface Scenario {
  readonly name: string;
  /** CLI arguments, given the folder of the prepared inputs. */
  readonly args: (inputs: string) => string[];
  /** Extra environment of the killed process (e.g. a pause inside the date swap). */
  readonly env?: Readonly<Record<string, string>>;
  /** Doctor checks the interrupted work may fail right after the kill. */
  readonly interrupted: readonly string[];
}

const ZION_RECORD = () => fixturePath('zion/pourpoints/09406000_UT_USGS.geojson');

/** Inputs every scenario reads, written once into `dir`. */
export async function prepareInputs(dir: string): Promise<void> {
  await zionTar(dir, '20240117', (row, col) => 30 + ((row + col) % 17));
  // Another release of 2024-01-15 (other bytes): the ingest replaces the date.
  await mkdir(join(dir, 'again'), { recursive: true });
  await zionTar(join(dir, 'again'), '20240115', (row, col) => 90 + ((row * 3 + col) % 11));
  await writeFile(
    join(dir, 'NEAR_UT_TEST.geojson'),
    await shiftedRecord(ZION_RECORD(), 'NEAR:UT:TEST', 0.02, 0.01),
  );
  // A sync source: the Zion record moved a little (updated) and a new basin beside it.
  await mkdir(join(dir, 'sync'), { recursive: true });
  await writeFile(
    join(dir, 'sync', '09406000_UT_USGS.geojson'),
    await shiftedRecord(ZION_RECORD(), '09406000:UT:USGS', 0.01, 0),
  );
  await writeFile(
    join(dir, 'sync', 'NEAR_UT_TEST.geojson'),
    await shiftedRecord(ZION_RECORD(), 'NEAR:UT:TEST', -0.02, 0.01),
  );
}

export const SCENARIOS: readonly Scenario[] = [
  {
    name: 'ingest a new date',
    args: (i) => ['dataset', 'ingest', 'snodas', join(i, 'SNODAS_20240117.tar')],
    interrupted: ['debris', 'series'],
  },
  {
    name: 'ingest a new release of a date (pauses inside the swap)',
    args: (i) => ['dataset', 'ingest', 'snodas', join(i, 'again', 'SNODAS_20240115.tar')],
    env: { SNOWDB_TEST_SWAP_PAUSE_MS: '300' },
    interrupted: ['debris', 'series'],
  },
  {
    name: 'pourpoint import',
    args: (i) => ['pourpoint', 'import', join(i, 'NEAR_UT_TEST.geojson')],
    interrupted: ['debris', 'index', 'pourpoints', 'series'],
  },
  {
    name: 'pourpoint sync (one updated, one new)',
    args: (i) => ['pourpoint', 'sync', join(i, 'sync')],
    interrupted: ['debris', 'index', 'pourpoints', 'series'],
  },
  {
    name: 'generate-zones --force',
    args: () => ['dataset', 'generate-zones', 'snodas', '--force', ...zionZoneSources()],
    interrupted: ['debris', 'zones'],
  },
  {
    name: 'dataset remove-date of two dates (pauses after each)',
    args: () => ['dataset', 'remove-date', 'snodas', '2024-01-15', '2024-01-16'],
    env: { SNOWDB_TEST_SWAP_PAUSE_MS: '300' },
    interrupted: ['debris', 'series'],
  },
  {
    name: 'dataset create',
    args: () => ['dataset', 'create', 'swann', '--template', 'swann-800m'],
    interrupted: ['debris', 'index', 'files', 'pourpoints'],
  },
];

interface Doctor {
  readonly ok: boolean;
  readonly findings: readonly { check: string; target: string; issue: string; severity: string }[];
}

async function doctor(env: Record<string, string>): Promise<Doctor> {
  const r = await snowdb(['doctor', '--include-inactive', '--format', 'json'], { env });
  return JSON.parse(r.stdout) as Doctor;
}

const failures = (d: Doctor) =>
  d.findings
    .filter((f) => f.severity === 'fail')
    .map((f) => `${f.check} ${f.target}`)
    .sort();

/** What one uninterrupted run makes: the database's logical tree, doctor's failures, the run's time. */
export interface Reference {
  readonly tree: Map<string, string>;
  readonly failures: readonly string[];
  readonly ms: number;
}

/** Run a scenario as a process on a fresh copy, to its end. */
export async function reference(s: Scenario, inputs: string, work: string): Promise<Reference> {
  const dir = await mkdtemp(join(work, 'ref-'));
  const env = await buildZionDb(dir);
  const t0 = performance.now();
  const r = await finished(spawnSnowdb(s.args(inputs), { env: { ...env, ...s.env } }));
  const ms = performance.now() - t0;
  assert.equal(r.code, 0, `${s.name}: ${r.stderr}`);
  const out = { tree: await logicalTree(env.SNOWDB_CONFIG!), failures: failures(await doctor(env)), ms };
  await rm(dir, { recursive: true, force: true });
  return out;
}

/** What happened at one kill point. */
export interface PointResult {
  readonly scenario: string;
  readonly killAtMs: number;
  /** The process ended before the kill. */
  readonly finished: boolean;
  /** Doctor failures right after the kill (all of the interrupted work). */
  readonly afterKill: readonly string[];
}

/** Every date of every dataset complete or absent: its link resolves to every COG and the manifest. */
async function datesWhole(root: string): Promise<void> {
  const tree = await logicalTree(root);
  const dates = new Map<string, Set<string>>();
  for (const path of tree.keys()) {
    const m = /^data\/([^/]+)\/cogs\/(\d{8})\/(.+)$/.exec(path);
    if (m === null) continue;
    const key = `${m[1]}/${m[2]}`;
    dates.set(key, (dates.get(key) ?? new Set()).add(m[3]!));
  }
  for (const [key, files] of dates) {
    assert.ok(files.has('manifest.json'), `${key}: no manifest`);
    const ds = key.split('/')[0]!;
    const want = ds === 'snodas' ? 8 : 2;
    assert.equal(
      [...files].filter((f) => f.endsWith('.tif')).length,
      want,
      `${key}: ${[...files].join(' ')}`,
    );
  }
}

/** One kill point: copy, run, kill at `killAtMs`, check, rerun, compare with the reference. */
export async function killPoint(
  s: Scenario,
  ref: Reference,
  inputs: string,
  work: string,
  killAtMs: number,
): Promise<PointResult> {
  const dir = await mkdtemp(join(work, 'kill-'));
  const env = await buildZionDb(dir);
  const root = env.SNOWDB_CONFIG!;
  const run = await finished(spawnSnowdb(s.args(inputs), { env: { ...env, ...s.env } }), killAtMs);
  if (!run.killed) assert.equal(run.code, 0, `${s.name}: ${run.stderr}`);
  await datesWhole(root);
  const after = failures(await doctor(env));
  const unexplained = after.filter(
    (f) => !s.interrupted.includes(f.split(' ')[0]!) && !ref.failures.includes(f),
  );
  assert.deepEqual(
    unexplained,
    [],
    `${s.name} killed at ${killAtMs} ms: doctor reports more than the interrupted work`,
  );
  const again = await snowdb(s.args(inputs), { env });
  assert.equal(again.code, 0, `${s.name} rerun after a kill at ${killAtMs} ms: ${again.stderr}`);
  assert.deepEqual(failures(await doctor(env)), ref.failures, `${s.name}: doctor after the rerun`);
  const tree = await logicalTree(root);
  assert.deepEqual(
    treeDiff(tree, ref.tree),
    [],
    `${s.name} killed at ${killAtMs} ms: the rerun does not converge`,
  );
  await rm(dir, { recursive: true, force: true });
  return { scenario: s.name, killAtMs, finished: !run.killed, afterKill: after };
}
