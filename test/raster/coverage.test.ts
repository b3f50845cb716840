import assert from 'node:assert/strict';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { quadrangleArea, rowAreas } from '../../src/raster/cell-area.js';
import { coverageWeights, polygonCoverage } from '../../src/raster/coverage.js';
import { crsFromEpsg, MODIS_SINUSOIDAL, WGS84 } from '../../src/raster/crs.js';
import { geodesicArea, ringGeodesicArea } from '../../src/raster/geodesic.js';
import type { AreaGeometry } from '../../src/raster/geometry.js';
import type { Grid } from '../../src/raster/grid.js';
import { tempDir } from '../helpers/cli.js';
import { oracle } from '../helpers/gdal.js';
import {
  assertCellsMatch,
  basinOf,
  fixturePath,
  gridSpec,
  SNODAS_GRID,
  SPIRES_GRID,
  SWANN_GRID,
} from '../helpers/raster.js';

const sum = (a: Float64Array) => a.reduce((s, v) => s + v, 0);
const rel = (a: number, b: number) => Math.abs(a - b) / Math.abs(b);

/** A projected 10 m grid for hand-computable coverage (geometry given in grid units). */
const utm: Grid = {
  crs: crsFromEpsg(32612)!,
  originX: 500000,
  originY: 4000000,
  cellWidth: 10,
  cellHeight: 10,
  width: 8,
  height: 6,
  tileSize: 16,
};
const square = (x0: number, y0: number, x1: number, y1: number, ccw = true) => {
  const r = [
    [x0, y0],
    [x1, y0],
    [x1, y1],
    [x0, y1],
    [x0, y0],
  ];
  return ccw ? r : r.reverse();
};

describe('cell areas', () => {
  it('the 30″ cell north of 40°N is 658,410.141 m² and matches geographiclib to 1e-9', () => {
    const a = quadrangleArea(WGS84, 40, 40 + 1 / 120, 1 / 120);
    assert.ok(Math.abs(a - 658410.141) < 0.001, String(a));
    const ring = [
      [-105, 40],
      [-105 + 1 / 120, 40],
      [-105 + 1 / 120, 40 + 1 / 120],
      [-105, 40 + 1 / 120],
    ];
    assert.ok(rel(a, Math.abs(ringGeodesicArea(ring))) < 1e-9);
  });

  it('per row on geographic grids, constant on projected ones', () => {
    const areas = rowAreas(SNODAS_GRID);
    assert.equal(areas.length, 3351);
    assert.ok(areas[0]! < areas[3350]!, 'cells grow toward the equator');
    assert.deepEqual([...new Set(rowAreas({ ...utm, height: 3 }))], [100]);
    const sinu: Grid = {
      ...utm,
      crs: MODIS_SINUSOIDAL,
      cellWidth: 463.3127165693847,
      cellHeight: 463.3127165693847,
    };
    assert.ok(Math.abs(rowAreas(sinu)[0]! - 214658.67) < 0.01);
  });
});

