import { olderAoiFormat } from '../../datasets/artifacts.js';
import { freshnessOf } from '../../datasets/freshness.js';
import type { Dataset } from '../../datasets/registry.js';
import { tilingLines } from '../../datasets/tiling.js';
import { AREA_RASTER, stemOf } from '../../db/layout.js';
import { areaVsDeclared } from '../../pourpoints/index-file.js';
import { AREA_WARNING_PERCENT, POINT_OFFSET_WARNING_M } from '../../pourpoints/sync.js';
import { type Grid, intersectWindows, parseWindowTag, type Window } from '../../raster/grid.js';
import { ZONES_FORMAT } from '../../zones/plan.js';
import type { DatabaseFacts, DatasetFacts } from './facts.js';

/** The checks `doctor` knows, by name (`--check`). */
export const CHECKS = [
  'grid',
  'dates',
  'files',
  'pourpoints',
  'zones',
  'index',
  'series',
  'debris',
  'freshness',
] as const;

/**
 * The checks `doctor` runs when none is named: all but `freshness`, which only a database kept
 * up to date should pass (a database of past seasons is not broken), so cron asks for it.
 */
export const DEFAULT_CHECKS: readonly (typeof CHECKS)[number][] = CHECKS.filter((c) => c !== 'freshness');

/** One finding: a failure makes `doctor` exit non-zero; info is reported only. */
export interface Finding {
  readonly check: (typeof CHECKS)[number];
  readonly dataset: string;
  readonly target: string;
  readonly issue: string;
  readonly severity: 'fail' | 'info';
}

/** A check of one dataset: pure, over the facts read once. */
type DatasetCheck = (f: DatasetFacts) => Finding[];

const near = (a: number, b: number) => Math.abs(a - b) <= 1e-9 * Math.max(1, Math.abs(a), Math.abs(b));

/** Why a full-grid raster is not on the dataset grid (size and transform), or null when it is. */
function offGrid(d: Dataset, g: Grid): string | null {
  const want = d.grid;
  if (g.width !== want.width || g.height !== want.height)
    return `is ${g.width}x${g.height}, the config declares ${want.width}x${want.height}`;
  const pairs = [
    [g.originX, want.originX],
    [g.originY, want.originY],
    [g.cellWidth, want.cellWidth],
    [g.cellHeight, want.cellHeight],
  ] as const;
  return pairs.every(([a, b]) => near(a, b)) ? null : 'has a geotransform other than the config declares';
}

const finding =
  (d: Dataset, check: Finding['check'], severity: Finding['severity'] = 'fail') =>
  (target: string, issue: string): Finding => ({ check, dataset: d.name, target, issue, severity });

/** Whether window `w` lies wholly inside `at` (a layer clipped to a smaller source fails this too). */
function inside(w: Window, at: Window): boolean {
  const i = intersectWindows(w, at);
  return i !== null && i.width === w.width && i.height === w.height;
}

/** The AOI windows of the covered basins that have a readable AOI raster. */
function aoiWindows(f: DatasetFacts): Window[] {
  return f.basins.map((b) => b.aoi?.window ?? null).filter((w): w is Window => w !== null);
}

const areaRaster: DatasetCheck = (f) => {
  if (f.area === null) return [finding(f.dataset, 'files')(AREA_RASTER, 'missing or unreadable')];
  const bad = offGrid(f.dataset, f.area.grid);
  return bad ? [finding(f.dataset, 'grid')(AREA_RASTER, bad)] : [];
};

const completeDates: DatasetCheck = (f) =>
  f.incomplete.map(({ date, missing }) =>
    finding(f.dataset, 'dates')(date, `incomplete: missing ${missing.join(', ')} (re-ingest it)`),
  );

const firstDateGrid: DatasetCheck = (f) => {
  if (f.firstCog === null) return [];
  const { date, variable, header } = f.firstCog;
  const bad = header === null ? 'unreadable' : offGrid(f.dataset, header.grid);
  return bad ? [finding(f.dataset, 'grid')(`${date} ${variable}.tif`, bad)] : [];
};

