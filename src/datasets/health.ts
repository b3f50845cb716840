import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import type { Database } from '../db/database.js';
import { AOI_DIR, DATES_DIR } from '../db/layout.js';
import { dateComplete } from '../ingest/date-dir.js';
import { storedTriplets } from '../pourpoints/store.js';
import { stemOf } from '../pourpoints/triplet.js';
import { type Grid, intersectWindows, type Window } from '../raster/grid.js';
import { mapPool } from '../util/pool.js';
import { enabledLayers, layerPath } from '../zones/layers.js';
import { ZONES_FORMAT } from '../zones/plan.js';
import { AREA_RASTER, aoiHash, aoiPath, parseWindowTag, readHeader } from './artifacts.js';
import { ingestedDates } from './inventory.js';
import { type Dataset, openDatasets } from './registry.js';

/** One finding: a failure makes `doctor` exit non-zero; info is reported only. */
export interface Finding {
  readonly check: 'grid' | 'dates' | 'files' | 'pourpoints' | 'index';
  readonly dataset: string;
  readonly target: string;
  readonly issue: string;
  readonly severity: 'fail' | 'info';
}

/** One dataset as `status` reports it. */
export interface DatasetHealth {
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
  readonly findings: readonly Finding[];
}

const near = (a: number, b: number) => Math.abs(a - b) <= 1e-9 * Math.max(1, Math.abs(a), Math.abs(b));

/** Whether a full-grid raster lies on the dataset grid (size and transform). */
function onGrid(d: Dataset, g: Grid): string | null {
  const want = d.grid;
  if (g.width !== want.width || g.height !== want.height)
    return `is ${g.width}x${g.height}, the config declares ${want.width}x${want.height}`;
  if (
    ![
      [g.originX, want.originX],
      [g.originY, want.originY],
      [g.cellWidth, want.cellWidth],
      [g.cellHeight, want.cellHeight],
    ].every(([a, b]) => near(a!, b!))
  )
    return 'has a geotransform other than the config declares';
  return null;
}

