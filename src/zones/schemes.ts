import { QueryParameterError } from '../errors.js';
import type { TypedArray } from '../raster/dtype.js';

/** One zone of an axis, as the stats body names it (docs/reference.md#stats). */
export type ZoneRef =
  | { kind: 'band'; layer: string; min: number; max: number; unit: string | null }
  | { kind: 'class'; layer: string; code: number; label: string }
  | {
      kind: 'threshold';
      layer: string;
      threshold: number;
      unit: string;
      side: 'below' | 'above';
      label: string;
    }
  /** A basin's pixels this axis (or another axis of the crossing) leaves in no zone. */
  | { kind: 'unclassified'; layer: string };

/** How a layer's pixel values become zones; `scale` turns layer values into the scheme's unit. */
export type Scheme =
  | {
      kind: 'banded';
      param: 'band_step_ft';
      default: number;
      unit: string;
      scale: number;
      /** Covered value range in `unit`, shared by every dataset so bands line up. */
      domain: readonly [number, number];
    }
  | { kind: 'bucketed'; param: 'buckets'; default: number; domain: readonly [number, number] }
  | {
      kind: 'threshold';
      param: 'threshold_pct' | 'entropy_threshold';
      default: number;
      unit: string;
      domain: readonly [number, number];
      labels: { readonly below: string; readonly above: string };
    }
  | { kind: 'categorical'; classes: readonly { readonly code: number; readonly label: string }[] };

/** A scheme with its parameter fixed: the zones of one axis and how pixels map onto them. */
export interface Axis {
  readonly layer: string;
  readonly scheme: Scheme;
  /** The parameter value in use (undefined for categorical axes). */
  readonly value: number | undefined;
  readonly zones: readonly ZoneRef[];
  /**
   * Write each pixel's zone ordinal into `out` (−1 = in no zone: nodata, NaN or outside the
   * domain). `nodata` is the layer's nodata value.
   */
  classify(values: TypedArray, nodata: number, out: Int32Array): void;
}

/** Round to 6 decimals, printing integral values as integers. */
const round6 = (v: number): number => Math.round(v * 1e6) / 1e6 + 0;

const INTEGER = /^[+-]?\d+$/;
const NUMBER = /^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/;

/**
 * Parse and validate a parameter value for a scheme; the message says what is allowed.
 * @throws QueryParameterError
 */
export function parseParam(layer: string, scheme: Scheme, text: string): number {
  const fail = (what: string): never => {
    throw new QueryParameterError(`zone '${layer}' ${what}, got '${text}'.`, { parameter: 'zone' });
  };
  switch (scheme.kind) {
    case 'banded': {
      if (!INTEGER.test(text)) fail(`${scheme.param} must be an integer number of ${scheme.unit}`);
      const v = Number(text);
      if (v <= 0) fail(`${scheme.param} must be a positive integer`);
      return v;
    }
    case 'bucketed': {
      if (!INTEGER.test(text)) fail('buckets must be an integer');
      const v = Number(text);
      if (v < 1) fail('buckets must be at least 1');
      return v;
    }
    case 'threshold': {
      if (!NUMBER.test(text)) fail(`${scheme.param} must be a number`);
      const v = Number(text);
      const [lo, hi] = scheme.domain;
      if (v < lo || v > hi) fail(`${scheme.param} must lie in ${lo}..${hi} ${scheme.unit}`);
      return v;
    }
    case 'categorical':
      return fail('is categorical and takes no override');
  }
}

/** Number of zones a scheme yields for a parameter value (checked before any raster is read). */
export function zoneCount(scheme: Scheme, value: number | undefined): number {
  switch (scheme.kind) {
    case 'banded': {
      const step = value ?? scheme.default;
      return Math.floor(scheme.domain[1] / step) - Math.floor(scheme.domain[0] / step) + 1;
    }
    case 'bucketed':
      return value ?? scheme.default;
    case 'threshold':
      return 2;
    case 'categorical':
      return scheme.classes.length;
  }
}

/**
 * An axis whose pixels map to zones by `ordinal` (−1 = in no zone); nodata and NaN are never in
 * a zone. One classify loop serves every scheme.
 */
function axis(
  layer: string,
  scheme: Scheme,
  value: number | undefined,
  zones: ZoneRef[],
  ordinal: (v: number) => number,
): Axis {
  return {
    layer,
    scheme,
    value,
    zones,
    classify(values, nodata, out) {
      for (let i = 0; i < values.length; i++) {
        const v = values[i]!;
        out[i] = v === nodata || Number.isNaN(v) ? -1 : ordinal(v);
      }
    },
  };
}

/** Fix a scheme's parameter (`value` undefined = the scheme's default) and build the axis. */
export function axisOf(layer: string, scheme: Scheme, value?: number): Axis {
  switch (scheme.kind) {
    case 'banded': {
      const step = value ?? scheme.default;
      const first = Math.floor(scheme.domain[0] / step);
      const zones: ZoneRef[] = [];
      for (let i = 0; i < zoneCount(scheme, step); i++) {
        const min = (first + i) * step;
        zones.push({ kind: 'band', layer, min, max: min + step, unit: scheme.unit });
      }
      const [lo, hi] = scheme.domain;
      const k = scheme.scale;
      return axis(layer, scheme, step, zones, (v) => {
        const u = v * k; // layer value in the scheme's unit
        return u >= lo && u <= hi ? Math.floor(u / step) - first : -1;
      });
    }
    case 'bucketed': {
      const n = value ?? scheme.default;
      const [lo, hi] = scheme.domain;
      const width = (hi - lo) / n;
      const zones: ZoneRef[] = [];
      for (let i = 0; i < n; i++) {
        zones.push({
          kind: 'band',
          layer,
          min: round6(lo + i * width),
          max: round6(lo + (i + 1) * width),
          unit: null,
        });
      }
      // The top edge belongs to the last bucket.
      return axis(layer, scheme, n, zones, (v) =>
        v >= lo && v <= hi ? Math.min(Math.floor((v - lo) / width), n - 1) : -1,
      );
    }
    case 'threshold': {
      const t = value ?? scheme.default;
      const zones: ZoneRef[] = (['below', 'above'] as const).map((side) => ({
        kind: 'threshold',
        layer,
        threshold: t,
        unit: scheme.unit,
        side,
        label: scheme.labels[side],
      }));
      return axis(layer, scheme, t, zones, (v) => (v < t ? 0 : 1));
    }
    case 'categorical': {
      const zones: ZoneRef[] = scheme.classes.map((c) => ({
        kind: 'class',
        layer,
        code: c.code,
        label: c.label,
      }));
      const ordinal = new Int32Array(256).fill(-1); // class codes are bytes
      scheme.classes.forEach((c, i) => {
        ordinal[c.code] = i;
      });
      return axis(layer, scheme, undefined, zones, (v) => (v >= 0 && v <= 255 ? ordinal[v | 0]! : -1));
    }
  }
}