const basinRasters: DatasetCheck = (f) => {
  const out: Finding[] = [];
  const fail = finding(f.dataset, 'pourpoints');
  const older: string[] = [];
  for (const b of f.basins) {
    if (b.coverage === 'none')
      out.push(
        finding(
          f.dataset,
          'pourpoints',
          'info',
        )(b.triplet, "outside the dataset's domain (no raster needed)"),
      );
    else if (b.aoi === null)
      out.push(fail(b.triplet, `no AOI raster (run 'snowdb pourpoint rasterize ${b.triplet}')`));
    else if (olderAoiFormat(b.aoi.hash)) older.push(b.triplet);
    else if (b.aoi.hash !== b.wantHash)
      out.push(fail(b.triplet, `stale AOI raster (run 'snowdb pourpoint rasterize ${b.triplet} --rebuild')`));
  }
  if (older.length > 0)
    out.push(
      fail(
        `${older.length} AOI raster(s)`,
        `built by an older coverage that weighted cells outside the basin (${older.slice(0, 3).join(', ')}${older.length > 3 ? ', …' : ''}); run 'snowdb pourpoint rasterize --all' (or 'snowdb dataset create ${f.dataset.name}' again)`,
      ),
    );
  const known = new Set(f.basins.map((b) => `${stemOf(b.triplet)}.tif`));
  for (const file of f.aoiFiles)
    if (!known.has(file)) out.push(fail(file, 'orphan AOI raster: no indexed basin'));
  return out;
};

/** Relative difference allowed between an index entry's Σ weight and its AOI raster's area tag (float64 sums in one order). */
const INDEX_AREA_REL = 1e-12;

/** The coverage index holds every covered basin whose AOI raster is current, with the same weights. */
const coverageIndex: DatasetCheck = (f) => {
  const d = f.dataset;
  const fail = finding(d, 'pourpoints');
  const covered = f.basins.filter((b) => b.coverage !== 'none' && b.aoi?.hash === b.wantHash);
  const rebuild = "run 'snowdb pourpoint rasterize --all' to rebuild it";
  if (f.coverageIndex === null)
    return covered.length === 0
      ? []
      : [fail('coverage.idx', `no coverage index: every query reads each basin's AOI raster (${rebuild})`)];
  if ('error' in f.coverageIndex) return [fail('coverage.idx', f.coverageIndex.error)];
  const missing: string[] = [];
  const stale: string[] = [];
  const differ: string[] = [];
  for (const b of covered) {
    const area = b.aoi?.areaM2 ?? Number.NaN;
    if (b.indexed === null) missing.push(b.triplet);
    else if (b.indexed.aoiHash !== b.wantHash) stale.push(b.triplet);
    else if (!(Math.abs(b.indexed.areaM2 - area) <= INDEX_AREA_REL * area)) differ.push(b.triplet);
  }
  const known = new Set(f.basins.map((b) => b.triplet));
  const orphans = f.coverageIndex.triplets.filter((t) => !known.has(t));
  const some = (ids: string[]) => `${ids.slice(0, 3).join(', ')}${ids.length > 3 ? ', …' : ''}`;
  return [
    ...(missing.length
      ? [fail('coverage.idx', `lacks ${missing.length} basin(s) (${some(missing)}); ${rebuild}`)]
      : []),
    ...(stale.length
      ? [fail('coverage.idx', `holds ${stale.length} stale basin(s) (${some(stale)}); ${rebuild}`)]
      : []),
    ...(differ.length
      ? [
          fail(
            'coverage.idx',
            `weights of ${differ.length} basin(s) differ from their AOI rasters (${some(differ)}); ${rebuild}`,
          ),
        ]
      : []),
    ...(orphans.length
      ? [
          finding(
            d,
            'pourpoints',
            'info',
          )(
            'coverage.idx',
            `holds ${orphans.length} basin(s) no longer indexed (${some(orphans)}); the next import or rasterize drops them`,
          ),
        ]
      : []),
  ];
};

/** Each basin set's overlaps and interior gaps (information: basins are answered as drawn). */
const setTiling: DatasetCheck = (f) =>
  f.tiling.flatMap(({ set, report }) =>
    tilingLines(report).map((line) => finding(f.dataset, 'pourpoints', 'info')(`set ${set}`, line)),
  );