describe('exact coverage: hand-computable cases', () => {
  it('a square offset by half a cell covers quarters, halves and wholes, whatever its orientation', () => {
    for (const ccw of [true, false]) {
      const g: AreaGeometry = {
        type: 'Polygon',
        coordinates: [square(500005, 3999975, 500025, 3999995, ccw)],
      };
      const cov = polygonCoverage(utm, g, { input: 'grid' })!;
      assert.deepEqual(cov.window, { col: 0, row: 0, width: 3, height: 3 });
      assert.deepEqual([...cov.fractions], [0.25, 0.5, 0.25, 0.5, 1, 0.5, 0.25, 0.5, 0.25]);
      assert.equal(sum(coverageWeights(utm, cov)), 400);
    }
  });

  it('a triangle splits a cell on its diagonal; a hole subtracts', () => {
    const tri: AreaGeometry = {
      type: 'Polygon',
      coordinates: [
        [
          [500000, 4000000],
          [500010, 4000000],
          [500000, 3999990],
          [500000, 4000000],
        ],
      ],
    };
    assert.deepEqual([...polygonCoverage(utm, tri, { input: 'grid' })!.fractions], [0.5]);
    const holed: AreaGeometry = {
      type: 'Polygon',
      coordinates: [
        square(500000, 3999970, 500030, 4000000),
        square(500012.5, 3999982.5, 500017.5, 3999987.5, true),
      ],
    };
    const cov = polygonCoverage(utm, holed, { input: 'grid' })!;
    assert.deepEqual([...cov.fractions], [1, 1, 1, 1, 0.75, 1, 1, 1, 1]);
  });

  it('a polygon reaching past the grid covers only its in-grid part; one outside gives null', () => {
    const g: AreaGeometry = { type: 'Polygon', coordinates: [square(499000, 3999985, 500015, 4001000)] };
    const cov = polygonCoverage(utm, g, { input: 'grid' })!;
    assert.deepEqual(cov.window, { col: 0, row: 0, width: 2, height: 2 });
    assert.deepEqual([...cov.fractions], [1, 0.5, 0.5, 0.25]);
    assert.equal(
      polygonCoverage(utm, { type: 'Polygon', coordinates: [square(0, 0, 10, 10)] }, { input: 'grid' }),
      null,
    );
  });

  it('cells wholly outside a skewed polygon weigh exactly 0 and cells wholly inside exactly 1 (no carry drift)', () => {
    // A quadrilateral with vertices off every grid line on a 1 m grid: each row's carry sums pieces
    // such as 0.3 + 0.7 that are not exact in binary; a cell that no edge enters must still be 0 or 1.
    const g: Grid = { ...utm, cellWidth: 1, cellHeight: 1, width: 200, height: 200 };
    const [x0, y0] = [g.originX, g.originY];
    const quad = [
      [x0 + 10.3, y0 - 5.7],
      [x0 + 170.1, y0 - 20.9],
      [x0 + 185.7, y0 - 190.3],
      [x0 + 3.9, y0 - 160.1],
      [x0 + 10.3, y0 - 5.7],
    ];
    const cov = polygonCoverage(g, { type: 'Polygon', coordinates: [quad] }, { input: 'grid' })!;
    // Side of point (x, y) against each edge (counter-clockwise in y-up: inside = all > 0).
    const inside = (x: number, y: number) =>
      quad.slice(0, 4).every((p, i) => {
        const q = quad[i + 1]!;
        return (q[0]! - p[0]!) * (y - p[1]!) - (q[1]! - p[1]!) * (x - p[0]!) < 0;
      });
    const { col, row, width, height } = cov.window;
    let outside = 0;
    let whole = 0;
    for (let k = 0; k < height; k++)
      for (let c = 0; c < width; c++) {
        const cx = x0 + col + c;
        const cy = y0 - row - k;
        const corners = [
          [cx, cy],
          [cx + 1, cy],
          [cx, cy - 1],
          [cx + 1, cy - 1],
        ].map(([x, y]) => inside(x!, y!));
        const f = cov.fractions[k * width + c]!;
        // A convex polygon: all corners inside → the cell is inside; all outside with no vertex in
        // the cell and the cell not straddling an edge is checked by the edge tests below.
        if (corners.every(Boolean)) {
          whole++;
          assert.equal(f, 1, `cell ${c},${k} is wholly inside: ${f}`);
        } else if (
          !corners.some(Boolean) &&
          !quad.some(([x, y]) => x! > cx && x! < cx + 1 && y! < cy && y! > cy - 1)
        ) {
          const straddles = quad.slice(0, 4).some((p, i) => {
            const q = quad[i + 1]!;
            const side = ([x, y]: number[]) =>
              Math.sign((q[0]! - p[0]!) * (y! - p[1]!) - (q[1]! - p[1]!) * (x! - p[0]!));
            const s = [
              [cx, cy],
              [cx + 1, cy],
              [cx, cy - 1],
              [cx + 1, cy - 1],
            ].map(side);
            return s.some((v) => v > 0) && s.some((v) => v < 0);
          });
          if (!straddles) {
            outside++;
            assert.equal(f, 0, `cell ${c},${k} is wholly outside: ${f}`);
          }
        }
      }
    assert.ok(whole > 20000 && outside > 5000, `${whole} inside, ${outside} outside`);
  });

  it('a self-touching ring (a pinched loop) counts its pinched-off part as outside, as make_valid does', () => {
    // Shell around [0,30]² with a loop that touches the shell at one vertex and encloses (10..20)².
    const ring = [
      [500000, 3999970],
      [500030, 3999970],
      [500030, 4000000],
      [500015, 4000000],
      [500015, 3999990],
      [500020, 3999990],
      [500020, 3999980],
      [500010, 3999980],
      [500010, 3999990],
      [500015, 3999990],
      [500015, 4000000],
      [500000, 4000000],
      [500000, 3999970],
    ];
    const cov = polygonCoverage(utm, { type: 'Polygon', coordinates: [ring] }, { input: 'grid' })!;
    assert.deepEqual([...cov.fractions], [1, 1, 1, 1, 0, 1, 1, 1, 1]);
  });
});

