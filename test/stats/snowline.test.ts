/**
 * The snow line (stats/snowline.ts) on a generated SPIRES-like dataset over the Zion DEM: per
 * date, the answer equals a hand interpolation by the reference tool's rule (the first adjacent
 * pair of bands, pairs with a band without a value skipped, lower < threshold ≤ upper) over the
 * elevation-band means that `stats` reports for the same basin, dates and bands; dates built so
 * that there is no crossing (no snow, snow everywhere, no data), a crossing in the lowest pair,
 * and a ramp; thresholds 0, 1, 50 and 90, and a line of another variable (albedo).
 * CLI in-process and the HTTP route (JSON, CSV, errors) through `inject`. Also the snow-covered
 * area statistic of fraction variables (`total_<variable>_m2`).
 */
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { buildApp } from '../../src/api/app.js';
import { Database } from '../../src/db/database.js';
import { snowlineRow } from '../../src/stats/snowline.js';
import { snowdb } from '../helpers/cli.js';
import { BASIN, coverDb, DATES, REFERENCE_DATES } from '../helpers/cover-db.js';
import { oracle as gdalOracle } from '../helpers/gdal.js';

type Value = number | string | null;
interface Body {
  variables: string[];
  zones: { zone: { kind: string; min: number; max: number }[]; area_m2: number }[];
  results: Record<string, Value[][]>;
}
interface RefLine {
  elevation_ft: number;
  lower_band_area_m2: number;
  higher_band_area_m2: number;
  interpolation_span_ft: number;
}
/** The snow line's body: the reference's members and snowdb's rows. */
interface LineBody extends Omit<Body, 'results'> {
  threshold: number;
  threshold_unit: string;
  band_step_ft: number;
  query: unknown;
  results: Record<string, RefLine | null>;
  rows: Record<string, Value[][]>;
}

