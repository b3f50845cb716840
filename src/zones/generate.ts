import { mkdir, rename, rm } from 'node:fs/promises';
import { dirname, join, relative } from 'node:path';
import { aoiWindows, readTag } from '../datasets/artifacts.js';
import { type Dataset, openNamedDatasets } from '../datasets/registry.js';
import type { Database } from '../db/database.js';
import { debrisRoots, sweepDebris } from '../db/debris.js';
import { SnowdbError } from '../errors.js';
import { tempTag } from '../io/atomic.js';
import { writeCog } from '../raster/cog.writer.js';
import { subGrid, unionWindows, type Window, windowTag } from '../raster/grid.js';
import { hornAspect, pixelSizeMetres } from '../raster/horn.js';
import type { PixelSource } from '../raster/pixels.js';
import { enabledLayers, FLAT_SLOPE_DEG, layerPath, layersOf, PROVIDERS, type Provider } from './layers.js';
import { type PlacedTarget, placeTarget, type Target, unionLonLat, windowLonLat, zoneHash } from './plan.js';
import {
  type Block,
  type LandcoverBlock,
  LandcoverReducer,
  type Reducer,
  type TerrainBlock,
  TerrainReducer,
} from './reducers.js';
import { type OpenedSource, openProviderSource, type ZoneSourceUrls } from './sources.js';

export interface GenerateOptions {
  /** Local source file per provider (`--source <provider> <path>`); absent = network default. */
  readonly sources?: Partial<Record<Provider, string>>;
  /** Where the network defaults are (from the settings). */
  readonly urls: ZoneSourceUrls;
  /** Providers to generate; default every provider a named dataset enables. */
  readonly providers?: readonly Provider[];
  /** Regenerate even when the layers are current. */
  readonly force?: boolean;
  /** Sweep what interrupted runs left first (default); a queued job leaves it to its enqueuer. */
  readonly sweep?: boolean;
  readonly onProgress?: (label: string, done: number, total: number) => void;
}

/** What generation did for one dataset and provider. */
export interface ZoneOutcome {
  readonly dataset: string;
  readonly provider: Provider;
  /** generated | current | no-basins (no AOI raster yet) | outside (the source covers none of its basins) */
  readonly action: 'generated' | 'current' | 'no-basins' | 'outside';
  /** Layer files (relative to the dataset folder) this provider holds after the run. */
  readonly layers: readonly string[];
  /** The dataset-grid window the layers cover. */
  readonly window: Window | null;
  readonly source: string | null;
  /** Source pixels read in this provider's one pass (shared by every dataset generated). */
  readonly sourcePixels: number;
}

/** Source rows per block: about 2 M pixels, so memory stays bounded whatever the source size. */
const blockRows = (width: number) => Math.min(1024, Math.max(8, Math.floor(2 ** 21 / width)));

/** Read one block of source rows [row0, row0 + rows) over the union of the targets' columns. */
async function readBlock(
  provider: Provider,
  px: PixelSource,
  cols: Window,
  row0: number,
  rows: number,
): Promise<LandcoverBlock | TerrainBlock> {
  const { col, width } = cols;
  if (provider === 'landcover') {
    const values = await px.read({ col, row: row0, width, height: rows });
    return { col0: col, row0, width, rows, values };
  }
  const z = await px.read({ col: col - 1, row: row0 - 1, width: width + 2, height: rows + 2 });
  const dx = new Float64Array(rows);
  const dy = new Float64Array(rows);
  for (let r = 0; r < rows; r++) [dx[r], dy[r]] = pixelSizeMetres(px.grid, row0 + r);
  const cls = new Uint8Array(rows * width);
  const az = new Float64Array(rows * width);
  hornAspect(z, width, rows, dx, dy, FLAT_SLOPE_DEG, cls, az);
  const cos = new Float64Array(rows * width);
  const sin = new Float64Array(rows * width);
  for (let i = 0; i < az.length; i++) {
    cos[i] = Math.cos(az[i]!);
    sin[i] = Math.sin(az[i]!);
  }
  return { col0: col, row0, width, rows, z, cls, cos, sin };
}