const zoneLayers: DatasetCheck = (f) => {
  const out: Finding[] = [];
  const d = f.dataset;
  const fail = finding(d, 'files');
  const windows = aoiWindows(f);
  for (const { spec, header } of f.zoneLayers) {
    if (header === null) {
      out.push(fail(spec.key, `zone layer missing (run 'snowdb dataset generate-zones ${d.name}')`));
      continue;
    }
    const hash = header.items.SNOWDB_ZONE_HASH ?? '';
    const at = parseWindowTag(header.items.SNOWDB_ZONE_WINDOW ?? null);
    // Asked-for window: layers from a source smaller than the basins are clipped on purpose.
    const asked = parseWindowTag(header.items.SNOWDB_ZONE_REQUESTED ?? null) ?? at;
    const beyond = (a: Window | null) => (a === null ? 0 : windows.filter((w) => !inside(w, a)).length);
    if (!hash.startsWith(`${ZONES_FORMAT}:`))
      out.push(fail(spec.key, `stale zone-layer format (current ${ZONES_FORMAT})`));
    else if (beyond(asked) > 0)
      out.push(
        fail(
          spec.key,
          `does not reach every basin (regenerate with 'snowdb dataset generate-zones ${d.name}')`,
        ),
      );
  }
  return out;
};

/** Below this share of a basin's area classified by a zone layer, doctor says so. */
export const CLASSIFIED_SHARE_WARN = 0.99;

/**
 * Basins zone layers leave partly unclassified (their source is smaller, or has nodata there): one
 * finding per basin, its layers grouped by share ("terrain.aspect, terrain.elevation classify 0.0 %").
 */
const classifiedShare: DatasetCheck = (f) =>
  f.basins.flatMap((b) => {
    const byShare = new Map<string, string[]>(); // share (%, 1 decimal) → layers
    for (const [layer, share] of b.classified)
      if (share < CLASSIFIED_SHARE_WARN) {
        const pct = (100 * share).toFixed(1);
        byShare.set(pct, [...(byShare.get(pct) ?? []), layer]);
      }
    if (byShare.size === 0) return [];
    const clauses = [...byShare].map(
      ([pct, layers]) => `${layers.join(', ')} ${layers.length === 1 ? 'classifies' : 'classify'} ${pct} %`,
    );
    return [
      finding(
        f.dataset,
        'zones',
        'info',
      )(
        b.triplet,
        `${clauses.join('; ')} of the basin's area (below ${100 * CLASSIFIED_SHARE_WARN} %); the rest is the 'unclassified' cell of its stats`,
      ),
    ];
  });

/** Every check of a dataset, in report order. */
/** The derived store: present once the dataset has dates, current, covering every basin. */
const seriesStore: DatasetCheck = (f) => {
  const fail = finding(f.dataset, 'series');
  const fix = `run 'snowdb dataset rebuild-series ${f.dataset.name}'`;
  const s = f.series;
  if (s.blocks === 'absent')
    return f.dates.length > 0
      ? [fail('series/', `no series store (${fix}; stats read the COGs meanwhile)`)]
      : [];
  if (s.blocks === 'damaged') return [fail('series/blocks.bin', `damaged (${fix})`)];
  return [
    ...(s.stale.length > 0
      ? [
          fail(
            'series/stale/',
            `${s.stale.length} date(s) wait for an update: ${s.stale.slice(0, 5).join(', ')} (re-run the ingest or ${fix})`,
          ),
        ]
      : []),
    ...(s.missingBlocks > 0
      ? [
          fail(
            'series/blocks.bin',
            `${s.missingBlocks} block(s) under basins are not stored, or lack some basin pixels (${fix})`,
          ),
        ]
      : []),
    ...s.problems.map((p) => fail(p.target, `${p.issue} (${fix})`)),
    ...(s.unusedPixels > 0
      ? [
          finding(
            f.dataset,
            'series',
            'info',
          )(
            'series/blocks.bin',
            `${s.unusedPixels} of ${s.storedPixels} stored pixel(s) lie under no basin now (removed basins, or whole blocks of a store written before masks); stats are unaffected ('snowdb dataset rebuild-series ${f.dataset.name}' gives their space back)`,
          ),
        ]
      : []),
  ];
};

export const DATASET_CHECKS: readonly DatasetCheck[] = [
  areaRaster,
  completeDates,
  firstDateGrid,
  basinRasters,
  coverageIndex,
  setTiling,
  zoneLayers,
  classifiedShare,
  seriesStore,
];

