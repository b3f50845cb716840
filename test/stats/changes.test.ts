/**
 * Change metrics (stats/changes.ts) on the generated `season` dataset (daily SWE and precipitation,
 * 20 Sep – 31 Dec 2023, 15 Nov missing): every value equals a recomputation here from the daily
 * band means and volumes `stats` reports (themselves checked against GDAL and numpy by the
 * history tests): 1-day and 7-day changes only between held days, gain and melt summed from
 * 1 October and null after the gap, water-year-to-date precipitation the same. CLI in-process
 * and the HTTP route.
 */
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { buildApp } from '../../src/api/app.js';
import { Database } from '../../src/db/database.js';
import { snowdb } from '../helpers/cli.js';
import { BASIN, coverDb, SEASON_GAP } from '../helpers/cover-db.js';
import { oracle as gdalOracle } from '../helpers/gdal.js';

type Value = number | null;
interface Body {
  variables: string[];
  zones: { zone: unknown[]; area_m2: number }[];
  results: Record<string, Value[][]>;
}
const DAY = 86_400_000;
const shift = (iso: string, n: number) => new Date(Date.parse(iso) + n * DAY).toISOString().slice(0, 10);
const near = (a: Value | undefined, b: Value) =>
  a === b || (typeof a === 'number' && b !== null && Math.abs(a - b) <= 1e-9 * Math.max(1, Math.abs(b)));

