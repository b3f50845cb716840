import { aoiHash, readHeader } from '../../datasets/artifacts.js';
import {
  type CoverageIndex,
  indexedWeights,
  indexedWeightsOf,
  readCoverageIndex,
  type SparseWeights,
} from '../../datasets/coverage-index.js';
import { ingestedDates } from '../../datasets/inventory.js';
import { type Dataset, openDatasets } from '../../datasets/registry.js';
import { type TilingReport, tilingOfWeights } from '../../datasets/tiling.js';
import type { Database } from '../../db/database.js';
import { type Debris, debrisRoots, findDebris } from '../../db/debris.js';
import { stemOf } from '../../db/layout.js';
import { dateMissing } from '../../ingest/date-dir.js';
import { namesIn } from '../../io/fs.js';
import { readGroups } from '../../pourpoints/groups.js';
import type { Coverage, IndexEntry } from '../../pourpoints/index-file.js';
import { type Pending, readPending } from '../../pourpoints/pending.js';
import { indexOf, storedTriplets } from '../../pourpoints/store.js';
import { isTriplet } from '../../pourpoints/triplet.js';
import { type Grid, parseWindowTag, type Window } from '../../raster/grid.js';
import { type SeriesFacts, seriesFacts } from '../../series/inspect.js';
import { mapPool } from '../../util/pool.js';
import { enabledLayers, layerPath, type ZoneLayerSpec } from '../../zones/layers.js';
import { sharesAlone, sharesTogether, sumOf } from './classified.js';

/** A raster's grid and GDAL metadata items; null = absent or unreadable. */
export type Header = { readonly grid: Grid; readonly items: Readonly<Record<string, string>> } | null;

/**
 * An AOI raster's own tags: its hash, window and area (m²). `from: 'index'`: taken from the
 * coverage index, which records them for a raster it holds as current (`status`), not read.
 */
export type AoiFacts = {
  readonly hash: string | undefined;
  readonly window: Window | null;
  readonly areaM2: number;
  readonly from: 'raster' | 'index';
} | null;

/** An AOI raster's facts from its header. */
const aoiOfHeader = (h: Header): AoiFacts =>
  h && {
    hash: h.items.SNOWDB_AOI_HASH,
    window: parseWindowTag(h.items.SNOWDB_AOI_WINDOW ?? null),
    areaM2: Number(h.items.SNOWDB_AOI_AREA_M2),
    from: 'raster',
  };

/** One indexed basin as one dataset sees it. */
export interface BasinFacts {
  readonly triplet: string;
  readonly coverage: Coverage;
  /** What its AOI raster says of itself (null: no file, or unreadable); read only for covered basins. */
  readonly aoi: AoiFacts;
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
  /** Per basin set (`<set>:<id>` members) the index holds: how its members tile the grid. */
  readonly tiling: readonly { readonly set: string; readonly report: TilingReport }[];
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
  /**
   * Take an AOI raster's tags from the coverage index where it records the raster as current (its
   * file listed), instead of opening it (`status`: no file read per basin); default false.
   */
  readonly aoiFromIndex?: boolean;
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
  let coverageIndex: DatasetFacts['coverageIndex'] = null;
  const cix = await readCoverageIndex(d.store, d.paths.coverageIndex).catch((e: unknown) => {
    coverageIndex = { error: (e as Error).message };
    return null;
  });
  if (cix) coverageIndex = { triplets: [...cix.basins.keys()] };
  const weights = cix ? await allWeights(d, cix) : new Map<string, SparseWeights | null>();
  const entries = [...index.values()];
  const wanted = entries.map((e) => aoiHash(d, e.geometryHash));
  // Σ weight of an indexed basin, m²: once each (the AOI facts and the index entry both give it).
  const areas = new Map<SparseWeights, number>();
  const areaOf = (w: SparseWeights) => areas.get(w) ?? areas.set(w, sumOf(w.weight)).get(w)!;
  // Headers 8 at a time (a file open each; none where the index vouches for the raster); shares
  // after, every current basin in one pass.
  const aois = await mapPool(entries, 8, async (e, i): Promise<AoiFacts> => {
    const covered = (e.coverage[d.name] ?? 'none') !== 'none';
    if (!covered || !aoiFiles.has(`${stemOf(e.triplet)}.tif`)) return null;
    const at = cix?.basins.get(e.triplet);
    const w = weights.get(e.triplet);
    if (opts.aoiFromIndex === true && at && w && at.aoiHash === wanted[i])
      return { hash: at.aoiHash, window: at.window, areaM2: areaOf(w), from: 'index' };
    return aoiOfHeader(await readHeader(d.store, d.paths.aoi(e.triplet)));
  });
  // Shares of the basins with an AOI raster: from the index's weights when current there.
  const measured = opts.classified === false ? [] : entries.flatMap((_e, i) => (aois[i] ? [i] : []));
  const current = new Map<string, SparseWeights>();
  for (const i of measured) {
    const t = entries[i]!.triplet;
    const w = weights.get(t);
    if (w && cix?.basins.get(t)?.aoiHash === wanted[i]) current.set(t, w);
  }
  const shares = await sharesTogether(d, present, current);
  for (const i of measured) {
    const t = entries[i]!.triplet;
    if (!shares.has(t)) shares.set(t, await sharesAlone(d, t, present));
  }
  const basins: BasinFacts[] = entries.map((e, i) => {
    const at = cix?.basins.get(e.triplet);
    const w = weights.get(e.triplet) ?? null;
    return {
      triplet: e.triplet,
      coverage: e.coverage[d.name] ?? 'none',
      aoi: aois[i]!,
      wantHash: wanted[i]!,
      classified: shares.get(e.triplet) ?? new Map(),
      indexed: at && w ? { aoiHash: at.aoiHash, areaM2: areaOf(w) } : null,
    };
  });
  // Basin sets: members grouped by the set their id names (station triplets belong to none),
  // measured on the weights read above.
  const sets = new Map<string, Map<string, SparseWeights>>();
  for (const [t, w] of weights) {
    if (w === null || isTriplet(t)) continue;
    const set = t.slice(0, t.indexOf(':'));
    const members = sets.get(set) ?? new Map<string, SparseWeights>();
    sets.set(set, members.set(t, w));
  }
  const tiling: DatasetFacts['tiling'][number][] = [];
  if (opts.classified !== false)
    for (const [set, members] of sets) {
      const report = tilingOfWeights(d, members);
      if (report) tiling.push({ set, report });
    }
  const series = await seriesFacts(d, dates, new Map(entries.map((e, i) => [e.triplet, wanted[i]!])));
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
    tiling,
  };
}

/**
 * Every basin's weights in the index, read at once (null for a basin the file cannot give: a cut
 * index fails only the basins past the cut, each read alone then).
 */
async function allWeights(d: Dataset, cix: CoverageIndex): Promise<Map<string, SparseWeights | null>> {
  const triplets = [...cix.basins.keys()];
  const all = await indexedWeightsOf(d.store, cix, [...cix.basins.values()]).catch(() => null);
  if (all) return new Map(triplets.map((t, i) => [t, all[i]!]));
  return new Map(
    await mapPool(
      triplets,
      8,
      async (t) => [t, await indexedWeights(d.store, cix, cix.basins.get(t)!).catch(() => null)] as const,
    ),
  );
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
