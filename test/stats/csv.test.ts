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
});
