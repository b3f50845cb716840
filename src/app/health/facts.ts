import { aoiHash, readHeader } from '../../datasets/artifacts.js';
import {
  indexedWeights,
  readCoverageIndex,
  type SparseWeights,
  sparseOf,
} from '../../datasets/coverage-index.js';
import { ingestedDates } from '../../datasets/inventory.js';
import { RasterSession, readOnto } from '../../datasets/read-onto.js';
import { type Dataset, openDatasets } from '../../datasets/registry.js';
import type { Database } from '../../db/database.js';
import { type Debris, debrisRoots, findDebris } from '../../db/debris.js';
import { stemOf } from '../../db/layout.js';
import { dateMissing } from '../../ingest/date-dir.js';
import { namesIn } from '../../io/fs.js';
import { readGroups } from '../../pourpoints/groups.js';
import type { Coverage, IndexEntry } from '../../pourpoints/index-file.js';
import { type Pending, readPending } from '../../pourpoints/pending.js';
import { indexOf, storedTriplets } from '../../pourpoints/store.js';
import type { Grid } from '../../raster/grid.js';
import { type SeriesFacts, seriesFacts } from '../../series/inspect.js';
import { mapPool } from '../../util/pool.js';
import { enabledLayers, layerPath, type ZoneLayerSpec } from '../../zones/layers.js';

/** A raster's grid and GDAL metadata items; null = absent or unreadable. */
export type Header = { readonly grid: Grid; readonly items: Readonly<Record<string, string>> } | null;

/** One indexed basin as one dataset sees it. */
export interface BasinFacts {
  readonly triplet: string;
  readonly coverage: Coverage;
  /** Its AOI raster's header (null: no file, or unreadable); read only for covered basins. */
  readonly aoi: Header;
  /** The SNOWDB_AOI_HASH a current AOI raster carries. */
  readonly wantHash: string;
  /**
   * Per present zone layer: the share of the basin's area (AOI weights) where it has a value;
   * empty when the facts were read without shares.
   */
  readonly classified: ReadonlyMap<string, number>;
  /** Its entry in the dataset's coverage index: the AOI hash and Σ weight (m²); null when absent. */
  readonly indexed: { readonly aoiHash: string; readonly areaM2: number } | null;
}

/** What the checks of one dataset look at: read once, then checked without I/O. */
export interface DatasetFacts {
  readonly dataset: Dataset;
  readonly area: Header;
  /** Ingested dates (ISO, ascending) and those missing a COG or the manifest. */
  readonly dates: readonly string[];
  readonly incomplete: readonly { readonly date: string; readonly missing: readonly string[] }[];
  /** The first date's COG of the first variable (sorted), when a date exists. */
  readonly firstCog: { readonly date: string; readonly variable: string; readonly header: Header } | null;
  /** File names in `aoi/` ending in .tif. */
  readonly aoiFiles: ReadonlySet<string>;
  /** Every indexed basin, in index order. */
  readonly basins: readonly BasinFacts[];
  /** Every layer the config enables, with its header. */
  readonly zoneLayers: readonly { readonly spec: ZoneLayerSpec; readonly header: Header }[];
  /** The derived series store, against the ingested dates. */
  readonly series: SeriesFacts;
  /** The coverage index: absent, unreadable (why), or the triplets it holds. */
  readonly coverageIndex: { readonly error: string } | { readonly triplets: readonly string[] } | null;
}

/** What the database-wide checks look at. */
export interface DatabaseFacts {
  /** What interrupted commands left (temp files, unlinked date versions, stale locks, sync staging). */
  readonly debris: readonly Debris[];
  /** Basins an interrupted import/sync left in the pourpoint journal. */
  readonly pending: Pending;
  /** Triplets of the record files. */
  readonly stored: ReadonlySet<string>;
  /** Triplets of the index. */
  readonly indexed: readonly string[];
  /** The index entries (their basin QA: area against the declared one, outlet distance). */
  readonly entries: readonly IndexEntry[];
  /** Each group's members (`pourpoints/groups.json`), or the file's error. */
  readonly groups: Readonly<Record<string, readonly string[]>> | { readonly error: string };
  readonly datasets: readonly DatasetFacts[];
}

/** What to read beyond headers and listings. */
export interface FactsOptions {
  /** Each basin's classified share per zone layer (decodes every AOI raster and layer window); default true. */
  readonly classified?: boolean;
}

