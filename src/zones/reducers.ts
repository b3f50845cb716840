import type { TypedArray } from '../raster/dtype.js';
import { ASPECT_CLASSES, FOREST_CLASSES, type ZoneLayerSpec } from './layers.js';

/** Source pixels of one block: `width` columns from `col0`, `rows` rows from `row0` (source pixels). */
export interface Block {
  readonly col0: number;
  readonly row0: number;
  readonly width: number;
  readonly rows: number;
}

/** A terrain block: elevations with a one-pixel halo, and Horn's aspect per pixel. */
export interface TerrainBlock extends Block {
  /** (rows + 2) × (width + 2) elevations, m; NaN = no data. */
  readonly z: Float64Array;
  /** rows × width aspect class (0–4, 255 = none). */
  readonly cls: Uint8Array;
  /** rows × width cos / sin of the aspect azimuth (NaN where flat or none). */
  readonly cos: Float64Array;
  readonly sin: Float64Array;
}

/** A land-cover block: rows × width class codes (NaN = no data). */
export interface LandcoverBlock extends Block {
  readonly values: Float64Array;
}

/**
 * Per-cell sums for one target window. `add` takes one row of sample points: `cells[k]` is the
 * target cell of point k (−1 outside), which lies in source pixel `col + ⌊k / s⌋` of block row
 * `r`; each point weighs `weight` (1/s² of a pixel).
 */
export interface Reducer<B extends Block> {
  add(block: B, r: number, col: number, cells: Int32Array, s: number, weight: number): void;
  /** The finished layers, keyed by layer file name. */
  finish(): Map<string, TypedArray>;
}

const NCLASS = ASPECT_CLASSES.length;

/** Terrain: mean elevation, majority aspect class, mean cos/sin of aspect, aspect entropy. */
export class TerrainReducer implements Reducer<TerrainBlock> {
  private readonly wz: Float64Array; // weight of valid elevations
  private readonly sz: Float64Array; // Σ z · weight, m
  private readonly wc: Float64Array; // weight per aspect class, NCLASS per cell
  private readonly ws: Float64Array; // weight of sloped pixels
  private readonly sc: Float64Array; // Σ cos(aspect) · weight
  private readonly ss: Float64Array; // Σ sin(aspect) · weight

  constructor(
    readonly cells: number,
    private readonly specs: readonly ZoneLayerSpec[],
  ) {
    this.wz = new Float64Array(cells);
    this.sz = new Float64Array(cells);
    this.wc = new Float64Array(cells * NCLASS);
    this.ws = new Float64Array(cells);
    this.sc = new Float64Array(cells);
    this.ss = new Float64Array(cells);
  }

  add(b: TerrainBlock, r: number, col: number, cells: Int32Array, s: number, weight: number): void {
    const zRow = (r + 1) * (b.width + 2) + 1 + (col - b.col0);
    const aRow = r * b.width + (col - b.col0);
    for (let k = 0; k < cells.length; k++) {
      const t = cells[k]!;
      if (t < 0) continue;
      const p = Math.floor(k / s);
      const z = b.z[zRow + p]!;
      if (!Number.isNaN(z)) {
        this.wz[t] = this.wz[t]! + weight;
        this.sz[t] = this.sz[t]! + z * weight;
      }
      const c = b.cls[aRow + p]!;
      if (c >= NCLASS) continue;
      this.wc[t * NCLASS + c] = this.wc[t * NCLASS + c]! + weight;
      if (c === NCLASS - 1) continue; // flat: no direction
      this.ws[t] = this.ws[t]! + weight;
      this.sc[t] = this.sc[t]! + b.cos[aRow + p]! * weight;
      this.ss[t] = this.ss[t]! + b.sin[aRow + p]! * weight;
    }
  }

  finish(): Map<string, TypedArray> {
    const n = this.cells;
    const elevation = new Float32Array(n);
    const aspect = new Uint8Array(n);
    const northness = new Float32Array(n);
    const eastness = new Float32Array(n);
    const entropy = new Float32Array(n);
    const ln5 = Math.log(NCLASS);
    for (let t = 0; t < n; t++) {
      elevation[t] = this.wz[t]! > 0 ? this.sz[t]! / this.wz[t]! : -9999;
      northness[t] = this.ws[t]! > 0 ? this.sc[t]! / this.ws[t]! : -9999;
      eastness[t] = this.ws[t]! > 0 ? this.ss[t]! / this.ws[t]! : -9999;
      let total = 0;
      let best = -1;
      let bestW = 0;
      for (let c = 0; c < NCLASS; c++) {
        const w = this.wc[t * NCLASS + c]!;
        total += w;
        if (w > bestW) [best, bestW] = [c, w]; // ties keep the lowest code
      }
      aspect[t] = best < 0 ? 255 : best;
      if (total === 0) entropy[t] = -1;
      else {
        let h = 0;
        for (let c = 0; c < NCLASS; c++) {
          const p = this.wc[t * NCLASS + c]! / total;
          if (p > 0) h -= p * Math.log(p);
        }
        entropy[t] = h / ln5;
      }
    }
    const byName: Record<string, TypedArray> = {
      elevation,
      aspect,
      northness,
      eastness,
      aspect_entropy: entropy,
    };
    return new Map(this.specs.map((l) => [l.file, byName[l.name]!]));
  }
}

const FOREST = new Uint8Array(256);
for (const c of FOREST_CLASSES) FOREST[c] = 1;

/** Land cover: percent of valid pixels (class ≠ 0, not nodata) in the forest classes. */
export class LandcoverReducer implements Reducer<LandcoverBlock> {
  private readonly valid: Float64Array; // weight of valid pixels
  private readonly forest: Float64Array; // weight of forest pixels

  constructor(
    readonly cells: number,
    private readonly specs: readonly ZoneLayerSpec[],
  ) {
    this.valid = new Float64Array(cells);
    this.forest = new Float64Array(cells);
  }

  add(b: LandcoverBlock, r: number, col: number, cells: Int32Array, s: number, weight: number): void {
    const row = r * b.width + (col - b.col0);
    for (let k = 0; k < cells.length; k++) {
      const t = cells[k]!;
      if (t < 0) continue;
      const v = b.values[row + Math.floor(k / s)]!;
      if (!(v > 0 && v < 256)) continue; // NaN, 0 (unclassified) or not a class byte
      this.valid[t] = this.valid[t]! + weight;
      if (FOREST[v]) this.forest[t] = this.forest[t]! + weight;
    }
  }

  finish(): Map<string, TypedArray> {
    const pct = new Uint8Array(this.cells);
    for (let t = 0; t < this.cells; t++) {
      pct[t] = this.valid[t]! > 0 ? Math.floor((100 * this.forest[t]!) / this.valid[t]! + 0.5) : 255;
    }
    return new Map(this.specs.map((l) => [l.file, pct]));
  }
}