describe('exact coverage of real BAGIS basins against independent oracles', () => {
  let dir: string;
  let cleanup: () => Promise<void>;
  before(async () => ({ dir, cleanup } = await tempDir('snowdb-coverage-')));
  after(() => cleanup());

  const basins = [
    '10311100:NV:USGS',
    '06091700:MT:USGS',
    '06043500:MT:USGS',
    '06301850:WY:USGS',
    '06302000:WY:USGS',
    '06287000:MT:USGS',
  ];
  for (const [name, grid] of [
    ['SNODAS', SNODAS_GRID],
    ['SWANN', SWANN_GRID],
  ] as const) {
    it(`Σ(fraction × cell area) equals the geodesic area (geographiclib) to 1e-6 on the ${name} grid`, async () => {
      for (const t of basins) {
        const basin = await basinOf(t);
        const cov = polygonCoverage(grid, basin)!;
        const total = sum(coverageWeights(grid, cov));
        const geodesic = geodesicArea(basin);
        assert.ok(rel(total, geodesic) < 1e-6, `${t}: ${total} vs ${geodesic} (rel ${rel(total, geodesic)})`);
      }
    });
  }

  it('the invalid-ring basin equals OGR MakeValid area (equal-area projection) to 1e-6', async () => {
    const t = '06043500:MT:USGS';
    const mv = await oracle<{ valid: boolean; area: number }>(
      'makevalid-area',
      fixturePath('pourpoints/06043500_MT_USGS.geojson'),
      String(WGS84.a),
      String(WGS84.invf),
    );
    assert.equal(mv.valid, false, 'the fixture really is invalid');
    const total = sum(coverageWeights(SNODAS_GRID, polygonCoverage(SNODAS_GRID, await basinOf(t))!));
    assert.ok(rel(total, mv.area) < 1e-6, `${total} vs ${mv.area}`);
  });

  // Real BAGIS records, from single rings to 4-part MultiPolygons and an invalid (self-touching) ring.
  const edgeBasins = [
    'pourpoints/10311100_NV_USGS.geojson',
    'pourpoints/06091700_MT_USGS.geojson',
    'pourpoints/06043500_MT_USGS.geojson',
    'pourpoints/06301850_WY_USGS.geojson',
    'pourpoints/150021_CA_USGS.geojson',
    'pourpoints/WHEATFLD_AZ_USGS.geojson',
    'pourpoints/09021000_CO_USGS.geojson',
    '../../demo/basins/10128500_UT_USGS.geojson',
    '../../demo/basins/10311200_NV_USGS.geojson',
    '../../demo/basins/09111500_CO_USGS.geojson',
    '../../demo/basins/NORTHCK_UT_DEMO.geojson',
  ];
  it('the cells with weight > 0 are exactly the cells OGR finds sharing area with the repaired basin, on the SNODAS, SWANN and SPIRES grids; weights agree to 1e-9', async () => {
    const grids: [string, Grid][] = [
      ['SNODAS', SNODAS_GRID],
      ['SWANN', SWANN_GRID],
      ['SPIRES', SPIRES_GRID],
    ];
    const jobs: { label: string; weights: Float64Array; job: object }[] = [];
    for (const rel of edgeBasins) {
      const file = fixturePath(rel);
      const rec = JSON.parse(await readFile(file, 'utf8')) as { geometries: { type: string }[] };
      const basin = rec.geometries.find((x) => x.type !== 'Point') as unknown as AreaGeometry;
      for (const [name, grid] of grids) {
        const cov = polygonCoverage(grid, basin)!;
        jobs.push({
          label: `${rel.split('/').pop()} on ${name}`,
          weights: coverageWeights(grid, cov),
          job: { geojson: file, grid: { ...gridSpec(grid), window: cov.window } },
        });
      }
    }
    const path = join(dir, 'jobs.json');
    await writeFile(path, JSON.stringify(jobs.map((j) => j.job)));
    const sets = await oracle<[number, number, number][][]>('cell-sets', path);
    let cells = 0;
    jobs.forEach(({ label, weights }, j) => {
      cells += assertCellsMatch(label, weights, sets[j]!);
    });
    assert.ok(cells > 30000, `${cells} cells compared`);
  });

  const perCell: [string, Grid][] = [
    ['SNODAS (geographic)', SNODAS_GRID],
    [
      'UTM 11N 100 m',
      {
        crs: crsFromEpsg(32611)!,
        originX: 200000,
        originY: 4400000,
        cellWidth: 100,
        cellHeight: 100,
        width: 4000,
        height: 4000,
        tileSize: 256,
      },
    ],
    [
      'MODIS sinusoid',
      {
        crs: MODIS_SINUSOIDAL,
        originX: -11119505.196666665,
        originY: 5559752.598333333,
        cellWidth: 463.3127165693847,
        cellHeight: 463.3127165693847,
        width: 7200,
        height: 4800,
        tileSize: 512,
      },
    ],
  ];
  for (const [name, grid] of perCell) {
    it(`per-cell fractions of a small basin equal OGR cell intersections to 1e-9: ${name}`, async () => {
      const file = fixturePath('pourpoints/10311100_NV_USGS.geojson');
      const cov = polygonCoverage(grid, await basinOf('10311100:NV:USGS'))!;
      const gridJson = join(dir, 'grid.json');
      await writeFile(gridJson, JSON.stringify({ ...gridSpec(grid), window: cov.window }));
      const cells = await oracle<[number, number][]>('cells', gridJson, file);
      assert.equal(cells.length, cov.fractions.length);
      const weights = coverageWeights(grid, cov);
      let touched = 0;
      cells.forEach(([inter, cellArea], i) => {
        const f = cov.fractions[i]!;
        assert.ok(Math.abs(f - inter / cellArea) < 1e-9, `cell ${i}: ${f} vs OGR ${inter / cellArea}`);
        if (grid.crs.geographic)
          assert.ok(
            Math.abs(weights[i]! - inter) <= 1e-9 * cellArea,
            `cell ${i} area ${weights[i]} vs ${inter}`,
          );
        if (f > 0 && f < 1) touched++;
      });
      assert.ok(touched > 10, `a boundary with partial cells (${touched})`);
    });
  }
});
