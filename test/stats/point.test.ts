/**
 * A point (stats/point.ts): the grid cell holding a lon/lat position and its values per date,
 * checked against GDAL's LocationInfo (gdallocationinfo -wgs84: the same pixel and line, the same
 * stored value ÷ scale) on the generated `season` dataset; the cell of a sinusoidal grid against
 * PROJ (gdaltransform); units, CSV, HTTP and the errors.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { before, describe, it } from 'node:test';
import { buildApp } from '../../src/api/app.js';
import { footprintOf, gridOf } from '../../src/datasets/config.js';
import type { Dataset } from '../../src/datasets/registry.js';
import { TEMPLATES } from '../../src/datasets/templates.js';
import { Database } from '../../src/db/database.js';
import { datasetPaths } from '../../src/db/layout.js';
import { localStore } from '../../src/io/store.js';
import { parseDateRange } from '../../src/stats/dates.js';
import { executePoint, openPointPlan, planPoint } from '../../src/stats/point.js';
import { Runtime } from '../../src/util/runtime.js';
import { snowdb } from '../helpers/cli.js';
import { coverDb } from '../helpers/cover-db.js';
import { historyDb } from '../helpers/history-db.js';

interface Body {
  dataset: string;
  cell: { col: number; row: number; centre_lonlat: [number, number]; bounds_lonlat: number[] };
  variables: string[];
  results: Record<string, (number | null)[]>;
}

/** GDAL's pixel, line and value at lon/lat positions of a raster (one gdallocationinfo run). */
function locationInfo(path: string, positions: readonly (readonly [number, number])[]) {
  const xml = execFileSync('gdallocationinfo', ['-xml', '-wgs84', path], {
    input: positions.map(([lon, lat]) => `${lon} ${lat}\n`).join(''),
  }).toString();
  const reports = [...xml.matchAll(/pixel="(\d+)" line="(\d+)"[\s\S]*?<Value>(-?[\d.]+)<\/Value>/g)];
  assert.equal(reports.length, positions.length, xml);
  return reports.map((m) => ({ col: Number(m[1]), row: Number(m[2]), value: Number(m[3]) }));
}