/** Records without an index entry, index entries without a record, groups naming basins not indexed. */
export function indexChecks(f: DatabaseFacts): Finding[] {
  const indexed = new Set(f.indexed);
  const fail = (target: string, issue: string): Finding => ({
    check: 'index',
    dataset: '',
    target,
    issue,
    severity: 'fail',
  });
  return [
    ...[...f.stored]
      .filter((t) => !indexed.has(t))
      .map((t) => fail(t, "record not in the index (run 'snowdb pourpoint reindex')")),
    ...f.indexed
      .filter((t) => !f.stored.has(t))
      .map((t) => fail(t, "indexed without a record (run 'snowdb pourpoint reindex')")),
    ...('error' in f.groups
      ? [fail('pourpoints/groups.json', String(f.groups.error))]
      : Object.entries(f.groups).flatMap(([g, members]) => {
          const missing = members.filter((m) => !indexed.has(m));
          return missing.length === 0
            ? []
            : [
                fail(
                  `group:${g}`,
                  `its member(s) ${missing.join(', ')} are not in the index (redefine it with 'snowdb group create ${g} … --replace', or remove it)`,
                ),
              ];
        })),
    ...(f.pending.aoi.length + f.pending.pruned.length > 0
      ? [
          fail(
            'pourpoints/.pending.json',
            `an interrupted pourpoint import/sync left ${f.pending.aoi.length} basin(s) without current AOI rasters and ${f.pending.pruned.length} pruned basin(s) to delete (rerun it, or run 'snowdb pourpoint rasterize')`,
          ),
        ]
      : []),
  ];
}

/**
 * Basin QA (info, never a failure: the data are as published): polygon area against the
 * record's declared area, and the outlet's distance outside the polygon.
 */
export function basinQaChecks(f: DatabaseFacts): Finding[] {
  const info = (target: string, issue: string): Finding => ({
    check: 'pourpoints',
    dataset: '',
    target,
    issue,
    severity: 'info',
  });
  return f.entries.flatMap((e) => {
    const out: Finding[] = [];
    const pct = areaVsDeclared(e);
    if (pct !== null && Math.abs(pct) > AREA_WARNING_PERCENT)
      out.push(
        info(
          e.triplet,
          `polygon area ${(e.areaMeters / 1e6).toFixed(2)} km² is ${pct > 0 ? '+' : ''}${pct.toFixed(1)} % against its declared ${(e.declaredAreaM2! / 1e6).toFixed(2)} km² (basinarea)`,
        ),
      );
    if (e.outletOutsideM !== null && e.outletOutsideM > POINT_OFFSET_WARNING_M)
      out.push(
        info(e.triplet, `outlet lies ${(e.outletOutsideM / 1000).toFixed(1)} km outside its basin polygon`),
      );
    return out;
  });
}

/** What interrupted commands left: each path, relative to the database root where inside it. */
export function debrisChecks(f: DatabaseFacts, root: string): Finding[] {
  return f.debris.map((x) => ({
    check: 'debris',
    dataset: '',
    target: x.path.startsWith(`${root}/`) ? x.path.slice(root.length + 1) : x.path,
    issue: `${x.what}, left by an interrupted command (rerun it, or 'snowdb doctor --fix' removes it)`,
    severity: 'fail',
  }));
}

/** A dataset whose newest date is older than its usual lag (`freshnessOf`) on `today`. */
export function freshnessCheck(f: DatasetFacts, today: string): Finding[] {
  const x = freshnessOf(f.dataset.config, f.dates, today);
  if (!x.late) return [];
  const usual = `'${f.dataset.name}' is usually ${x.usual_lag_days} day(s) behind`;
  return [
    finding(f.dataset, 'freshness')(
      x.newest_date ?? '(no date)',
      x.newest_date === null
        ? `no date ingested; ${usual} (run 'snowdb update')`
        : `newest date is ${x.age_days} day(s) old on ${today}; ${usual} (run 'snowdb update', or see whether the producer is late)`,
    ),
  ];
}

/** The one runner: every dataset check over its facts. */
export function checkDataset(f: DatasetFacts): Finding[] {
  return DATASET_CHECKS.flatMap((check) => check(f));
}
