import { QueryParameterError } from '../errors.js';
import type { EnabledLayer } from './layers.js';
import { type Axis, axisOf, parseParam } from './schemes.js';

/**
 * Parse one zone selection token, `LAYER` or `LAYER:PARAM=VALUE` (docs/reference.md#zone-layers), against the layers
 * a dataset enables. A bare layer uses the dataset's configured parameter (else the scheme's).
 * @throws QueryParameterError naming what is allowed.
 */
export function parseZoneToken(token: string, layers: readonly EnabledLayer[]): Axis {
  const colon = token.indexOf(':');
  const key = colon < 0 ? token : token.slice(0, colon);
  const layer = layers.find((l) => l.spec.key === key);
  if (!layer) {
    throw new QueryParameterError(
      `Unknown zone layer '${key}'; available: ${layers.map((l) => l.spec.key).join(', ')}.`,
      { parameter: 'zone', allowed: layers.map((l) => l.spec.key) },
    );
  }
  const scheme = layer.spec.scheme;
  if (colon < 0) return axisOf(key, scheme, layer.configured);
  if (scheme.kind === 'categorical') {
    throw new QueryParameterError(`Zone layer '${key}' is categorical and takes no override; use '${key}'.`, {
      parameter: 'zone',
    });
  }
  const override = token.slice(colon + 1);
  const eq = override.indexOf('=');
  if (eq < 0) {
    throw new QueryParameterError(
      `Malformed zone override '${token}'; expected LAYER:PARAM=VALUE, e.g. '${key}:${scheme.param}=${scheme.default}'.`,
      { parameter: 'zone' },
    );
  }
  const param = override.slice(0, eq);
  if (param !== scheme.param) {
    throw new QueryParameterError(
      `Unknown override '${param}' for '${key}'; its override is '${scheme.param}'.`,
      {
        parameter: 'zone',
        allowed: [scheme.param],
      },
    );
  }
  return axisOf(key, scheme, parseParam(key, scheme, override.slice(eq + 1)));
}

/** Parse tokens in order (the same layer may be selected twice). */
export function parseZoneTokens(tokens: readonly string[], layers: readonly EnabledLayer[]): Axis[] {
  return tokens.map((t) => parseZoneToken(t, layers));
}
