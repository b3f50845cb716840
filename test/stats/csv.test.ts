import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { csvLines } from '../../src/stats/csv.js';

describe('stats CSV', () => {
  it('the header comes from the axes even when no cell is emitted; nulls are empty fields', () => {
    const empty = [
      ...csvLines({
        zone_layers: ['terrain.elevation', 'terrain.northness', 'landcover.forest_cover', 'terrain.aspect'],
        variables: ['mean_swe_mm'],
        zones: [],
        results: { '2024-01-01': [] },
      }),
    ];
    assert.deepEqual(empty, [
      'date,terrain.elevation_min_ft,terrain.elevation_max_ft,terrain.northness_min,terrain.northness_max,' +
        'landcover.forest_cover_side,landcover.forest_cover_threshold_%,terrain.aspect,area_m2,mean_swe_mm\r\n',
    ]);
    const rows = [
      ...csvLines({
        zone_layers: ['terrain.northness'],
        variables: ['mean_swe_mm', 'total_swe_m3'],
        zones: [
          {
            zone: [{ kind: 'band', layer: 'terrain.northness', min: -1, max: -0.5, unit: null }],
            area_m2: 2.5,
          },
        ],
        results: { '2024-01-01': [[12.25, null]] },
      }),
    ];
    assert.equal(rows[1], '2024-01-01,-1,-0.5,2.5,12.25,\r\n');
  });

  it('the unclassified cell leaves number columns numeric: empty band bounds, named in text columns', () => {
    const lines = [
      ...csvLines({
        zone_layers: ['terrain.elevation', 'terrain.aspect', 'landcover.forest_cover'],
        variables: ['mean_swe_mm'],
        zones: [
          {
            zone: [
              { kind: 'band', layer: 'terrain.elevation', min: 7000, max: 8000, unit: 'ft' },
              { kind: 'class', layer: 'terrain.aspect', code: 1, label: 'N' },
              {
                kind: 'threshold',
                layer: 'landcover.forest_cover',
                threshold: 50,
                unit: '%',
                side: 'above',
                label: 'forest',
              },
            ],
            area_m2: 4,
          },
          {
            zone: [
              { kind: 'unclassified', layer: 'terrain.elevation' },
              { kind: 'unclassified', layer: 'terrain.aspect' },
              { kind: 'unclassified', layer: 'landcover.forest_cover' },
            ],
            area_m2: 1,
          },
        ],
        results: { '2024-01-01': [[10], [20]] },
      }),
    ];
    assert.deepEqual(lines.slice(1), [
      '2024-01-01,7000,8000,N,forest,50,4,10\r\n',
      '2024-01-01,,,unclassified,unclassified,,1,20\r\n',
    ]);
  });
});