describe('snow line', () => {
  let env: Record<string, string>;
  let low: number;
  let bands: Body;
  before(async () => {
    const fx = await coverDb();
    env = { SNOWDB_CONFIG: `${fx.dir}/db` };
    low = fx.low;
    const r = await snowdb(
      ['stats', 'cover', BASIN, '--variable', 'snow_fraction', '--zone', 'terrain.elevation'],
      {
        env,
      },
    );
    assert.equal(r.code, 0, r.stderr);
    bands = JSON.parse(r.stdout) as Body;
  });

  /**
   * The hand computation, the reference's rule: every band of the basin ascending, the first
   * adjacent pair both with a value that date with lo < T ≤ hi.
   */
  const byHand = (of: Body, date: string, t: number) => {
    const rows = of.results[date]!;
    const all = of.zones
      .map((z, k) => ({ ref: z.zone[0]!, area: z.area_m2, value: rows[k]![0] as number | null }))
      .filter((b) => b.ref.kind === 'band');
    for (let i = 0; i + 1 < all.length; i++) {
      const [lo, hi] = [all[i]!, all[i + 1]!];
      if (lo.value === null || hi.value === null) continue;
      if (lo.value < t && t <= hi.value) {
        const [cLo, cHi] = [(lo.ref.min + lo.ref.max) / 2, (hi.ref.min + hi.ref.max) / 2];
        return { ft: cLo + ((t - lo.value) / (hi.value - lo.value)) * (cHi - cLo), lo, hi, span: cHi - cLo };
      }
    }
    return null;
  };

  /** The whole body (`--details`), in 1000-ft bands (as `bands`) unless asked otherwise. */
  const line = async (...args: string[]) => {
    // The 2024 dates unless asked otherwise (the earlier years are the normals' reference).
    const dates = args.includes('--dates') ? [] : ['--dates', '2024-01-01/2024-01-06'];
    const step = args.includes('--band-step-ft') ? [] : ['--band-step-ft', '1000'];
    const r = await snowdb(['snowline', 'cover', BASIN, ...dates, ...step, ...args, '--details'], { env });
    assert.equal(r.code, 0, r.stderr);
    return JSON.parse(r.stdout) as LineBody;
  };

  /** Each date's row and reference answer against the hand computation over `of`. */
  const checkAgainst = (of: Body, body: LineBody, t: number, mean: string): number => {
    const col = (name: string) => body.variables.indexOf(name);
    let found = 0;
    for (const date of Object.keys(body.rows)) {
      const row = body.rows[date]![0]!;
      const want = byHand(of, date, t);
      if (want === null) {
        assert.equal(row[col('snowline_ft')], null, `${date} T=${t}`);
        assert.notEqual(row[col('crossing')], 'found');
        assert.equal(body.results[date], null, `${date} T=${t}`);
        continue;
      }
      found++;
      assert.equal(row[col('crossing')], 'found', `${date} T=${t}`);
      assert.ok(Math.abs((row[col('snowline_ft')] as number) - want.ft) < 1e-9, `${date} T=${t}`);
      assert.ok(Math.abs((row[col('snowline_m')] as number) - want.ft / 3.28084) < 1e-9);
      assert.equal(row[col('lower_band_min_ft')], want.lo.ref.min);
      assert.equal(row[col('upper_band_max_ft')], want.hi.ref.max);
      assert.equal(row[col('lower_band_area_m2')], want.lo.area);
      assert.equal(row[col(`upper_band_${mean}`)], want.hi.value);
      assert.equal(row[col('span_ft')], want.span);
      // The reference tool's members, from the same numbers.
      const ref = body.results[date]!;
      assert.deepEqual(Object.keys(ref), [
        'elevation_ft',
        'lower_band_area_m2',
        'higher_band_area_m2',
        'interpolation_span_ft',
      ]);
      assert.ok(Math.abs(ref.elevation_ft - want.ft) < 1e-9);
      assert.equal(ref.lower_band_area_m2, want.lo.area);
      assert.equal(ref.higher_band_area_m2, want.hi.area);
      assert.equal(ref.interpolation_span_ft, want.span);
    }
    return found;
  };

  it("equals a hand interpolation by the reference's rule over the band means, at thresholds 0, 1, 50 and 90", async () => {
    assert.ok(bands.zones.filter((z) => z.zone[0]!.kind === 'band').length >= 3, 'the basin spans 3+ bands');
    let found = 0;
    for (const t of [0, 1, 50, 90]) {
      const body = await line('--threshold', String(t));
      assert.equal(body.threshold, t);
      assert.equal(body.threshold_unit, 'percent');
      assert.equal(body.band_step_ft, 1000);
      assert.deepEqual(body.query, { type: 'DateRange', start_date: '2024-01-01', end_date: '2024-01-06' });
      assert.deepEqual(Object.keys(body.results), DATES);
      found += checkAgainst(bands, body, t, 'mean_snow_fraction_percent');
    }
    assert.ok(found >= 6, `${found} lines found`);
  });

  it('prints {date: line in ft | null} as the reference command does', async () => {
    const r = await snowdb(
      ['snowline', 'cover', BASIN, '--dates', '2024-01-01/2024-01-06', '--band-step-ft', '1000'],
      { env },
    );
    assert.equal(r.code, 0, r.stderr);
    const printed = JSON.parse(r.stdout) as Record<string, number | null>;
    const body = await line();
    assert.deepEqual(
      printed,
      Object.fromEntries(DATES.map((d) => [d, body.results[d]?.elevation_ft ?? null])),
    );
  });

  it('names why there is no line, and finds a crossing in the lowest pair', async () => {
    const body = await line('--threshold', '50');
    const col = (name: string) => body.variables.indexOf(name);
    const at = (date: string, name: string) => body.rows[date]![0]![col(name)];
    assert.equal(at('2024-01-02', 'crossing'), 'all_below'); // no snow
    assert.equal(at('2024-01-03', 'crossing'), 'all_above'); // snow down to the basin's bottom
    assert.equal(at('2024-01-06', 'crossing'), 'no_data');
    // Only the lowest band bare: the line lies halfway between the centres of the two lowest bands.
    assert.equal(at('2024-01-04', 'lower_band_min_ft'), low);
    // (Means of 0 and 100 over float weights: equal to ~1e-13.)
    assert.ok(Math.abs((at('2024-01-04', 'snowline_ft') as number) - (low + 1000)) < 1e-9);
    // Threshold 0: no band is below it, so no line (the reference's lower < threshold); threshold 1
    // is where snow begins: 1 % of the way from the bare band's centre to the next one's.
    const zero = await line('--threshold', '0', '--dates', '2024-01-04/2024-01-04');
    assert.deepEqual(zero.results, { '2024-01-04': null });
    assert.equal(zero.rows['2024-01-04']![0]![col('crossing')], 'all_above');
    const one = await line('--threshold', '1', '--dates', '2024-01-04/2024-01-04');
    assert.ok(Math.abs(one.results['2024-01-04']!.elevation_ft - (low + 510)) < 1e-9);
    // The step at 6000 ft, in 500-ft bands (the default): the line lies within a band of 6000 ft.
    const fine = await line('--band-step-ft', '500', '--dates', '2024-01-01/2024-01-01');
    assert.equal(fine.band_step_ft, 500);
    const ft = fine.rows['2024-01-01']![0]![col('snowline_ft')] as number;
    assert.ok(Math.abs(ft - 6000) <= 500, `${ft}`);
  });

  it('a band without a value between a bare and a snowy one: no line (the pair is skipped), crossing gap', () => {
    const b = (min: number, value: number | null) => ({ min, max: min + 1000, value, area: 1e6 });
    const row = snowlineRow([b(5000, 10), b(6000, null), b(7000, 80)], 50);
    assert.deepEqual(row.slice(0, 3), [null, null, 'gap']);
    // Falling with elevation; and the first crossing pair wins over a later one.
    assert.equal(snowlineRow([b(5000, 90), b(6000, 10)], 50)[2], 'from_above_only');
    const first = snowlineRow([b(5000, 0), b(6000, 100), b(7000, 0), b(8000, 100)], 50);
    assert.equal(first[0], 6000); // centres 5500 and 6500, halfway
    assert.equal(snowlineRow([b(5000, 40), b(6000, 50)], 50)[0], 6500); // threshold ≤ upper: at its centre
  });

  it('a line of any variable (albedo), at thresholds from its own values, by the same rule', async () => {
    const r = await snowdb(['stats', 'cover', BASIN, '--variable', 'albedo', '--zone', 'terrain.elevation'], {
      env,
    });
    assert.equal(r.code, 0, r.stderr);
    const albedo = JSON.parse(r.stdout) as Body;
    const mean = albedo.variables[0]!;
    const values = Object.values(albedo.results)
      .flatMap((rows) => rows.map((x) => x[0]))
      .filter((v): v is number => typeof v === 'number')
      .sort((x, y) => x - y);
    let found = 0;
    for (const t of [values[Math.floor(values.length / 3)]!, values[Math.floor((2 * values.length) / 3)]!]) {
      const body = await line('--variable', 'albedo', '--threshold', String(t));
      assert.equal(body.threshold_unit, mean.slice('mean_albedo_'.length));
      found += checkAgainst(albedo, body, t, mean);
    }
    assert.ok(found >= 1, `${found} albedo lines`);
  });

  it('a basin of fewer than two bands is refused, naming band_step_ft', async () => {
    const r = await snowdb(['snowline', 'cover', BASIN, '--band-step-ft', '20000'], { env });
    assert.equal(r.code, 1);
    assert.match(
      r.stderr,
      /the basin spans 1 elevation band of 20000 ft with terrain: a snow line needs two; ask for a smaller band_step_ft/,
    );
  });

  it("normals: the median of the reference years' snow lines on the same day, and how many had one", async () => {
    const refs = await line('--dates', '2021-01-01/2023-12-31');
    assert.deepEqual(Object.keys(refs.rows), REFERENCE_DATES);
    const ft = refs.variables.indexOf('snowline_ft');
    const lines = REFERENCE_DATES.map((d) => refs.rows[d]![0]![ft] as number).sort((a, b) => a - b);
    assert.ok(
      lines.every((v) => typeof v === 'number'),
      'each reference year has a line',
    );
    const body = await line('--dates', '2024-01-04/2024-01-05', '--with-normals');
    assert.deepEqual(
      (body as unknown as { reference: { water_years: number[] } }).reference.water_years,
      [2021, 2022, 2023],
    );
    const col = (name: string) => body.variables.indexOf(name);
    const on5 = body.rows['2024-01-05']![0]!;
    assert.ok(Math.abs((on5[col('median_snowline_ft')] as number) - lines[1]!) < 1e-9);
    assert.ok(Math.abs((on5[col('median_snowline_m')] as number) - lines[1]! / 3.28084) < 1e-9);
    assert.equal(on5[col('snowline_years')], 3);
    // No reference year holds 4 January: no median.
    assert.deepEqual(body.rows['2024-01-04']![0]!.slice(col('median_snowline_ft')), [null, null, 0]);
    // Two reference years: the mean of the two middle (here both) lines.
    const two = await line(
      '--dates',
      '2024-01-05/2024-01-05',
      '--with-normals',
      '--normals-years',
      '2022..2023',
    );
    const pair = ['2022-01-05', '2023-01-05'].map((d) => refs.rows[d]![0]![ft] as number);
    assert.ok(
      Math.abs(
        (two.rows['2024-01-05']![0]![col('median_snowline_ft')] as number) - (pair[0]! + pair[1]!) / 2,
      ) < 1e-9,
    );
  });

  it('snow-covered area: total_snow_fraction_m2 per band = mean ÷ 100 × the band area; acres with US units', async () => {
    const col = (name: string) => bands.variables.indexOf(name);
    assert.deepEqual(bands.variables, ['mean_snow_fraction_percent', 'total_snow_fraction_m2']);
    for (const date of DATES) {
      bands.zones.forEach((z, k) => {
        const [mean, total] = [col('mean_snow_fraction_percent'), col('total_snow_fraction_m2')].map(
          (c) => bands.results[date]![k]![c] as number | null,
        );
        if (date === '2024-01-06') {
          assert.deepEqual([mean, total], [null, null]); // no data
          return;
        }
        // Every pixel of the basin has a value: the valid area is the zone's area.
        assert.ok(Math.abs(total! - (mean! / 100) * z.area_m2) <= 1e-9 * z.area_m2, `${date} zone ${k}`);
      });
    }
    // Against GDAL + numpy (the AOI weights × each COG, per 1000-ft band): the same cells, areas,
    // means and covered areas (Σ % × weight ÷ 100), on the ramp, the step and full cover.
    const root = env.SNOWDB_CONFIG!;
    for (const date of ['2024-01-01', '2024-01-03', '2024-01-05']) {
      const o = await gdalOracle<Record<string, { area_m2: number; mean: number | null; sum: number }>>(
        'zonal',
        join(root, 'data/cover/aoi/LINE_UT_TEST.tif'),
        join(root, `data/cover/cogs/${date.replaceAll('-', '')}/snow_fraction.tif`),
        '1',
        join(root, 'data/cover/zones/terrain/elevation.tif'),
        '1000',
      );
      const key = (z: Body['zones'][number]) =>
        z.zone[0]!.kind === 'band' ? String(z.zone[0]!.min) : 'unclassified';
      assert.deepEqual(bands.zones.map(key).sort(), Object.keys(o).sort(), `${date}: the same cells`);
      bands.zones.forEach((z, k) => {
        const c = o[key(z)]!;
        const row = bands.results[date]![k]!;
        const near = (a: number, b: number) => Math.abs(a - b) <= 1e-9 * Math.max(1, Math.abs(b));
        assert.ok(near(z.area_m2, c.area_m2), `${date} ${key(z)} area`);
        assert.ok(near(row[col('mean_snow_fraction_percent')] as number, c.mean!), `${date} ${key(z)} mean`);
        assert.ok(
          near(row[col('total_snow_fraction_m2')] as number, c.sum / 100),
          `${date} ${key(z)} area covered`,
        );
      });
    }
    // Snow everywhere: the covered area is the basin's; none: zero.
    const sum = (date: string) =>
      bands.results[date]!.reduce((t, row) => t + (row[col('total_snow_fraction_m2')] as number), 0);
    const basin = bands.zones.reduce((t, z) => t + z.area_m2, 0);
    assert.ok(Math.abs(sum('2024-01-03') - basin) <= 1e-9 * basin);
    assert.equal(sum('2024-01-02'), 0);
    const us = await snowdb(
      [
        'stats',
        'cover',
        BASIN,
        '--variable',
        'snow_fraction',
        '--zone',
        'terrain.elevation',
        '--units',
        'us',
      ],
      { env },
    );
    const usBody = JSON.parse(us.stdout) as Body;
    assert.deepEqual(usBody.variables, ['mean_snow_fraction_percent', 'total_snow_fraction_acres']);
    const [m2, acres] = [
      bands.results['2024-01-05']![0]![1] as number,
      usBody.results['2024-01-05']![0]![1] as number,
    ];
    assert.ok(Math.abs(acres - m2 / 4046.8564224) <= 1e-12 * m2);
  });

  it("snow-covered area against normal: the median of the reference years' areas on the day, and its %", async () => {
    const args = ['stats', 'cover', BASIN, '--variable', 'snow_fraction'];
    const refs = await snowdb([...args, '--dates', '2021-01-01/2023-12-31'], { env });
    const r = JSON.parse(refs.stdout) as Body;
    const areas = REFERENCE_DATES.map(
      (d) => r.results[d]![0]![r.variables.indexOf('total_snow_fraction_m2')] as number,
    );
    const now = await snowdb([...args, '--dates', '2024-01-05/2024-01-05', '--with-normals'], { env });
    assert.equal(now.code, 0, now.stderr);
    const b = JSON.parse(now.stdout) as Body;
    const row = b.results['2024-01-05']![0]!;
    const median = [...areas].sort((x, y) => x - y)[1]!;
    assert.ok(
      Math.abs((row[b.variables.indexOf('median_total_snow_fraction_m2')] as number) - median) <=
        1e-9 * median,
    );
    const area = row[b.variables.indexOf('total_snow_fraction_m2')] as number;
    assert.ok(
      Math.abs(
        (row[b.variables.indexOf('pct_median_total_snow_fraction_m2')] as number) - (100 * area) / median,
      ) < 1e-9,
    );
  });

  describe('over HTTP', () => {
    let app: Awaited<ReturnType<typeof buildApp>>;
    before(async () => {
      app = await buildApp(await Database.open(env.SNOWDB_CONFIG!));
    });
    after(() => app.close());
    const url = (q: string) => `/datasets/cover/snowline/${BASIN}/date-range?${q}`;

    it('answers as the CLI does, in JSON and CSV, with an ETag; the reference defaults and members', async () => {
      const q = 'datetime=2024-01-01/2024-01-06&threshold=50&band_step_ft=1000';
      const r = await app.inject({ method: 'GET', url: url(q) });
      assert.equal(r.statusCode, 200, r.body);
      const { links, pourpoint, dataset, ...body } = r.json() as LineBody & Record<string, unknown>;
      assert.equal(pourpoint, BASIN);
      assert.equal(dataset, 'cover');
      assert.ok(Array.isArray(links));
      assert.deepEqual(body, await line('--threshold', '50'));
      const again = await app.inject({
        method: 'GET',
        url: url(q),
        headers: { 'if-none-match': r.headers.etag as string },
      });
      assert.equal(again.statusCode, 304);
      const csv = await app.inject({
        method: 'GET',
        url: url('datetime=2024-01-01/2024-01-06&band_step_ft=1000&f=csv'),
      });
      assert.equal(csv.statusCode, 200);
      const lines = csv.body.trimEnd().split('\r\n');
      assert.equal(lines[0], ['date', 'area_m2', ...body.variables].join(','));
      assert.equal(lines.length, 1 + DATES.length);
      assert.match(lines[3]!, /^2024-01-03,[\d.e+]+,,,all_above,/);
      // A client of the reference sends allow_partial and no band step: 500-ft bands, threshold 50 %.
      const plain = await app.inject({ method: 'GET', url: url('datetime=2024-01-04&allow_partial=true') });
      assert.equal(plain.statusCode, 200, plain.body);
      const p = plain.json() as LineBody & { pourpoint: string; dataset: string };
      assert.deepEqual(
        [p.pourpoint, p.dataset, p.threshold, p.threshold_unit, p.band_step_ft],
        [BASIN, 'cover', 50, 'percent', 500],
      );
      assert.deepEqual(p.query, { type: 'DateRange', start_date: '2024-01-04', end_date: '2024-01-04' });
      assert.deepEqual(p.results, (await line('--band-step-ft', '500', '--dates', '2024-01-04')).results);
    });

    it("stats takes allow_partial as the reference's clients send it: the same answer", async () => {
      const stats = `/datasets/cover/stats/${BASIN}/date-range?datetime=2024-01-01/2024-01-06&zone=terrain.elevation`;
      const [plain, partial] = await Promise.all([
        app.inject(stats),
        app.inject(`${stats}&allow_partial=true`),
      ]);
      assert.equal(partial.statusCode, 200, partial.body);
      const drop = (b: Record<string, unknown>) => ({ ...b, links: undefined });
      assert.deepEqual(drop(partial.json()), drop(plain.json()));
    });

    it('refuses a fraction threshold outside [0, 100], a variable the dataset lacks, and a bad number', async () => {
      const bad = await app.inject({ method: 'GET', url: url('datetime=2024-01-01&threshold=101') });
      assert.equal(bad.statusCode, 422, bad.body);
      assert.match(bad.headers['content-type'] as string, /problem\+json/);
      assert.match(
        bad.json().detail,
        /threshold must lie in \[0, 100\] percent for 'snow_fraction', got 101/,
      );
      const nope = await app.inject({ method: 'GET', url: url('datetime=2024-01-01&variable=nope') });
      assert.ok(nope.statusCode >= 400 && nope.statusCode < 500, nope.body);
      assert.match(nope.json().detail, /'cover' has no variable 'nope'; its variables: .*snow_fraction/);
      const r = await snowdb(['snowline', 'cover', BASIN, '--threshold', 'half'], { env });
      assert.equal(r.code, 1);
      assert.match(r.stderr, /--threshold: expected a number, got 'half'/);
    });
  });
});