describe('change metrics', () => {
  let env: Record<string, string>;
  let daily: Body;
  before(async () => {
    env = { SNOWDB_CONFIG: `${(await coverDb()).dir}/db` };
    const r = await snowdb(
      ['stats', 'season', BASIN, '--dates', '2023-09-20/2023-12-31', '--zone', 'terrain.elevation'],
      {
        env,
      },
    );
    assert.equal(r.code, 0, r.stderr);
    daily = JSON.parse(r.stdout) as Body;
  });
  const changes = async (...args: string[]) => {
    const r = await snowdb(['changes', 'season', BASIN, '--zone', 'terrain.elevation', ...args], { env });
    assert.equal(r.code, 0, r.stderr);
    return JSON.parse(r.stdout) as Body & { variable: string };
  };

  it('the daily inputs equal GDAL + numpy: the same cells, areas, SWE and precipitation per band', async () => {
    const root = env.SNOWDB_CONFIG!;
    const key = (z: Body['zones'][number]) => {
      const ref = z.zone[0] as { kind: string; min?: number };
      return ref.kind === 'band' ? String(ref.min) : 'unclassified';
    };
    for (const [variable, scale, mean, total, perUnit] of [
      ['swe', '1', 'mean_swe_mm', 'total_swe_m3', 0.001],
      ['precip_solid', '10', 'mean_precip_solid_kg_per_m2', 'total_precip_solid_m3', 0.001],
    ] as const) {
      const o = await gdalOracle<Record<string, { area_m2: number; mean: number | null; sum: number }>>(
        'zonal',
        join(root, 'data/season/aoi/LINE_UT_TEST.tif'),
        join(root, `data/season/cogs/20231120/${variable}.tif`),
        scale,
        join(root, 'data/season/zones/terrain/elevation.tif'),
        '1000',
      );
      assert.deepEqual(daily.zones.map(key).sort(), Object.keys(o).sort(), `${variable}: the same cells`);
      daily.zones.forEach((z, k) => {
        const c = o[key(z)]!;
        const row = daily.results['2023-11-20']![k]!;
        const near = (a: Value | undefined, b: number) =>
          typeof a === 'number' && Math.abs(a - b) <= 1e-9 * Math.max(1, Math.abs(b));
        assert.ok(near(z.area_m2, c.area_m2), `${variable} ${key(z)} area`);
        assert.ok(near(row[daily.variables.indexOf(mean)], c.mean!), `${variable} ${key(z)} mean`);
        assert.ok(near(row[daily.variables.indexOf(total)], c.sum * perUnit), `${variable} ${key(z)} volume`);
      });
    }
  });

  /** The recomputation: per cell and date, the answer's columns from the daily table. */
  function expected(date: string, k: number): Value[] {
    const v = (d: string, name: string): Value =>
      daily.results[d]?.[k]?.[daily.variables.indexOf(name)] ?? null;
    const diff = (a: Value, b: Value) => (a === null || b === null ? null : a - b);
    const out: Value[] = [];
    for (const [stat, solid, liquid] of [
      ['mean_swe_mm', 'mean_precip_solid_kg_per_m2', 'mean_precip_liquid_kg_per_m2'],
      ['total_swe_m3', 'total_precip_solid_m3', 'total_precip_liquid_m3'],
    ] as const) {
      let gain: Value = 0;
      let melt: Value = 0;
      let wet: Value = 0;
      for (let d = '2023-10-01'; d <= date; d = shift(d, 1)) {
        const step = d === '2023-10-01' ? 0 : diff(v(d, stat), v(shift(d, -1), stat));
        gain = gain === null || step === null || v(d, stat) === null ? null : gain + Math.max(0, step);
        melt = melt === null || step === null || v(d, stat) === null ? null : melt + Math.max(0, -step);
        const day = v(d, solid) === null || v(d, liquid) === null ? null : v(d, solid)! + v(d, liquid)!;
        wet = wet === null || day === null ? null : wet + day;
      }
      out.push(
        v(date, stat),
        diff(v(date, stat), v(shift(date, -1), stat)),
        diff(v(date, stat), v(shift(date, -7), stat)),
      );
      out.push(gain, melt, wet);
    }
    return out;
  }

  it('equals a recomputation from the daily stats, a gap making values null rather than spanning it', async () => {
    const body = await changes('--dates', '2023-10-01/2023-12-31');
    assert.deepEqual(body.variables, [
      'mean_swe_mm',
      'change_1d_mean_swe_mm',
      'change_7d_mean_swe_mm',
      'gain_mean_swe_mm',
      'melt_mean_swe_mm',
      'wytd_mean_precip_kg_per_m2',
      'total_swe_m3',
      'change_1d_total_swe_m3',
      'change_7d_total_swe_m3',
      'gain_total_swe_m3',
      'melt_total_swe_m3',
      'wytd_total_precip_m3',
    ]);
    assert.deepEqual(body.zones, daily.zones);
    const dates = Object.keys(body.results);
    assert.equal(dates.length, 91); // 1 Oct – 31 Dec less the gap
    assert.ok(!dates.includes(SEASON_GAP));
    let compared = 0;
    for (const date of dates)
      body.zones.forEach((_z, k) => {
        const want = expected(date, k);
        const got = body.results[date]![k]!;
        want.forEach((w, c) => {
          assert.ok(near(got[c], w), `${date} cell ${k} ${body.variables[c]}: ${got[c]} ≠ ${w}`);
          compared++;
        });
      });
    assert.ok(compared > 3000);
    const at = (date: string, name: string) => body.results[date]![0]![body.variables.indexOf(name)];
    // Around the gap: no difference over two days, no cumulative value after it.
    assert.equal(at('2023-11-16', 'change_1d_mean_swe_mm'), null);
    assert.equal(at('2023-11-22', 'change_7d_mean_swe_mm'), null);
    assert.equal(typeof at('2023-11-23', 'change_7d_mean_swe_mm'), 'number');
    assert.equal(typeof at('2023-11-14', 'gain_mean_swe_mm'), 'number');
    assert.equal(at('2023-11-16', 'gain_mean_swe_mm'), null);
    assert.equal(at('2023-12-31', 'wytd_total_precip_m3'), null);
    // 1 October: no gain yet, precipitation of that day; its 7-day change reaches into September.
    assert.equal(at('2023-10-01', 'gain_mean_swe_mm'), 0);
    assert.equal(typeof at('2023-10-01', 'change_7d_mean_swe_mm'), 'number');
    // Gain less melt is the change since 1 October (before the gap).
    const since = (at('2023-11-10', 'mean_swe_mm') as number) - (at('2023-10-01', 'mean_swe_mm') as number);
    const net =
      (at('2023-11-10', 'gain_mean_swe_mm') as number) - (at('2023-11-10', 'melt_mean_swe_mm') as number);
    assert.ok(Math.abs(net - since) < 1e-9, `${net} vs ${since}`);
    assert.ok((at('2023-11-10', 'melt_mean_swe_mm') as number) > 0, 'the generated season melts too');
  });

  it('a short range reads back to 1 October: the same numbers as the whole season', async () => {
    const whole = await changes('--dates', '2023-10-01/2023-12-31');
    const part = await changes('--dates', '2023-11-05/2023-11-08');
    assert.deepEqual(Object.keys(part.results), ['2023-11-05', '2023-11-06', '2023-11-07', '2023-11-08']);
    for (const d of Object.keys(part.results)) assert.deepEqual(part.results[d], whole.results[d]);
    const us = await changes('--dates', '2023-11-05/2023-11-05', '--units', 'us');
    assert.ok(
      us.variables.includes('gain_total_swe_acre_ft') && us.variables.includes('wytd_mean_precip_in'),
    );
  });

  describe('over HTTP', () => {
    let app: Awaited<ReturnType<typeof buildApp>>;
    before(async () => {
      app = await buildApp(await Database.open(env.SNOWDB_CONFIG!));
    });
    after(() => app.close());
    const url = (q: string) => `/datasets/season/stats/${BASIN}/changes?zone=terrain.elevation&${q}`;

    it('answers as the CLI does, in JSON and CSV; a variable without a volume is refused', async () => {
      const r = await app.inject({ method: 'GET', url: url('datetime=2023-11-01/2023-11-30') });
      assert.equal(r.statusCode, 200, r.body);
      const { links: _l, pourpoint, dataset: _d, ...body } = r.json() as Body & Record<string, unknown>;
      assert.equal(pourpoint, BASIN);
      assert.deepEqual(body, await changes('--dates', '2023-11-01/2023-11-30'));
      const etag = r.headers.etag as string;
      assert.ok(etag.length < 100, etag); // the selected dates hashed, not listed
      const again = await app.inject({
        method: 'GET',
        url: url('datetime=2023-11-01/2023-11-30'),
        headers: { 'if-none-match': etag },
      });
      assert.equal(again.statusCode, 304);
      const other = await app.inject({ method: 'GET', url: url('datetime=2023-11-01/2023-11-29') });
      assert.notEqual(other.headers.etag, etag, 'another selection, another ETag');
      const csv = await app.inject({ method: 'GET', url: url('datetime=2023-11-01/2023-11-30&f=csv') });
      const lines = csv.body.trimEnd().split('\r\n');
      assert.equal(
        lines[0]!.split(',').slice(0, 4).join(','),
        'date,terrain.elevation_min_ft,terrain.elevation_max_ft,area_m2',
      );
      assert.equal(lines.length, 1 + 29 * (body as Body).zones.length);
      const bad = await app.inject({ method: 'GET', url: url('datetime=2023-11-01&variable=precip_solid') });
      assert.equal(bad.statusCode, 200, 'precipitation is a water variable too');
      const none = await snowdb(['changes', 'cover', BASIN, '--variable', 'snow_fraction'], { env });
      assert.equal(none.code, 1);
      assert.match(
        none.stderr,
        /change metrics need a water variable of 'cover' \(none\), not 'snow_fraction'/,
      );
    });
  });
});