describe('point: the grid cell holding a position', () => {
  let root: string;
  let env: Record<string, string>;
  before(async () => {
    root = `${(await coverDb()).dir}/db`;
    env = { SNOWDB_CONFIG: root };
  });
  const point = async (...args: string[]) => {
    const r = await snowdb(['point', 'season', ...args], { env });
    assert.equal(r.code, 0, r.stderr);
    return r.stdout;
  };
  // Inside, on a cell's west edge (+1e-9°), and on the grid's last row and column.
  const POSITIONS: [number, number][] = [
    [-113.05, 37.3],
    [-113.3 + 10 / 120 + 1e-9, 37.42],
    [-113.3 + 89.5 / 120, 37.55 - 59.5 / 120],
  ];

  it('each position: GDAL’s pixel and line, and every date’s stored value ÷ scale', async () => {
    const dates = ['2023-11-01', '2023-11-02', '2023-11-03'];
    const scale = { precip_liquid: 10, precip_solid: 10, swe: 1 };
    const names = ['precip_liquid', 'precip_solid', 'swe'] as const;
    const gdal = new Map(
      dates.flatMap((d) =>
        names.map((v) => [
          `${d} ${v}`,
          locationInfo(join(root, `data/season/cogs/${d.replaceAll('-', '')}/${v}.tif`), POSITIONS),
        ]),
      ),
    );
    for (const [p, [lon, lat]] of POSITIONS.entries()) {
      const body = JSON.parse(
        await point('--lon', String(lon), '--lat', String(lat), '--dates', '2023-11-01/2023-11-03'),
      ) as Body;
      assert.deepEqual(body.variables, ['precip_liquid_kg_per_m2', 'precip_solid_kg_per_m2', 'swe_mm']);
      assert.deepEqual(Object.keys(body.results), dates);
      for (const d of dates)
        for (const [i, v] of names.entries()) {
          const g = gdal.get(`${d} ${v}`)![p]!;
          assert.deepEqual([body.cell.col, body.cell.row], [g.col, g.row], `${lon},${lat}`);
          assert.equal(body.results[d]![i], g.value / scale[v], `${lon},${lat} ${d} ${v}`);
        }
      const [w, s, e, n] = body.cell.bounds_lonlat as [number, number, number, number];
      assert.ok(w <= lon && lon < e && s < lat && lat <= n, 'the cell holds the position');
      assert.ok(
        Math.abs(e - w - 1 / 120) < 1e-12 && Math.abs(body.cell.centre_lonlat[0] - (w + e) / 2) < 1e-12,
      );
    }
  });

  it('units, one variable, CSV; the HTTP answer is the CLI’s', async () => {
    const [lon, lat] = POSITIONS[0]!;
    const mm = JSON.parse(
      await point('--lon', String(lon), '--lat', String(lat), '--dates', '2023-11-10', '--variable', 'swe'),
    ) as Body;
    const inch = JSON.parse(
      await point(
        '--lon',
        String(lon),
        '--lat',
        String(lat),
        '--dates',
        '2023-11-10',
        '--variable',
        'swe',
        '--units',
        'us',
      ),
    ) as Body;
    assert.deepEqual(inch.variables, ['swe_in']);
    assert.equal(inch.results['2023-11-10']![0], (mm.results['2023-11-10']![0] as number) / 25.4);
    const csv = await point(
      '--lon',
      String(lon),
      '--lat',
      String(lat),
      '--dates',
      '2023-11-10/2023-11-11',
      '--format',
      'csv',
    );
    assert.equal(csv.split('\r\n')[0], 'date,precip_liquid_kg_per_m2,precip_solid_kg_per_m2,swe_mm');
    assert.equal(csv.split('\r\n').length, 3);
    const app = await buildApp(await Database.open(root));
    try {
      const r = await app.inject({
        method: 'GET',
        url: `/datasets/season/point?lon=${lon}&lat=${lat}&datetime=2023-11-10&variable=swe`,
      });
      assert.equal(r.statusCode, 200, r.body);
      const { links: _l, ...body } = r.json() as Body & { links: unknown };
      assert.deepEqual(body, mm);
      const outside = await app.inject({
        method: 'GET',
        url: '/datasets/season/point?lon=-100&lat=40&datetime=2023-11-10',
      });
      assert.equal(outside.statusCode, 422);
      assert.match(
        outside.json().detail,
        /lon -100, lat 40 lies outside the season grid \(90 × 60 cells, EPSG:4326\)/,
      );
      const off = await app.inject({
        method: 'GET',
        url: '/datasets/season/point?lon=200&lat=40&datetime=2023-11-10',
      });
      assert.equal(off.statusCode, 400);
      assert.match(off.json().detail, /lon/);
    } finally {
      await app.close();
    }
    const bad = await snowdb(['point', 'season', '--lon', 'west', '--lat', '37'], { env });
    assert.equal(bad.code, 1);
    assert.match(bad.stderr, /--lon: expected degrees, got 'west'/);
    const unknown = await snowdb(
      ['point', 'season', '--lon', String(lon), '--lat', String(lat), '--variable', 'depth'],
      { env },
    );
    assert.equal(unknown.code, 1);
    assert.match(
      unknown.stderr,
      /unknown variable 'depth' for 'season'; valid: precip_liquid, precip_solid, swe/,
    );
  });

  it('from the series store where it holds the cell: the same values as the COGs, 19 years of daily SWE', async () => {
    const env20 = await historyDb();
    const db = await Database.open(env20.SNOWDB_CONFIG!);
    const q = {
      dataset: 'hist',
      lon: -113.0,
      lat: 37.3,
      dates: parseDateRange('2004-10-01/2023-09-30'),
      variables: ['swe'],
    };
    const plan = await openPointPlan(db, q);
    assert.equal(plan.dates.length, 6939); // 19 water years, leap days included
    const before = db.runtime.report().caches.find((c) => c.name === 'series-blocks')!;
    const fromStore = await executePoint(plan);
    const after = db.runtime.report().caches.find((c) => c.name === 'series-blocks')!;
    assert.ok(after.misses + after.hits > before.misses + before.hits, 'the series store was read');
    // One water year from the COGs (a file per date: the slow path), the same numbers.
    const year = await openPointPlan(db, { ...q, dates: parseDateRange('2010-10-01/2011-09-30') });
    const fromCogs = await executePoint(year, { series: false });
    assert.equal(Object.keys(fromCogs.results).length, 365);
    for (const [d, row] of Object.entries(fromCogs.results)) assert.deepEqual(fromStore.results[d], row, d);
    for (const d of ['2011-04-01', '2016-02-29', '2023-09-30']) {
      const [g] = locationInfo(
        join(env20.SNOWDB_CONFIG!, `data/hist/cogs/${d.replaceAll('-', '')}/swe.tif`),
        [[q.lon, q.lat]],
      );
      assert.deepEqual([fromStore.cell.col, fromStore.cell.row], [g!.col, g!.row]);
      assert.equal(fromStore.results[d]![0], g!.value, d);
    }
    assert.ok((fromStore.results['2011-04-01']![0] as number) > 0, 'snow on 1 April 2011');
  });

  it('a sinusoidal grid (SPIRES): the cell PROJ finds for the position', async () => {
    const config = TEMPLATES.instarr!;
    const dir = '/db/data/instarr';
    const dataset: Dataset = {
      name: 'instarr',
      link: { path: 'data/instarr/dataset.json', active: true },
      configPath: `${dir}/dataset.json`,
      dir,
      paths: datasetPaths(dir),
      config,
      grid: gridOf(config),
      footprint: footprintOf(config),
      store: localStore,
      runtime: new Runtime(),
    };
    const g = dataset.grid;
    for (const [lon, lat] of [
      [-113.05, 37.3],
      [-106.9, 39.1],
      [-121.2, 46.8],
    ] as const) {
      const plan = planPoint(dataset, ['2025-04-01'], {
        dataset: 'instarr',
        lon,
        lat,
        dates: parseDateRange('../..'),
      });
      const xy = execFileSync('gdaltransform', ['-s_srs', 'EPSG:4326', '-t_srs', g.crs.proj4, '-output_xy'], {
        input: `${lon} ${lat}\n`,
      })
        .toString()
        .trim()
        .split(/\s+/)
        .map(Number);
      const col = Math.floor((xy[0]! - g.originX) / g.cellWidth);
      const row = Math.floor((g.originY - xy[1]!) / g.cellHeight);
      assert.deepEqual([plan.cell.col, plan.cell.row], [col, row], `${lon},${lat}`);
      const [w, s, e, n] = plan.cell.bounds_lonlat;
      assert.ok(w <= lon && lon <= e && s <= lat && lat <= n, `${lon},${lat} in ${plan.cell.bounds_lonlat}`);
    }
  });
});