/** Stream the source once over every target's reach, feeding each target's reducer. */
async function reduceAll(
  provider: Provider,
  px: PixelSource,
  placed: readonly PlacedTarget[],
  reducers: readonly Reducer<Block>[],
  onProgress: (done: number, total: number) => void,
): Promise<number> {
  const reach = unionWindows(placed.map((t) => t.sourceWindow))!;
  let read = 0;
  const step = blockRows(reach.width);
  for (let row0 = reach.row; row0 < reach.row + reach.height; row0 += step) {
    const rows = Math.min(step, reach.row + reach.height - row0);
    const block = await readBlock(provider, px, reach, row0, rows);
    read += reach.width * rows;
    placed.forEach((t, i) => {
      const sw = t.sourceWindow;
      const r0 = Math.max(row0, sw.row);
      const r1 = Math.min(row0 + rows, sw.row + sw.height);
      if (r1 <= r0) return;
      const lattice = t.map.lattice(sw.col, r0, sw.width, r1 - r0);
      const s = t.sampler.s;
      for (let r = r0; r < r1; r++) {
        for (let v = 0; v < s; v++) {
          reducers[i]!.add(block, r - row0, sw.col, t.sampler.sampleRow(lattice, r, v), s, 1 / (s * s));
        }
      }
    });
    onProgress(row0 + rows - reach.row, reach.height);
  }
  return read;
}

/** Write a target's finished layers into a staging folder; returns [staged, final] path pairs. */
async function stageLayers(
  t: PlacedTarget,
  provider: Provider,
  reducer: Reducer<Block>,
  source: string,
  stagingDirs: string[],
): Promise<[string, string][]> {
  const d = t.dataset;
  const staging = d.paths.zoneStaging(provider, tempTag());
  stagingDirs.push(staging);
  await mkdir(staging, { recursive: true });
  const arrays = reducer.finish();
  const moves: [string, string][] = [];
  for (const l of t.layers) {
    const staged = join(staging, l.file);
    await writeCog(staged, subGrid(d.grid, t.window), arrays.get(l.file)!, {
      nodata: l.nodata,
      description: l.description,
      metadata: {
        SNOWDB_DATASET: d.name,
        SNOWDB_ZONE_LAYER: l.key,
        SNOWDB_ZONE_HASH: t.hash,
        SNOWDB_ZONE_WINDOW: windowTag(t.window),
        SNOWDB_ZONE_REQUESTED: windowTag(t.requested),
        SNOWDB_ZONE_SOURCE: source,
        SNOWDB_ZONE_SAMPLES: String(t.sampler.s),
      },
    });
    moves.push([staged, layerPath(d, l)]);
  }
  return moves;
}

/** The datasets' targets for one provider: enabled layers and the window of their basins. */
async function targetsOf(datasets: readonly Dataset[], provider: Provider) {
  const out: { d: Dataset; layers: ReturnType<typeof layersOf>; window: Window | null }[] = [];
  for (const d of datasets) {
    const keys = new Set(enabledLayers(d).map((l) => l.spec.key));
    const layers = layersOf(provider).filter((l) => keys.has(l.key));
    if (layers.length > 0) out.push({ d, layers, window: unionWindows(await aoiWindows(d)) });
  }
  return out;
}

async function isCurrent(t: Target): Promise<boolean> {
  const tags = await Promise.all(
    t.layers.map((l) => readTag(t.dataset.store, layerPath(t.dataset, l), 'SNOWDB_ZONE_HASH')),
  );
  return tags.every((h) => h === t.hash);
}

/**
 * Generate the zone layers of the named datasets (active or not), one provider at a time, each
 * in one shared read of the provider's source over the datasets' basins. Layers already built
 * from the same source over the same window are kept unless `force`. All layers of a run, every
 * provider's, are staged first and moved into place at the end, so a failed run leaves every old
 * layer.
 */