async function datasetFacts(
  d: Dataset,
  index: ReadonlyMap<string, IndexEntry>,
  opts: FactsOptions,
): Promise<DatasetFacts> {
  const area = await readHeader(d.store, d.paths.area);
  const dates = await ingestedDates(d);
  const incomplete = (
    await mapPool(dates, 16, async (date) => ({ date, missing: await dateMissing(d, date) }))
  ).filter((x) => x.missing.length > 0);
  const first = dates[0];
  const variable = Object.keys(d.config.variables).sort()[0]!;
  const firstCog =
    first === undefined
      ? null
      : { date: first, variable, header: await readHeader(d.store, d.paths.cog(first, variable)) };
  const aoiFiles = new Set((await namesIn(d.store, d.paths.aoiDir)).filter((f) => f.endsWith('.tif')));
  const zoneLayers = [];
  for (const { spec } of enabledLayers(d))
    zoneLayers.push({ spec, header: await readHeader(d.store, layerPath(d, spec)) });
  const present = zoneLayers.filter((l) => l.header !== null).map((l) => l.spec);
  const basins: BasinFacts[] = [];
  let coverageIndex: DatasetFacts['coverageIndex'] = null;
  const cix = await readCoverageIndex(d.store, d.paths.coverageIndex).catch((e: unknown) => {
    coverageIndex = { error: (e as Error).message };
    return null;
  });
  if (cix) coverageIndex = { triplets: [...cix.basins.keys()] };
  // Zone layers open once for every basin: a tile under several basins is decoded once.
  const session = new RasterSession();
  try {
    for (const e of index.values()) {
      const coverage = e.coverage[d.name] ?? 'none';
      const has = coverage !== 'none' && aoiFiles.has(`${stemOf(e.triplet)}.tif`);
      const aoi = has ? await readHeader(d.store, d.paths.aoi(e.triplet)) : null;
      const wantHash = aoiHash(d, e.geometryHash);
      const at = cix?.basins.get(e.triplet);
      // An index entry's weights, read once: its area here, and (when current) the classified shares.
      const weights = cix && at ? await indexedWeights(d.store, cix, at).catch(() => null) : null;
      const current = weights !== null && at?.aoiHash === wantHash ? weights : null;
      basins.push({
        triplet: e.triplet,
        coverage,
        aoi,
        wantHash,
        classified:
          aoi === null || opts.classified === false
            ? new Map()
            : await classifiedShares(d, e.triplet, present, session, current),
        indexed: at && weights ? { aoiHash: at.aoiHash, areaM2: sumOf(weights.weight) } : null,
      });
    }
  } finally {
    await session.close();
  }
  const series = await seriesFacts(d, dates);
  return {
    dataset: d,
    area,
    dates,
    incomplete,
    firstCog,
    aoiFiles,
    basins,
    zoneLayers,
    series,
    coverageIndex,
  };
}

/** Σ of an array, in order. */
function sumOf(a: Float64Array): number {
  let s = 0;
  for (let i = 0; i < a.length; i++) s += a[i]!;
  return s;
}

/**
 * Per zone layer, the share of a basin's area (Σ weight) where the layer has a value; the weights
 * from the coverage index when current there (`indexed`), else from the AOI raster.
 */
async function classifiedShares(
  d: Dataset,
  triplet: string,
  layers: readonly ZoneLayerSpec[],
  session: RasterSession,
  indexed: SparseWeights | null,
): Promise<Map<string, number>> {
  const out = new Map<string, number>();
  const aoi = indexed
    ? indexed
    : await readOnto(d.store, d.paths.aoi(triplet), 'SNOWDB_AOI_WINDOW', null, 0).then(
        (r) => r && sparseOf(r.data, r.window),
        () => null,
      );
  if (aoi === null) return out;
  const total = sumOf(aoi.weight);
  for (const spec of layers) {
    const layer = await readOnto(
      d.store,
      layerPath(d, spec),
      'SNOWDB_ZONE_WINDOW',
      aoi.window,
      spec.nodata,
      session,
    ).catch(() => null);
    if (layer === null) continue;
    let kept = 0;
    for (let k = 0; k < aoi.at.length; k++) {
      const v = layer.data[aoi.at[k]!]!;
      if (v !== spec.nodata && !Number.isNaN(v)) kept += aoi.weight[k]!;
    }
    out.set(spec.key, total > 0 ? kept / total : 1);
  }
  return out;
}

/** Read what every health check needs: headers and listings, and each basin's classified share. */
export async function readFacts(
  db: Database,
  pick: (d: Dataset) => boolean = () => true,
  opts: FactsOptions = {},
): Promise<DatabaseFacts> {
  const index = await indexOf(db);
  const all = await openDatasets(db);
  const datasets = all.filter(pick);
  return {
    debris: await findDebris(debrisRoots(db, all)),
    pending: await readPending(db),
    stored: await storedTriplets(db),
    indexed: [...index.keys()],
    entries: [...index.values()],
    groups: await readGroups(db).then(
      (g) => Object.fromEntries(Object.entries(g).map(([k, v]) => [k, v.members])),
      (e: unknown) => ({ error: (e as Error).message }),
    ),
    datasets: await mapPool(datasets, 2, (d) => datasetFacts(d, index, opts)),
  };
}
