import { QueryParameterError } from '../errors.js';
import type { EnabledLayer } from './layers.js';
import { type Axis, axisOf, parseParam, type Scheme, zoneCount } from './schemes.js';

/** Most zone tokens one query may cross (six layers; one may be selected twice). */
export const MAX_ZONE_AXES = 8;

/** A parsed zone token before its zones are built: the layer, its scheme and parameter value. */
interface AxisSpec {
  readonly key: string;
  readonly scheme: Scheme;
  readonly value: number | undefined;
}

/**
 * Parse one zone selection token, `LAYER` or `LAYER:PARAM=VALUE` (docs/reference.md#zone-layers),
 * against the layers a dataset enables, without building its zones.
 * @throws QueryParameterError naming what is allowed.
 */
function parseSpec(token: string, layers: readonly EnabledLayer[]): AxisSpec {
  const colon = token.indexOf(':');
  const key = colon < 0 ? token : token.slice(0, colon);
  const layer = layers.find((l) => l.spec.key === key);
  if (!layer) {
    throw new QueryParameterError(
      `Unknown zone layer '${key.slice(0, 64)}'; available: ${layers.map((l) => l.spec.key).join(', ')}.`,
      { parameter: 'zone', allowed: layers.map((l) => l.spec.key) },
    );
  }
  const scheme = layer.spec.scheme;
  if (colon < 0) return { key, scheme, value: layer.configured };
  if (scheme.kind === 'categorical') {
    throw new QueryParameterError(`Zone layer '${key}' is categorical and takes no override; use '${key}'.`, {
      parameter: 'zone',
    });
  }
  const override = token.slice(colon + 1);
  const eq = override.indexOf('=');
  if (eq < 0) {
    throw new QueryParameterError(
      `Malformed zone override '${token.slice(0, 96)}'; expected LAYER:PARAM=VALUE, e.g. '${key}:${scheme.param}=${scheme.default}'.`,
      { parameter: 'zone' },
    );
  }
  const param = override.slice(0, eq);
  if (param !== scheme.param) {
    throw new QueryParameterError(
      `Unknown override '${param.slice(0, 64)}' for '${key}'; its override is '${scheme.param}'.`,
      { parameter: 'zone', allowed: [scheme.param] },
    );
  }
  return { key, scheme, value: parseParam(key, scheme, override.slice(eq + 1)) };
}

/** Parse one zone token into its axis (zones built). */
export function parseZoneToken(token: string, layers: readonly EnabledLayer[]): Axis {
  const s = parseSpec(token, layers);
  return axisOf(s.key, s.scheme, s.value);
}

/**
 * Parse tokens in order (the same layer may be selected twice). The number of tokens and of
 * cells in their crossing are checked from the parameters before any zone is built, so a huge
 * bucket count or a tiny band step costs nothing.
 * @throws QueryParameterError over MAX_ZONE_AXES tokens or `maxCells` cells.
 */
export function parseZoneTokens(
  tokens: readonly string[],
  layers: readonly EnabledLayer[],
  maxCells = Number.POSITIVE_INFINITY,
): Axis[] {
  if (tokens.length > MAX_ZONE_AXES)
    throw new QueryParameterError(
      `${tokens.length} zone tokens, more than the limit of ${MAX_ZONE_AXES}; cross fewer axes`,
      { parameter: 'zone', limit: MAX_ZONE_AXES },
    );
  const specs = tokens.map((t) => parseSpec(t, layers));
  const cells = specs.reduce((p, s) => p * zoneCount(s.scheme, s.value), 1);
  if (cells > maxCells)
    throw new QueryParameterError(
      `the zone crossing has ${cells} cells, more than the limit of ${maxCells}; use fewer axes or coarser parameters`,
      { parameter: 'zone', limit: maxCells },
    );
  return specs.map((s) => axisOf(s.key, s.scheme, s.value));
}
