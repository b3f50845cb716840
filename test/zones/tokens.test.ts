import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { QueryParameterError } from '../../src/errors.js';
import { type EnabledLayer, M_TO_FT, ZONE_LAYERS } from '../../src/zones/layers.js';
import { axisOf } from '../../src/zones/schemes.js';
import { parseZoneToken, parseZoneTokens } from '../../src/zones/tokens.js';

/** Every layer enabled with the scheme defaults, except elevation configured at 500 ft. */
const LAYERS: EnabledLayer[] = ZONE_LAYERS.map((spec) => ({
  spec,
  configured: spec.key === 'terrain.elevation' ? 500 : undefined,
}));

const rejects = (token: string, pattern: RegExp) =>
  assert.throws(
    () => parseZoneToken(token, LAYERS),
    (e: unknown) =>
      e instanceof QueryParameterError && e.key === 'invalid-query-parameter' && pattern.test(e.message),
    token,
  );

const classify = (token: string, values: number[], nodata: number): number[] => {
  const out = new Int32Array(values.length);
  parseZoneToken(token, LAYERS).classify(Float64Array.from(values), nodata, out);
  return [...out];
};

describe('zone tokens and schemes', () => {
  it('a bare layer uses the dataset-configured parameter, an override replaces it', () => {
    const bare = parseZoneToken('terrain.elevation', LAYERS);
    assert.equal(bare.value, 500);
    const over = parseZoneToken('terrain.elevation:band_step_ft=1000', LAYERS);
    assert.equal(over.value, 1000);
    // One global domain, -100..4500 m = -328.084..14763.78 ft: 16 bands of 1000 ft from -1000.
    assert.equal(over.zones.length, 16);
    assert.deepEqual(over.zones[0], {
      kind: 'band',
      layer: 'terrain.elevation',
      min: -1000,
      max: 0,
      unit: 'ft',
    });
    assert.deepEqual(over.zones.at(-1), {
      kind: 'band',
      layer: 'terrain.elevation',
      min: 14000,
      max: 15000,
      unit: 'ft',
    });
    assert.equal(parseZoneToken('terrain.elevation:band_step_ft=2000', LAYERS).zones.length, 9);
  });

  it('banded: 1000 m is 3280.84 ft, band 3000-4000 (index 4); nodata and out-of-domain are -1', () => {
    assert.deepEqual(
      classify('terrain.elevation:band_step_ft=1000', [1000, -9999, 5000, 0, -50], -9999),
      [4, -1, -1, 1, 0],
    );
    // 3000 ft exactly starts a band: 3000 / 3.28084 m.
    assert.deepEqual(classify('terrain.elevation:band_step_ft=1000', [3000 / M_TO_FT + 1e-9], -9999), [4]);
  });

  it('bucketed: even buckets over -1..1, top edge in the last bucket, bounds rounded', () => {
    const a = parseZoneToken('terrain.northness:buckets=3', LAYERS);
    assert.deepEqual(
      a.zones.map((z) => (z.kind === 'band' ? [z.min, z.max, z.unit] : null)),
      [
        [-1, -0.333333, null],
        [-0.333333, 0.333333, null],
        [0.333333, 1, null],
      ],
    );
    assert.deepEqual(
      classify('terrain.northness', [-1, -0.5, 0, 0.49, 1, 1.2, -9999], -9999),
      [0, 1, 2, 2, 3, -1, -1],
    );
  });

  it('threshold: below / above with the labels; categorical: codes in class order', () => {
    const f = parseZoneToken('landcover.forest_cover:threshold_pct=30', LAYERS);
    assert.deepEqual(f.zones[1], {
      kind: 'threshold',
      layer: 'landcover.forest_cover',
      threshold: 30,
      unit: '%',
      side: 'above',
      label: 'forested',
    });
    assert.deepEqual(
      classify('landcover.forest_cover:threshold_pct=30', [0, 29, 30, 100, 255], 255),
      [0, 0, 1, 1, -1],
    );
    assert.deepEqual(classify('terrain.aspect_entropy', [0.2, 0.5, 0.9, -1], -1), [0, 1, 1, -1]);
    const aspect = parseZoneToken('terrain.aspect', LAYERS);
    assert.deepEqual(
      aspect.zones.map((z) => (z.kind === 'class' ? `${z.code}:${z.label}` : '')),
      ['0:N', '1:E', '2:S', '3:W', '4:flat'],
    );
    assert.deepEqual(classify('terrain.aspect', [4, 0, 3, 255, 9], 255), [4, 0, 3, -1, -1]);
  });

  it('the same layer may be selected twice, in order', () => {
    const axes = parseZoneTokens(['terrain.aspect', 'terrain.elevation', 'terrain.aspect'], LAYERS);
    assert.deepEqual(
      axes.map((a) => a.layer),
      ['terrain.aspect', 'terrain.elevation', 'terrain.aspect'],
    );
  });

  it('the crossing is sized from the parameters before any zone is built: 10^8 buckets cost nothing', () => {
    const big = ['terrain.northness:buckets=100000000', 'terrain.eastness:buckets=100000000'];
    assert.throws(
      () => parseZoneTokens(big, LAYERS, 10_000),
      (e: Error) =>
        e instanceof QueryParameterError &&
        /has 10000000000000000 cells, more than the limit of 10000/.test(e.message),
    );
    assert.throws(
      () => parseZoneTokens(Array(9).fill('terrain.aspect'), LAYERS),
      /9 zone tokens, more than the limit of 8/,
    );
    // 4 × 4 × 5 = 80 cells: exactly at a cap of 80 passes.
    assert.equal(
      parseZoneTokens(['terrain.northness', 'terrain.eastness', 'terrain.aspect'], LAYERS, 80).length,
      3,
    );
  });

  it('every malformed token is a QueryParameterError that says what is allowed', () => {
    rejects(
      'terrain.slope',
      /Unknown zone layer 'terrain\.slope'; available: landcover\.forest_cover, terrain\.aspect,/,
    );
    rejects('', /Unknown zone layer ''/);
    rejects(
      'terrain.elevation:band_step_ft',
      /expected LAYER:PARAM=VALUE, e\.g\. 'terrain\.elevation:band_step_ft=1000'/,
    );
    rejects(
      'terrain.elevation:buckets=4',
      /Unknown override 'buckets' for 'terrain\.elevation'; its override is 'band_step_ft'/,
    );
    rejects('terrain.aspect:classes=3', /'terrain\.aspect' is categorical and takes no override/);
    rejects('terrain.elevation:band_step_ft=abc', /band_step_ft must be an integer number of ft, got 'abc'/);
    rejects('terrain.elevation:band_step_ft=250.5', /must be an integer/);
    rejects('terrain.elevation:band_step_ft=0', /must be a positive integer, got '0'/);
    rejects('terrain.northness:buckets=0', /buckets must be at least 1/);
    rejects('terrain.northness:buckets=2.5', /buckets must be an integer/);
    rejects('landcover.forest_cover:threshold_pct=lots', /threshold_pct must be a number, got 'lots'/);
    rejects('landcover.forest_cover:threshold_pct=150', /threshold_pct must lie in 0\.\.100 %/);
    rejects('terrain.aspect_entropy:entropy_threshold=1.5', /entropy_threshold must lie in 0\.\.1 Hnorm/);
    rejects('terrain.aspect_entropy:entropy_threshold=', /entropy_threshold must be a number, got ''/);
  });

  it('axisOf without a value uses the scheme default', () => {
    const spec = ZONE_LAYERS.find((l) => l.key === 'landcover.forest_cover')!;
    assert.equal(axisOf(spec.key, spec.scheme).value, 50);
  });
});
