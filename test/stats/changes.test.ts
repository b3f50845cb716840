/**
 * Change metrics (stats/changes.ts) on the generated `season` dataset (daily SWE and precipitation,
 * 20 Sep – 31 Dec 2023, 15 Nov missing; October–December of 2021 and 2022, 20 Nov 2022 missing,
 * the reference years of its normals): every value equals a recomputation here from the daily
 * band means and volumes `stats` reports (themselves checked against GDAL and numpy by the
 * history tests): 1-day and 7-day changes only between held days, gain and melt summed from
 * 1 October and null after the gap, water-year-to-date precipitation the same, and the medians of
 * the cumulative ones over the reference years' same days. CLI in-process and the HTTP route.
 */
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { buildApp } from '../../src/api/app.js';
import { Database } from '../../src/db/database.js';
import { snowdb } from '../helpers/cli.js';
import { BASIN, coverDb, REFERENCE_GAP, SEASON_GAP } from '../helpers/cover-db.js';
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
      ['stats', 'season', BASIN, '--dates', '2021-10-01/2023-12-31', '--zone', 'terrain.elevation'],
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
      const october = `${Number(date.slice(0, 4)) - (date.slice(5) < '10-01' ? 1 : 0)}-10-01`;
      for (let d = october; d <= date; d = shift(d, 1)) {
        const step = d === october ? 0 : diff(v(d, stat), v(shift(d, -1), stat));
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

  it('with normals: the median of the reference years on the same day and % of it, for gain, melt and precipitation', async () => {
    const plain = await changes('--dates', '2023-10-01/2023-12-31');
    const body = (await changes('--dates', '2023-10-01/2023-12-31', '--with-normals')) as unknown as Body & {
      reference: { water_years: number[] };
    };
    assert.deepEqual(body.reference.water_years, [2022, 2023]);
    const cumulative = ['gain_mean_swe_mm', 'melt_mean_swe_mm', 'wytd_mean_precip_kg_per_m2'];
    const volumes = ['gain_total_swe_m3', 'melt_total_swe_m3', 'wytd_total_precip_m3'];
    const normals = (cs: string[]) => cs.flatMap((c) => [`median_${c}`, `pct_median_${c}`]);
    assert.deepEqual(body.variables, [
      ...plain.variables.slice(0, 6),
      ...normals(cumulative),
      ...plain.variables.slice(6),
      ...normals(volumes),
    ]);
    const median = (xs: number[]) => {
      const s = [...xs].sort((a, b) => a - b);
      return s.length === 0
        ? null
        : (s[Math.floor((s.length - 1) / 2)]! + s[Math.ceil((s.length - 1) / 2)]!) / 2;
    };
    let pcts = 0;
    let single = 0;
    for (const date of Object.keys(body.results))
      body.zones.forEach((z, k) => {
        const got = body.results[date]![k]!;
        const mine = expected(date, k);
        // The same day of each reference autumn: 2021 and 2022 (the reference water years 2022, 2023).
        const refs = ['2021', '2022'].map((y) => `${y}${date.slice(4)}`).filter((d) => daily.results[d]);
        const theirs = refs.map((d) => expected(d, k));
        [0, 1].forEach((kind) => {
          const floor = kind === 0 ? 2.54 : 2.54e-3 * z.area_m2; // 0.1 in of water, as a mean or over the cell
          const base = kind * 6;
          const at = (name: string) => got[body.variables.indexOf(name)];
          (kind === 0 ? cumulative : volumes).forEach((c, m) => {
            const values = theirs.map((t) => t[base + 3 + m]!).filter((x): x is number => x !== null);
            if (values.length === 1) single++;
            const med = median(values);
            const v = mine[base + 3 + m]!;
            const pct = v !== null && med !== null && med > 0 && med >= floor ? (100 * v) / med : null;
            assert.ok(near(at(c), v), `${date} ${k} ${c}`);
            assert.ok(
              near(at(`median_${c}`), med),
              `${date} ${k} median_${c}: ${at(`median_${c}`)} ≠ ${med}`,
            );
            assert.ok(
              near(at(`pct_median_${c}`), pct),
              `${date} ${k} pct_median_${c}: ${at(`pct_median_${c}`)} ≠ ${pct}`,
            );
            if (pct !== null) pcts++;
          });
        });
      });
    assert.ok(pcts > 1000, `${pcts} percentages`);
    // After 20 November 2022 only 2021's autumn has cumulative values: the median is that one year's.
    assert.ok(single > 100 && REFERENCE_GAP === '2022-11-20', `${single} medians of one year`);
    const row = body.results['2023-12-01']![0]!;
    const i = body.variables.indexOf('median_gain_mean_swe_mm');
    assert.ok(near(row[i], expected('2021-12-01', 0)[3]!), 'late autumn: the 2021 value alone');
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
      const withNormals = await app.inject({
        method: 'GET',
        url: url('datetime=2023-11-01/2023-11-30&normals=true&normals_years=2022..2023'),
      });
      const {
        links: _,
        pourpoint: _p,
        dataset: _x,
        ...normalsBody
      } = withNormals.json() as Record<string, unknown>;
      assert.deepEqual(
        normalsBody,
        await changes('--dates', '2023-11-01/2023-11-30', '--with-normals', '--normals-years', '2022..2023'),
      );
      assert.notEqual(withNormals.headers.etag, etag, 'normals, another ETag');
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