export async function generateZones(
  db: Database,
  names: readonly string[],
  opts: GenerateOptions,
): Promise<ZoneOutcome[]> {
  const datasets = await openNamedDatasets(db, names);
  // What an interrupted run left (staging folders, temp files, stale locks).
  if (opts.sweep !== false) await sweepDebris(debrisRoots(db, datasets), { tmp: false });
  const outcomes: ZoneOutcome[] = [];
  const staged: Staged = { moves: [], dirs: [] };
  try {
    for (const provider of opts.providers ?? PROVIDERS) {
      const all = await targetsOf(datasets, provider);
      const withBasins = all.filter((t) => t.window !== null);
      for (const t of all.filter((x) => x.window === null)) {
        outcomes.push({
          dataset: t.d.name,
          provider,
          action: 'no-basins',
          layers: [],
          window: null,
          source: null,
          sourcePixels: 0,
        });
      }
      if (withBasins.length === 0) continue;
      const bounds = unionLonLat(withBasins.map((t) => windowLonLat(t.d.grid, t.window!)));
      const progress = (done: number, total: number) =>
        opts.onProgress?.(`${provider} download`, done, total);
      const source: OpenedSource = await openProviderSource(
        db,
        provider,
        opts.sources?.[provider],
        bounds,
        opts.urls,
        progress,
      );
      try {
        outcomes.push(...(await generateProvider(provider, source, withBasins, opts, staged)));
      } finally {
        await source.close();
      }
    }
    // Every provider's layers are staged: only now does any of them replace an old one.
    for (const [from, to] of staged.moves) {
      await mkdir(dirname(to), { recursive: true });
      await rename(from, to);
    }
  } finally {
    await Promise.all(staged.dirs.map((dir) => rm(dir, { recursive: true, force: true })));
  }
  return outcomes;
}

/** Layers written into staging folders, and where each goes once the whole run succeeded. */
interface Staged {
  /** [staged, final] path pairs. */
  readonly moves: [string, string][];
  readonly dirs: string[];
}

async function generateProvider(
  provider: Provider,
  source: OpenedSource,
  candidates: readonly { d: Dataset; layers: Target['layers']; window: Window | null }[],
  opts: GenerateOptions,
  staged: Staged,
): Promise<ZoneOutcome[]> {
  const outcomes: ZoneOutcome[] = [];
  const files = (t: { dataset: Dataset; layers: Target['layers'] }) =>
    t.layers.map((l) => relative(t.dataset.dir, layerPath(t.dataset, l)));
  const pending: PlacedTarget[] = [];
  for (const c of candidates) {
    const t: Target = {
      dataset: c.d,
      layers: c.layers,
      window: c.window!,
      hash: zoneHash(c.d, provider, source.hash, c.window!),
    };
    const placed = placeTarget(t, source.pixels.grid);
    if (placed === null) {
      outcomes.push({
        dataset: c.d.name,
        provider,
        action: 'outside',
        layers: [],
        window: null,
        source: source.description,
        sourcePixels: 0,
      });
    } else if (!opts.force && (await isCurrent(placed))) {
      outcomes.push({
        dataset: c.d.name,
        provider,
        action: 'current',
        layers: files(t),
        window: placed.window,
        source: source.description,
        sourcePixels: 0,
      });
    } else pending.push(placed);
  }
  if (pending.length === 0) return outcomes;
  const reducers = pending.map((t) => {
    const n = t.window.width * t.window.height;
    return (
      provider === 'terrain' ? new TerrainReducer(n, t.layers) : new LandcoverReducer(n, t.layers)
    ) as Reducer<Block>;
  });
  const sourcePixels = await reduceAll(provider, source.pixels, pending, reducers, (done, total) =>
    opts.onProgress?.(provider, done, total),
  );
  for (let i = 0; i < pending.length; i++)
    staged.moves.push(
      ...(await stageLayers(pending[i]!, provider, reducers[i]!, source.description, staged.dirs)),
    );
  for (const t of pending) {
    outcomes.push({
      dataset: t.dataset.name,
      provider,
      action: 'generated',
      layers: files(t),
      window: t.window,
      source: source.description,
      sourcePixels,
    });
  }
  return outcomes;
}

/** Refuse names of providers snowdb does not know. */
export function checkProvider(p: string): Provider {
  if (!(PROVIDERS as readonly string[]).includes(p)) {
    throw new SnowdbError('usage-error', `unknown zone provider '${p}' (known: ${PROVIDERS.join(', ')})`);
  }
  return p as Provider;
}
