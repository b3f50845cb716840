import type { Dataset } from '../datasets/registry.js';
import { SnowdbError } from '../errors.js';
import type { DType } from '../raster/dtype.js';
import { weakMemo } from '../util/weak-memo.js';
import { parseParam, type Scheme } from './schemes.js';

/** Zone-layer providers: where the source comes from. */
export const PROVIDERS = ['terrain', 'landcover'] as const;
export type Provider = (typeof PROVIDERS)[number];

/** Metres → feet. */
export const M_TO_FT = 3.28084;
/** One elevation domain for every dataset (m), so bands line up across basins and datasets. */
export const MIN_ELEVATION_M = -100;
export const MAX_ELEVATION_M = 4500;
/** Slope below which a pixel is flat (degrees). */
export const FLAT_SLOPE_DEG = 2;
/** NLCD classes counted as forest: deciduous, evergreen, mixed. */
export const FOREST_CLASSES: readonly number[] = [41, 42, 43];

/** Aspect class codes, in code order. */
export const ASPECT_CLASSES = [
  { code: 0, label: 'N' },
  { code: 1, label: 'E' },
  { code: 2, label: 'S' },
  { code: 3, label: 'W' },
  { code: 4, label: 'flat' },
] as const;

/** One zone layer: its registry key, file, pixel type and scheme. */
export interface ZoneLayerSpec {
  /** `<provider>.<name>`, the key a zone token names. */
  readonly key: string;
  readonly provider: Provider;
  readonly name: string;
  /** File name under `zones/<provider>/`. */
  readonly file: string;
  readonly dtype: DType;
  readonly nodata: number;
  /** Band description: what a pixel holds. */
  readonly description: string;
  readonly scheme: Scheme;
}

const layer = (
  provider: Provider,
  name: string,
  file: string,
  dtype: DType,
  nodata: number,
  description: string,
  scheme: Scheme,
): ZoneLayerSpec => ({
  key: `${provider}.${name}`,
  provider,
  name,
  file,
  dtype,
  nodata,
  description,
  scheme,
});

const UNIT_DOMAIN = [-1, 1] as const;

/** Every zone layer snowdb generates, sorted by key. */
export const ZONE_LAYERS: readonly ZoneLayerSpec[] = [
  layer(
    'landcover',
    'forest_cover',
    'forest_cover_pct.tif',
    'uint8',
    255,
    'forest cover (% of valid NLCD pixels)',
    {
      kind: 'threshold',
      param: 'threshold_pct',
      default: 50,
      unit: '%',
      domain: [0, 100],
      labels: { below: 'unforested', above: 'forested' },
    },
  ),
  layer(
    'terrain',
    'aspect',
    'aspect_majority.tif',
    'uint8',
    255,
    'majority aspect class (0 N, 1 E, 2 S, 3 W, 4 flat)',
    {
      kind: 'categorical',
      classes: ASPECT_CLASSES,
    },
  ),
  layer(
    'terrain',
    'aspect_entropy',
    'aspect_entropy.tif',
    'float32',
    -1,
    'aspect class entropy (0..1, 5 classes)',
    {
      kind: 'threshold',
      param: 'entropy_threshold',
      default: 0.5,
      unit: 'Hnorm',
      domain: [0, 1],
      labels: { below: 'high_signal', above: 'low_signal' },
    },
  ),
  layer('terrain', 'eastness', 'eastness.tif', 'float32', -9999, 'mean sin(aspect) of sloped pixels', {
    kind: 'bucketed',
    param: 'buckets',
    default: 4,
    domain: UNIT_DOMAIN,
  }),
  layer('terrain', 'elevation', 'elevation.tif', 'float32', -9999, 'mean elevation (m)', {
    kind: 'banded',
    param: 'band_step_ft',
    default: 1000,
    unit: 'ft',
    scale: M_TO_FT,
    domain: [MIN_ELEVATION_M * M_TO_FT, MAX_ELEVATION_M * M_TO_FT],
  }),
  layer('terrain', 'northness', 'northness.tif', 'float32', -9999, 'mean cos(aspect) of sloped pixels', {
    kind: 'bucketed',
    param: 'buckets',
    default: 4,
    domain: UNIT_DOMAIN,
  }),
];

/** The layers of one provider. */
export function layersOf(provider: Provider): ZoneLayerSpec[] {
  return ZONE_LAYERS.filter((l) => l.provider === provider);
}

