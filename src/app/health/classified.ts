/**
 * Doctor's classified shares: per covered basin and zone layer, the share of the basin's area
 * (Σ weight) where the layer has a value. Basins whose coverage-index weights are current are
 * measured together, each layer read once over the union of their windows; the rest one by one
 * from their AOI rasters. Both add a basin's weights in its pixel order, so the shares are the same.
 */
import { type SparseWeights, sparseOf } from '../../datasets/coverage-index.js';
import { readOnto } from '../../datasets/read-onto.js';
import type { Dataset } from '../../datasets/registry.js';
import { unionWindows } from '../../raster/grid.js';
import { Slicer } from '../../util/slices.js';
import { layerPath, type ZoneLayerSpec } from '../../zones/layers.js';

/** Σ of an array, in order. */
export function sumOf(a: Float64Array): number {
  let s = 0;
  for (let i = 0; i < a.length; i++) s += a[i]!;
  return s;
}

/** Triplet → layer key → share ∈ [0, 1] (1 for a basin of no area). */
export type Shares = Map<string, Map<string, number>>;

/** The shares of basins with their weights, every layer read once over the union of their windows. */
export async function sharesTogether(
  d: Dataset,
  layers: readonly ZoneLayerSpec[],
  basins: ReadonlyMap<string, SparseWeights>,
): Promise<Shares> {
  const out: Shares = new Map([...basins.keys()].map((t) => [t, new Map<string, number>()]));
  if (basins.size === 0) return out;
  const U = unionWindows([...basins.values()].map((w) => w.window))!;
  const { col: c0, row: r0 } = U;
  const totals = new Map([...basins].map(([t, w]) => [t, sumOf(w.weight)]));
  const slicer = new Slicer();
  for (const spec of layers) {
    const layer = await readOnto(d.store, layerPath(d, spec), 'SNOWDB_ZONE_WINDOW', U, spec.nodata).catch(
      () => null,
    );
    if (layer === null) continue;
    for (const [t, w] of basins) {
      const { col, row, width } = w.window;
      let kept = 0;
      for (let k = 0; k < w.at.length; k++) {
        const a = w.at[k]!;
        const v = layer.data[(row - r0 + Math.floor(a / width)) * U.width + (col - c0 + (a % width))]!;
        if (v !== spec.nodata && !Number.isNaN(v)) kept += w.weight[k]!;
      }
      const total = totals.get(t)!;
      out.get(t)!.set(spec.key, total > 0 ? kept / total : 1);
      await slicer.pause();
    }
  }
  return out;
}

/** One basin's shares from its AOI raster (no current index weights), each layer over its window. */
export async function sharesAlone(
  d: Dataset,
  triplet: string,
  layers: readonly ZoneLayerSpec[],
): Promise<Map<string, number>> {
  const aoi = await readOnto(d.store, d.paths.aoi(triplet), 'SNOWDB_AOI_WINDOW', null, 0).then(
    (r) => r && sparseOf(r.data, r.window),
    () => null,
  );
  if (aoi === null) return new Map();
  return (await sharesTogether(d, layers, new Map([[triplet, aoi]]))).get(triplet)!;
}