/** Every check of one dataset against the database's index and records. */
async function checkDataset(db: Database, d: Dataset): Promise<DatasetHealth> {
  const out: Finding[] = [];
  const fail = (check: Finding['check'], target: string, issue: string) =>
    out.push({ check, dataset: d.name, target, issue, severity: 'fail' });
  const area = await readHeader(join(d.dir, AREA_RASTER));
  if (area === null) fail('files', AREA_RASTER, 'missing or unreadable');
  else {
    const bad = onGrid(d, area.grid);
    if (bad) fail('grid', AREA_RASTER, bad);
  }
  const dates = await ingestedDates(d);
  const incomplete = await mapPool(dates, 16, async (date) =>
    (await dateComplete(d, date.replaceAll('-', ''))) ? null : date,
  );
  for (const date of incomplete)
    if (date) fail('dates', date, `incomplete: a variable COG or the manifest is missing (re-ingest it)`);
  const first = dates[0];
  if (first !== undefined) {
    const v = Object.keys(d.config.variables).sort()[0]!;
    const m = await readHeader(join(d.dir, DATES_DIR, first.replaceAll('-', ''), `${v}.tif`));
    const bad = m === null ? 'unreadable' : onGrid(d, m.grid);
    if (bad) fail('grid', `${first} ${v}.tif`, bad);
  }

  const index = await db.index();
  let covered = 0;
  const rasters = new Set(
    (await readdir(join(d.dir, AOI_DIR)).catch(() => [] as string[])).filter((f) => f.endsWith('.tif')),
  );
  const known = new Set<string>();
  const windows: Window[] = []; // AOI windows of the covered basins, from the headers read below
  for (const e of index.values()) {
    known.add(`${stemOf(e.triplet)}.tif`);
    const c = e.coverage[d.name] ?? 'none';
    if (c === 'none') {
      out.push({
        check: 'pourpoints',
        dataset: d.name,
        target: e.triplet,
        issue: "outside the dataset's domain (no raster needed)",
        severity: 'info',
      });
      continue;
    }
    covered++;
    const m = rasters.has(`${stemOf(e.triplet)}.tif`) ? await readHeader(aoiPath(d, e.triplet)) : null;
    const w = parseWindowTag(m?.items.SNOWDB_AOI_WINDOW ?? null);
    if (w !== null) windows.push(w);
    if (m === null)
      fail('pourpoints', e.triplet, `no AOI raster (run 'snowdb pourpoint rasterize ${e.triplet}')`);
    else if (m.items.SNOWDB_AOI_HASH !== aoiHash(d, e.geometryHash))
      fail(
        'pourpoints',
        e.triplet,
        `stale AOI raster (run 'snowdb pourpoint rasterize ${e.triplet} --rebuild')`,
      );
  }
  for (const f of rasters) if (!known.has(f)) fail('pourpoints', f, 'orphan AOI raster: no indexed basin');

  const enabled = enabledLayers(d);
  let present = 0;
  for (const { spec } of enabled) {
    const m = await readHeader(layerPath(d, spec));
    if (m === null) {
      fail('files', spec.key, `zone layer missing (run 'snowdb dataset generate-zones ${d.name}')`);
      continue;
    }
    present++;
    const hash = m.items.SNOWDB_ZONE_HASH ?? '';
    const at = parseWindowTag(m.items.SNOWDB_ZONE_WINDOW ?? null);
    // Asked-for window: layers from a source smaller than the basins are clipped on purpose.
    const asked = parseWindowTag(m.items.SNOWDB_ZONE_REQUESTED ?? null) ?? at;
    const beyond = (a: Window | null) => (a === null ? 0 : windows.filter((w) => !inside(w, a)).length);
    if (!hash.startsWith(`${ZONES_FORMAT}:`))
      fail('files', spec.key, `stale zone-layer format (current ${ZONES_FORMAT})`);
    else if (beyond(asked) > 0)
      fail(
        'files',
        spec.key,
        `does not reach every basin (regenerate with 'snowdb dataset generate-zones ${d.name}')`,
      );
    else if (beyond(at) > 0)
      out.push({
        check: 'files',
        dataset: d.name,
        target: spec.key,
        issue: `${m.items.SNOWDB_ZONE_SOURCE ?? 'its source'} covers the whole AOI window of ${windows.length - beyond(at)} of ${windows.length} basins (the source is smaller); elsewhere the zone is empty`,
        severity: 'info',
      });
  }
  const failures = out.filter((f) => f.severity === 'fail').length;
  return {
    name: d.name,
    active: d.link.active,
    area_raster: area !== null,
    aoi_rasters: rasters.size,
    covered_basins: covered,
    zone_layers: present,
    zone_layers_enabled: enabled.length,
    dates: dates.length,
    first_date: first ?? null,
    last_date: dates.at(-1) ?? null,
    health: failures === 0 ? 'ok' : `${failures} failed`,
    findings: out,
  };
}

/** Whether window `w` lies wholly inside `at` (a layer clipped to a smaller source fails this too). */
function inside(w: Window, at: Window): boolean {
  const i = intersectWindows(w, at);
  return i !== null && i.width === w.width && i.height === w.height;
}

/** Health of every registered dataset, plus index-vs-records findings (dataset ''). */
export async function databaseHealth(db: Database): Promise<{ datasets: DatasetHealth[]; index: Finding[] }> {
  const stored = await storedTriplets(db);
  const index = await db.index();
  const findings: Finding[] = [];
  for (const t of stored)
    if (!index.has(t))
      findings.push({
        check: 'index',
        dataset: '',
        target: t,
        issue: "record not in the index (run 'snowdb pourpoint reindex')",
        severity: 'fail',
      });
  for (const t of index.keys())
    if (!stored.has(t))
      findings.push({
        check: 'index',
        dataset: '',
        target: t,
        issue: "indexed without a record (run 'snowdb pourpoint reindex')",
        severity: 'fail',
      });
  const datasets = await mapPool(await openDatasets(db), 2, (d) => checkDataset(db, d));
  return { datasets, index: findings };
}