/** Path of a layer file in a dataset. */
export function layerPath(d: Dataset, l: ZoneLayerSpec): string {
  return d.paths.zoneLayer(l.provider, l.file);
}

/** A layer a dataset enables, with the parameter value its config sets (else the scheme default). */
export interface EnabledLayer {
  readonly spec: ZoneLayerSpec;
  /** Configured parameter value; undefined for categorical layers. */
  readonly configured: number | undefined;
}

/**
 * The zone layers a dataset's config enables, sorted by key (worked out once per opened dataset).
 * @throws SnowdbError `invalid-config` for an unknown provider, layer or parameter.
 */
export const enabledLayers: (d: Dataset) => readonly EnabledLayer[] = weakMemo(listEnabledLayers);

function listEnabledLayers(d: Dataset): EnabledLayer[] {
  const out: EnabledLayer[] = [];
  const bad = (what: string): never => {
    throw new SnowdbError('invalid-config', `${d.configPath}: zones: ${what}`);
  };
  for (const [provider, layers] of Object.entries(d.config.zones)) {
    for (const [name, params] of Object.entries(layers)) {
      const spec = ZONE_LAYERS.find((l) => l.key === `${provider}.${name}`);
      if (!spec)
        bad(`unknown layer '${provider}.${name}' (known: ${ZONE_LAYERS.map((l) => l.key).join(', ')})`);
      const s = spec!.scheme;
      let configured: number | undefined;
      if (s.kind === 'categorical') {
        if (params !== null && !(typeof params === 'object' && Object.keys(params).length === 0))
          bad(`'${spec!.key}' is categorical and takes no parameter`);
      } else {
        const entries = params === null || typeof params !== 'object' ? [] : Object.entries(params);
        const extra = entries.filter(([k]) => k !== s.param);
        if (extra.length > 0) bad(`'${spec!.key}' takes only '${s.param}', not '${extra[0]![0]}'`);
        const v = entries.find(([k]) => k === s.param)?.[1];
        if (v !== undefined && typeof v !== 'number') bad(`'${spec!.key}.${s.param}' must be a number`);
        if (v !== undefined) {
          try {
            configured = parseParam(spec!.key, s, String(v));
          } catch (e) {
            bad((e as Error).message);
          }
        }
      }
      out.push({ spec: spec!, configured });
    }
  }
  return out.sort((a, b) => (a.spec.key < b.spec.key ? -1 : a.spec.key > b.spec.key ? 1 : 0));
}

/** How a zone axis is advertised (the `zones[]` of DatasetInfo). */
export type ZoneInfo =
  | {
      key: string;
      kind: 'banded' | 'bucketed' | 'threshold';
      param: string;
      default: number;
      unit: string | null;
      min: number;
      max: number;
      present: boolean;
    }
  | { key: string; kind: 'categorical'; classes: { key: number; label: string }[]; present: boolean };

/**
 * The zone axes a dataset offers: key, override parameter, the default a bare token gets (the
 * dataset's configured value), unit and covered domain, or the classes; `present` says whether
 * the layer file has been generated.
 */
export function zoneInfos(d: Dataset, presentKeys: ReadonlySet<string>): ZoneInfo[] {
  return enabledLayers(d).map(({ spec, configured }) => {
    const s = spec.scheme;
    const present = presentKeys.has(spec.key);
    if (s.kind === 'categorical') {
      return {
        key: spec.key,
        kind: s.kind,
        classes: s.classes.map((c) => ({ key: c.code, label: c.label })),
        present,
      };
    }
    const value = configured ?? s.default;
    if (s.kind === 'banded') {
      // The domain in whole bands of the default step, as the bands a bare token yields.
      const lo = Math.floor(s.domain[0] / value) * value;
      const hi = (Math.floor(s.domain[1] / value) + 1) * value;
      return {
        key: spec.key,
        kind: s.kind,
        param: s.param,
        default: value,
        unit: s.unit,
        min: lo,
        max: hi,
        present,
      };
    }
    const unit = s.kind === 'threshold' ? s.unit : null;
    return {
      key: spec.key,
      kind: s.kind,
      param: s.param,
      default: value,
      unit,
      min: s.domain[0],
      max: s.domain[1],
      present,
    };
  });
}
