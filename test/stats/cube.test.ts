import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { type Cube, columnTable, columnTableSliced, zonesOf } from '../../src/stats/cube.js';
import { parseDateRange } from '../../src/stats/dates.js';
import { compactOf } from '../../src/stats/engine.js';
import { planStats, type StatsQuery } from '../../src/stats/plan.js';
import { M2_PER_ACRE } from '../../src/stats/units.js';
import { inputs, query } from '../helpers/plan-inputs.js';

/** A cube of a real plan with hand-set sums: `sums[v]` lists [Σw, Σv·w] per date, then per cell. */
function cubeOf(q: Partial<StatsQuery>, area: number[], sums: Record<string, [number, number][][]>): Cube {
  const plan = planStats(inputs, query(q));
  assert.equal(area.length, plan.product);
  const cells: number[] = [];
  const unclassified = plan.axes.length > 0 ? plan.product - 1 : -1;
  area.forEach((a, k) => {
    if (a > 0 || (plan.includeEmptyZones && k !== unclassified)) cells.push(k);
  });
  return {
    plan,
    area: Float64Array.from(area),
    cells: Int32Array.from(cells),
    sums: plan.variables.map((v) => {
      const rows = sums[v]!;
      return {
        sw: Float64Array.from(rows.flatMap((r) => r.map(([w]) => w))),
        sv: Float64Array.from(rows.flatMap((r) => r.map(([, s]) => s))),
      };
    }),
  };
}

describe('cube views (pure: hand-set sums, no raster)', () => {
  // SNODAS: swe in mm (scale 1, 0.001 m per mm: volumes), precip_solid in kg/m² × 10 (scale 10).
  const twoDates = parseDateRange('2024-04-01/2024-04-02');

  it('columns: mean = Σv·w / Σw ÷ scale, volume = Σv·w ÷ scale × m per unit, valid = Σw / area; null without data', async () => {
    const cube = cubeOf({ dates: twoDates, variables: ['swe', 'precip_solid'], validFraction: true }, [200], {
      // date 1: 150 of 200 m² have data, Σ value × w = 150 × 40 mm; date 2: no pixel with data
      swe: [[[150, 6000]], [[0, 0]]],
      // date 1: Σ raw (kg/m² × 10) × w = 200 × 35 → 3.5 kg/m²
      precip_solid: [[[200, 7000]], [[200, 0]]],
    });
    const body = compactOf(cube);
    assert.deepEqual(body.variables, [
      'mean_precip_solid_kg_per_m2',
      'total_precip_solid_m3',
      'valid_fraction_precip_solid',
      'mean_swe_mm',
      'total_swe_m3',
      'valid_fraction_swe',
    ]);
    assert.deepEqual(body.zone_layers, []);
    assert.deepEqual(body.zones, [{ zone: [], area_m2: 200 }]);
    // 700 kg/m² · m² of solid precipitation = 0.7 m³ of water (to the last bit of 0.001 m per unit).
    const solidM3 = (7000 / 10) * 0.001;
    assert.ok(Math.abs(solidM3 - 0.7) < 1e-15);
    assert.deepEqual(body.results, {
      '2024-04-01': [[3.5, solidM3, 1, 40, 6, 0.75]], // 6000 mm·m² = 6 m³
      '2024-04-02': [[0, 0, 1, null, null, 0]],
    });
    // The flat table holds the same numbers, NaN for null.
    assert.deepEqual(
      [...columnTable(cube)],
      [3.5, solidM3, 1, 40, 6, 0.75, 0, 0, 1, Number.NaN, Number.NaN, 0],
    );
    // Computed a date at a time (a server's slices), the same table.
    assert.deepEqual(await columnTableSliced(cube), columnTable(cube));
  });

  it('cells: only those with area, unless empty zones are asked for (never an empty unclassified cell); US units add acres', () => {
    const zones = ['terrain.aspect']; // N, E, S, W, flat, unclassified
    const sums: Record<string, [number, number][][]> = {
      swe: [
        [
          [10, 1000],
          [0, 0],
          [0, 0],
          [20, 500],
          [0, 0],
          [0, 0],
        ],
      ],
    };
    const area = [10, 0, 0, 40, 0, 0];
    const q = { dates: parseDateRange('2024-04-01'), zones, variables: ['swe'] };
    const plain = compactOf(cubeOf(q, area, sums));
    assert.deepEqual(
      plain.zones.map((z) => [z.zone[0]!.kind, 'label' in z.zone[0]! ? z.zone[0].label : '', z.area_m2]),
      [
        ['class', 'N', 10],
        ['class', 'W', 40],
      ],
    );
    assert.deepEqual(plain.results['2024-04-01'], [
      [100, 1],
      [25, 0.5],
    ]);
    const all = compactOf(cubeOf({ ...q, includeEmptyZones: true }, area, sums));
    assert.equal(all.zones.length, 5, 'the five aspects, not the empty unclassified cell');
    assert.deepEqual(all.results['2024-04-01']![1], [null, null]);
    const withUnclassified = cubeOf(q, [10, 0, 0, 40, 0, 5], sums);
    assert.deepEqual(zonesOf(withUnclassified).at(-1), {
      zone: [{ kind: 'unclassified', layer: 'terrain.aspect' }],
      area_m2: 5,
    });
    const us = zonesOf(cubeOf({ ...q, units: 'us' }, area, sums));
    assert.deepEqual(
      us.map((z) => z.area_acres),
      [10 / M2_PER_ACRE, 40 / M2_PER_ACRE],
    );
  });
});
