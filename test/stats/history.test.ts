import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { buildApp } from '../../src/api/app.js';
import { Database } from '../../src/db/database.js';
import { M3_PER_ACRE_FOOT, MM_PER_INCH } from '../../src/stats/units.js';
import { cliOk, snowdb } from '../helpers/cli.js';
import { oracle as gdalOracle, historyOracle } from '../helpers/gdal.js';
import { FULL, HALF, historyDb } from '../helpers/history-db.js';

type Zone = { zone: { kind: string; min?: number }[]; area_m2: number };
interface Body {
  zone_layers: string[];
  variables: string[];
  zones: Zone[];
  results: Record<string, (number | string | null)[][]>;
  reference?: {
    start_water_year: number;
    end_water_year: number;
    water_years: number[];
    missing_water_years: number[];
  };
}
type Stat = Record<string, number | null>;
interface Oracle {
  normals: Record<string, Record<string, Record<'mean' | 'total', Stat>>>;
  anomalies: Record<string, Record<string, Record<'mean' | 'total', Stat>>>;
  summaries: Record<string, Record<string, Record<string, number | string | null>>>;
}

const close = (a: number | string | null | undefined, b: number | string | null | undefined, rel = 1e-9) =>
  typeof a === 'number' && typeof b === 'number'
    ? Math.abs(a - b) <= rel * Math.max(Math.abs(a), Math.abs(b)) + 1e-12
    : a === b;
/** The oracle's key of a cell: '0' (whole basin), a band's floor in ft, or 'unclassified'. */
const keyOf = (z: Zone) =>
  z.zone.length === 0 ? '0' : z.zone[0]!.kind === 'unclassified' ? 'unclassified' : String(z.zone[0]!.min);
const REFERENCE = '2004..2023';
const DAYS = ['10-01', '12-15', '02-28', '02-29', '03-01', '04-01', '06-30'];

describe('history: normals, % of median and ranks, water-year summaries, units, partial zones', () => {
  let env: Record<string, string>;
  let root: string;
  const ok = cliOk(() => env);
  const cli = async (...args: string[]): Promise<string> => (await ok(...args)).stdout;
  const json = async (...args: string[]) => JSON.parse(await cli(...args)) as Body;
  const oracle = (
    basin: string,
    zoned: boolean,
    anomalies: string[],
    summaries: string[],
    years = REFERENCE,
    meltOutBelow = '1',
  ) =>
    historyOracle<Oracle>(
      join(root, `data/hist/aoi/${basin.replaceAll(':', '_')}.tif`),
      join(root, 'data/hist/cogs'),
      zoned ? join(root, 'data/hist/zones/terrain/elevation.tif') : '-',
      zoned ? '1000' : '-',
      years,
      DAYS.join(','),
      anomalies.join(','),
      summaries.join(','),
      meltOutBelow,
    );

  before(async () => {
    env = await historyDb(); // shared and read-only: these tests only query it
    root = env.SNOWDB_CONFIG!;
  });

  it('normals: every complete water year by default; per day and cell equal to numpy over GDAL reads', async () => {
    for (const [basin, zoned] of [
      [FULL, false],
      [HALF, true],
    ] as const) {
      const b = await json('normals', 'hist', basin, ...(zoned ? ['--zone', 'terrain.elevation'] : []));
      // Water year 2024 (Oct–Jan only) is the current one: not a reference year by default.
      const twenty = Array.from({ length: 20 }, (_, i) => 2004 + i);
      assert.deepEqual(b.reference, {
        start_water_year: 2004,
        end_water_year: 2023,
        water_years: twenty,
        by_default: true,
        missing_water_years: [],
        column_water_years: Object.fromEntries(
          b.variables.filter((v) => v.startsWith('median_')).map((v) => [v.slice(7), twenty]),
        ),
      });
      const days = Object.keys(b.results);
      assert.equal(days.length, 366);
      assert.deepEqual([days[0], days[150], days[151], days[365]], ['10-01', '02-28', '02-29', '09-30']);
      assert.deepEqual(
        b.variables.slice(0, 7),
        ['median', 'mean', 'p10', 'p90', 'min', 'max', 'years'].map((s) => `${s}_mean_swe_mm`),
      );
      const o = await oracle(basin, zoned, [], []);
      for (const day of DAYS)
        b.zones.forEach((z, k) => {
          const row = b.results[day]![k]!;
          for (const [c, col] of (['mean', 'total'] as const).entries()) {
            const ref = o.normals[day]![keyOf(z)]![col];
            ['median', 'mean', 'p10', 'p90', 'min', 'max', 'years'].forEach((s, i) => {
              const got = row[c * 7 + i];
              assert.ok(close(got, ref[s]), `${basin} ${day} ${keyOf(z)} ${col} ${s}: ${got} vs ${ref[s]}`);
            });
          }
        });
      // 29 February is held by the 5 leap years only; the extreme year is the maximum of its days.
      assert.equal(b.results['02-29']![0]![6], 5);
      assert.equal(b.results['04-01']![0]![6], 20);
    }
    const short = await json('normals', 'hist', FULL, '--normals-years', '2005..2010');
    assert.deepEqual(short.reference!.water_years, [2005, 2006, 2007, 2008, 2009, 2010]);
    // Asked years the database does not hold are named, never used as if held; the current year
    // 2024 (October–January) counts for the days it holds only.
    const wide = await ok('normals', 'hist', FULL, '--normals-years', '2000..2024');
    const w = JSON.parse(wide.stdout) as Body;
    assert.deepEqual(w.reference!.missing_water_years, [2000, 2001, 2002, 2003]);
    assert.deepEqual(
      w.reference!.water_years,
      Array.from({ length: 21 }, (_, i) => 2004 + i),
    );
    assert.match(
      wide.stderr,
      /^note: reference water years 2000\.\.2024 asked; 'hist' holds 21 of them \(2004–2024\), so the normals use those; 4 hold no date \(2000–2003\)$/m,
    );
    assert.deepEqual([w.results['01-15']![0]![6], w.results['04-01']![0]![6]], [21, 20]);
    const o = await oracle(FULL, false, [], [], '2005..2010');
    assert.ok(close(short.results['04-01']![0]![0], o.normals['04-01']!['0']!.mean.median!));
  });

  it('--with-normals: median, % of median and rank against the oracle; the extreme years rank first and last', async () => {
    const dates = ['2011-03-01', '2015-04-01', '2024-01-15', '2012-11-03']; // 3 Nov: medians around the 2.54 mm floor
    const o = await oracle(HALF, true, dates, []);
    for (const date of dates) {
      const b = await json(
        'stats',
        'hist',
        HALF,
        '--dates',
        `${date}/${date}`,
        '--zone',
        'terrain.elevation',
        '--with-normals',
      );
      assert.deepEqual(b.variables, [
        'mean_swe_mm',
        'total_swe_m3',
        ...['mean_swe_mm', 'total_swe_m3'].flatMap((c) => [
          `median_${c}`,
          `pct_median_${c}`,
          `rank_${c}`,
          `rank_of_${c}`,
        ]),
      ]);
      b.zones.forEach((z, k) => {
        const row = b.results[date]![k]!;
        for (const [c, col] of (['mean', 'total'] as const).entries()) {
          const ref = o.anomalies[date]![keyOf(z)]![col];
          const got = row.slice(2 + c * 4, 6 + c * 4);
          assert.ok(close(row[c], ref.value), `${date} ${col} value`);
          for (const [i, s] of ['median', 'pct', 'rank', 'rank_of'].entries())
            assert.ok(close(got[i], ref[s]), `${date} ${keyOf(z)} ${col} ${s}: ${got[i]} vs ${ref[s]}`);
        }
      });
      const whole = b.results[date]!.find((_, k) => keyOf(b.zones[k]!) === '7000')!;
      if (date === '2011-03-01') assert.deepEqual(whole.slice(4, 6), [1, 20]); // the ×2.5 year
      if (date === '2015-04-01') assert.deepEqual(whole.slice(4, 6), [20, 20]); // the ×0.2 year
      if (date === '2024-01-15') assert.equal(whole[5], 21); // outside the reference: 20 years + this one
    }
  });

  it('no snow: a basin at exactly 0 with every reference year has no % of median and no rank; one day ranks every year of an answer in one set', async () => {
    // 5 October: the modelled season has not started (SWE exactly 0 in every year and cell).
    const date = '2012-10-05';
    const b = await json(
      'stats',
      'hist',
      HALF,
      '--dates',
      date,
      '--zone',
      'terrain.elevation',
      '--with-normals',
    );
    const o = await oracle(HALF, true, [date], []);
    assert.ok(b.zones.length > 2);
    b.zones.forEach((z, k) => {
      const row = b.results[date]![k]!;
      assert.deepEqual(row.slice(0, 2), [0, 0], `${keyOf(z)}: no snow`);
      // median 0, no percentage, no rank (a tie at no snow), ranked among the 20 reference years
      assert.deepEqual(row.slice(2), [0, null, null, 20, 0, null, null, 20]);
      for (const col of ['mean', 'total'] as const) {
        assert.equal(o.anomalies[date]![keyOf(z)]![col].pct, null);
        assert.equal(o.anomalies[date]![keyOf(z)]![col].rank, null);
      }
    });
    // Against the poor year alone, 1 November's median is 1 mm, under the 2.54 mm (0.1 in) floor:
    // no percentage, though the value (5–6 mm) still ranks first of the two years.
    const low = await json(
      'stats',
      'hist',
      HALF,
      '--dates',
      '2012-11-01',
      '--zone',
      'terrain.elevation',
      '--with-normals',
      '--normals-years',
      '2015..2015',
    );
    const ol = await oracle(HALF, true, ['2012-11-01'], [], '2015..2015');
    low.zones.forEach((z, k) => {
      const row = low.results['2012-11-01']![k]!;
      assert.ok((row[0] as number) >= 5 && row[2] === 1, `${keyOf(z)}: ${row}`);
      assert.deepEqual([row[3], row[4], row[5], row[7], row[8]], [null, 1, 2, null, 1]);
      assert.equal(ol.anomalies['2012-11-01']![keyOf(z)]!.mean.pct, null);
      assert.equal(ol.anomalies['2012-11-01']![keyOf(z)]!.total.rank, 1);
    });
    // 15 January of 2020..2024: 2020–2023 are reference years, 2024 is not; each row ranks among
    // the same 21 years (the reference years and 2024), as the oracle does.
    const doy = await json(
      'stats',
      'hist',
      FULL,
      '--doy',
      '01-15',
      '--years',
      '2020..2024',
      '--with-normals',
    );
    const dates = Object.keys(doy.results);
    assert.deepEqual(dates, ['2020-01-15', '2021-01-15', '2022-01-15', '2023-01-15', '2024-01-15']);
    const od = await oracle(FULL, false, dates, []);
    for (const d of dates) {
      const row = doy.results[d]![0]!;
      assert.equal(row[5], 21, `${d} rank_of`);
      const ref = od.anomalies[d]!['0']!.mean;
      assert.ok(
        close(row[3], ref.pct) && close(row[4], ref.rank),
        `${d}: ${row.slice(2, 6)} vs ${JSON.stringify(ref)}`,
      );
      assert.equal(ref.rank_of, 21);
    }
  });

  it('water-year summaries: peak and its date, melt-out, 1 April, volumes, per band, against the oracle', async () => {
    const b = await json('water-years', 'hist', HALF, '--zone', 'terrain.elevation', '--years', '2011..2016');
    assert.deepEqual(Object.keys(b.results), ['2011', '2012', '2013', '2014', '2015', '2016']);
    const o = await oracle(HALF, true, [], ['2011', '2016']);
    const fields = ['peak', 'peak_date', 'melt_out', 'apr1', 'peak_total', 'apr1_total', 'dates'];
    for (const y of ['2011', '2016'])
      for (const [k, z] of b.zones.entries())
        for (const [i, f] of fields.entries()) {
          const got = b.results[y]![k]![i];
          const ref = o.summaries[y]![keyOf(z)]![f];
          assert.ok(close(got, ref), `${y} ${keyOf(z)} ${f}: ${got} vs ${ref}`);
        }
    assert.equal(b.results['2016']![0]![6], 366); // a leap water year
    // A peak below the melt-out threshold is no snow season: no peak date and no melt-out date.
    // At 300 mm, the poor year (×0.2, peaks up to ~110 mm) has none; the extreme year's high bands do.
    const high = await json(
      'water-years',
      'hist',
      HALF,
      '--zone',
      'terrain.elevation',
      '--years',
      '2011..2015',
      '--melt-out-below',
      '300',
    );
    const oh = await oracle(HALF, true, [], ['2011', '2015'], REFERENCE, '300');
    let none = 0;
    for (const y of ['2011', '2015'])
      for (const [k, z] of high.zones.entries()) {
        const row = high.results[y]![k]!;
        for (const [i, f] of fields.entries())
          assert.ok(close(row[i], oh.summaries[y]![keyOf(z)]![f]), `${y} ${keyOf(z)} ${f}`);
        if ((row[0] as number) < 300) {
          none++;
          assert.deepEqual([row[1], row[2]], [null, null], `${y} ${keyOf(z)}: peak ${row[0]} mm`);
        } else assert.match(String(row[1]), /^\d{4}-\d{2}-\d{2}$/);
      }
    assert.ok(none >= high.zones.length, `${none} cells with no snow season`);
    assert.ok(high.results['2011']!.some((r) => r[1] !== null));
    const csv = await cli('water-years', 'hist', FULL, '--years', '2016', '--format', 'csv');
    assert.equal(
      csv.split('\r\n')[0],
      'water_year,area_m2,peak_mean_swe_mm,peak_date,melt_out_date,apr1_mean_swe_mm,peak_total_swe_m3,apr1_total_swe_m3,dates',
    );
  });

  it('water years against normal: median peak, % of median peak, median peak and melt-out days, % melted since the peak', async () => {
    // Each year's own row (the oracle-checked summaries) is the input; the medians are computed here.
    const all = await json(
      'water-years',
      'hist',
      HALF,
      '--zone',
      'terrain.elevation',
      '--years',
      '2004..2023',
    );
    const b = await json(
      'water-years',
      'hist',
      HALF,
      '--zone',
      'terrain.elevation',
      '--years',
      '2011..2015',
      '--with-normals',
      '--normals-years',
      '2004..2023',
    );
    assert.deepEqual(
      b.reference!.water_years,
      Array.from({ length: 20 }, (_, i) => 2004 + i),
    );
    const n = all.variables.length;
    assert.deepEqual(b.variables.slice(n), [
      'median_peak_mean_swe_mm',
      'pct_median_peak_mean_swe_mm',
      'median_peak_day',
      'median_melt_out_day',
      'melted_since_peak_pct',
      'reference_years',
    ]);
    const med = (xs: number[]) => {
      const s = [...xs].sort((a, c) => a - c);
      return (s[Math.floor((s.length - 1) / 2)]! + s[Math.ceil((s.length - 1) / 2)]!) / 2;
    };
    /** The lower middle day of water year of dates (days from 1 October, 29 February kept as a slot). */
    const medDay = (dates: (string | null)[]) => {
      const slot = (d: string) => {
        const [m, day] = d.slice(5).split('-').map(Number) as [number, number];
        return Math.round((Date.UTC(m >= 10 ? 2019 : 2020, m - 1, day) - Date.UTC(2019, 9, 1)) / 86_400_000);
      };
      const days = dates
        .filter((d): d is string => d !== null)
        .map(slot)
        .sort((a, c) => a - c);
      if (days.length === 0) return null;
      return new Date(Date.UTC(2019, 9, 1) + days[Math.floor((days.length - 1) / 2)]! * 86_400_000)
        .toISOString()
        .slice(5, 10);
    };
    const years = Object.keys(all.results);
    let checked = 0;
    for (const y of ['2011', '2012', '2013', '2014', '2015'])
      for (const [k, z] of b.zones.entries()) {
        const row = b.results[y]!;
        assert.deepEqual(
          row[k]!.slice(0, n),
          all.results[y]![k],
          `${y} ${keyOf(z)}: the year's own summaries`,
        );
        const peaks = years.map((r) => all.results[r]![k]![0] as number);
        const m = med(peaks);
        const [median, pct, peakDay, meltDay, melted, count] = row[k]!.slice(n);
        assert.ok(close(median as number, m), `${y} ${keyOf(z)} median ${median} vs ${m}`);
        const peak = row[k]![0] as number;
        assert.equal(pct === null, m < 2.54, `${y} ${keyOf(z)}: no % below the 0.1-in floor`);
        if (pct !== null) assert.ok(close(pct as number, (100 * peak) / m));
        assert.equal(peakDay, medDay(years.map((r) => all.results[r]![k]![1] as string | null)));
        assert.equal(meltDay, medDay(years.map((r) => all.results[r]![k]![2] as string | null)));
        assert.equal(count, 20);
        // The season is over by 30 September: all melted, where there was a season.
        if (row[k]![1] === null) assert.equal(melted, null, `${y} ${keyOf(z)}`);
        else assert.ok(close(melted as number, 100), `${y} ${keyOf(z)}: ${melted}`);
        checked++;
      }
    assert.ok(checked >= 10);
    // The incomplete current year: how much of its peak so far had melted by its last date (31 Jan).
    const now = await json(
      'water-years',
      'hist',
      HALF,
      '--zone',
      'terrain.elevation',
      '--years',
      '2024',
      '--with-normals',
      '--normals-years',
      '2004..2023',
    );
    const jan31 = await json(
      'stats',
      'hist',
      HALF,
      '--zone',
      'terrain.elevation',
      '--variable',
      'swe',
      '--dates',
      '2024-01-31/2024-01-31',
    );
    for (const [k, z] of now.zones.entries()) {
      const row = now.results['2024']![k]!;
      const v = jan31.results['2024-01-31']![k]![0] as number;
      const peak = row[0] as number;
      const want = row[1] === null ? null : (100 * (peak - v)) / peak;
      assert.ok(
        want === null ? row[n + 4] === null : close(row[n + 4] as number, want),
        `${keyOf(z)}: ${row[n + 4]} vs ${want}`,
      );
    }
    // The extreme year is far above its median peak, the poor one far below.
    const first = (y: string) => b.results[y]![0]![n + 1] as number;
    assert.ok(first('2011') > 200 && first('2015') < 30, `${first('2011')} ${first('2015')}`);
  });

  it('units: inches and acre-feet by the exact factors, named in every column', async () => {
    const args = ['stats', 'hist', FULL, '--dates', '2011-03-01/2011-03-02'];
    const metric = await json(...args);
    const us = await json(...args, '--units', 'us');
    assert.deepEqual(us.variables, ['mean_swe_in', 'total_swe_acre_ft']);
    // Areas: acres beside m² (the spec's member stays), in JSON and in the CSV's next column.
    const z = us.zones[0]! as Zone & { area_acres: number };
    assert.equal(z.area_acres, z.area_m2 / 4046.8564224);
    assert.equal((metric.zones[0] as Zone & { area_acres?: number }).area_acres, undefined);
    const usCsv = (await cli(...args, '--units', 'us', '--format', 'csv')).split('\r\n');
    assert.equal(usCsv[0], 'date,area_m2,area_acres,mean_swe_in,total_swe_acre_ft');
    assert.equal(Number(usCsv[1]!.split(',')[2]), z.area_acres);
    for (const date of Object.keys(metric.results)) {
      const [mm, m3] = metric.results[date]![0]! as number[];
      const [inches, acreFt] = us.results[date]![0]! as number[];
      assert.ok(close(inches, mm! / MM_PER_INCH, 1e-15) && close(acreFt, m3! / M3_PER_ACRE_FOOT, 1e-15));
    }
    assert.equal(MM_PER_INCH, 25.4);
    assert.equal(M3_PER_ACRE_FOOT, 1233.48183754752);
    const n = await json('normals', 'hist', FULL, '--units', 'us');
    assert.ok(n.variables.includes('p90_total_swe_acre_ft'));
    const w = await json('water-years', 'hist', FULL, '--years', '2011', '--units', 'us');
    assert.equal((w as unknown as Record<string, unknown>).melt_out_below_in, 0.04);
  });

  it('partial zones: cells of a basin half outside the DEM sum to the whole basin, the rest unclassified', async () => {
    const whole = await json('stats', 'hist', HALF, '--dates', '2011-03-01/2011-03-01');
    const bands = await json(
      'stats',
      'hist',
      HALF,
      '--dates',
      '2011-03-01/2011-03-01',
      '--zone',
      'terrain.elevation',
    );
    const lost = bands.zones.at(-1)!;
    assert.deepEqual(lost.zone, [{ kind: 'unclassified', layer: 'terrain.elevation' }]);
    const sum = bands.zones.reduce((t, z) => t + z.area_m2, 0);
    assert.ok(close(sum, whole.zones[0]!.area_m2, 1e-12), `${sum} vs ${whole.zones[0]!.area_m2}`);
    assert.ok(lost.area_m2 > 0.3 * sum && lost.area_m2 < 0.7 * sum, 'about half the basin');
    const total = (b: Body) => b.results['2011-03-01']!.reduce((t, r) => t + (r[1] as number), 0);
    assert.ok(close(total(bands), total(whole), 1e-12), 'volumes sum to the basin volume');
    const r = await snowdb(['stats', 'hist', HALF, '--dates', '2011-03-01', '--zone', 'terrain.elevation'], {
      env,
    });
    assert.match(r.stderr, /note: HALF:UT:TEST: [\d.]+ km² \([\d.]+ %\) of the basin is in no zone/);
    const full = await snowdb(
      ['stats', 'hist', FULL, '--dates', '2011-03-01', '--zone', 'terrain.elevation'],
      { env },
    );
    assert.doesNotMatch(full.stderr, /unclassified/);
    assert.ok(!(JSON.parse(full.stdout) as Body).zones.some((z) => keyOf(z) === 'unclassified'));
  });

  it('doctor measures the classified share of each basin from its pixels and warns below 99 %', async () => {
    const r = await snowdb(['doctor', '--include-inactive', '--format', 'json'], { env });
    assert.equal(r.code, 0, r.stdout);
    const found = (JSON.parse(r.stdout) as { findings: { check: string; target: string; issue: string }[] })
      .findings;
    assert.deepEqual(
      found.map((f) => [f.check, f.target]),
      [['zones', HALF]],
    );
    const o = await gdalOracle<Record<string, { area_m2: number }>>(
      'zonal',
      join(root, 'data/hist/aoi/HALF_UT_TEST.tif'),
      join(root, 'data/hist/cogs/20110301/swe.tif'),
      '1',
      join(root, 'data/hist/zones/terrain/elevation.tif'),
      '1000',
    );
    const areas = Object.values(o).map((c) => c.area_m2);
    const share = 1 - o.unclassified!.area_m2 / areas.reduce((a, b) => a + b, 0);
    assert.equal(
      found[0]!.issue,
      `terrain.elevation classifies ${(100 * share).toFixed(1)} % of the basin's area (below 99 %); the rest is the 'unclassified' cell of its stats`,
    );
  });

  it('every basin at once with normals equals each basin’s own answer; errors name the problem', async () => {
    const all = JSON.parse(
      await cli('stats-all', 'hist', '--date', '2015-04-01', '--with-normals', '--units', 'us'),
    ) as { variables: string[]; basins: (Body & { pourpoint: string })[] };
    assert.deepEqual(
      all.basins.map((b) => b.pourpoint),
      [FULL, HALF],
    );
    for (const b of all.basins) {
      const own = await json(
        'stats',
        'hist',
        b.pourpoint,
        '--dates',
        '2015-04-01',
        '--with-normals',
        '--units',
        'us',
      );
      assert.deepEqual(b.results, own.results);
      assert.deepEqual(b.reference, own.reference);
      assert.deepEqual(all.variables, own.variables);
    }
    const none = await snowdb(['normals', 'hist', FULL, '--normals-years', '2030..2031'], { env });
    assert.equal(none.code, 1);
    assert.match(
      none.stderr,
      /^Error: 'hist' has no date in water years 2030\.\.2031 \(dates 2003-10-01 … 2024-01-31\)/,
    );
    const bad = await snowdb(['water-years', 'hist', FULL, '--variable', 'depth'], { env });
    assert.equal(bad.code, 1);
    // One query model (stats/query.ts) raises the parameter errors of the CLI and the API, each
    // naming the parameter its own way (the API's are checked below).
    const lonely = await snowdb(['stats', 'hist', FULL, '--normals-years', '2005..2006'], { env });
    assert.equal(lonely.code, 1);
    assert.match(lonely.stderr, /^Error: --normals-years goes with --with-normals\n/);
    for (const [value, why] of [
      ['-1', /--melt-out-below: Too small: expected number to be >=0/],
      ['deep', /--melt-out-below: Invalid input: expected number, received NaN/],
    ] as const) {
      const melt = await snowdb(['water-years', 'hist', FULL, '--melt-out-below', value], { env });
      assert.equal(melt.code, 1, value);
      assert.match(melt.stderr, why);
    }
    const big = await snowdb(['stats', 'hist', HALF, '--zone', 'terrain.elevation:band_step_ft=2'], { env });
    assert.equal(big.code, 1);
    assert.match(
      big.stderr,
      /numbers \(7428 dates × \d+ cells × 2 columns\), more than the limit of 5,000,000/,
    );
  });

  it('every basin’s water year against normal equals each basin’s own water-years answer, in CLI and HTTP', async () => {
    const args = [
      '--water-year',
      '2015',
      '--with-normals',
      '--normals-years',
      '2004..2023',
      '--zone',
      'terrain.elevation',
    ];
    const all = JSON.parse(await cli('stats-all', 'hist', ...args)) as {
      variables: string[];
      water_year: number;
      melt_out_below_mm: number;
      reference: { water_years: number[] };
      basins: (Body & { pourpoint: string })[];
    };
    assert.equal(all.water_year, 2015);
    assert.equal(all.melt_out_below_mm, 1);
    assert.deepEqual(
      all.basins.map((b) => b.pourpoint),
      [FULL, HALF],
    );
    for (const b of all.basins) {
      const own = await json(
        'water-years',
        'hist',
        b.pourpoint,
        '--years',
        '2015',
        '--with-normals',
        '--normals-years',
        '2004..2023',
        '--zone',
        'terrain.elevation',
      );
      assert.deepEqual(Object.keys(b.results), ['2015']);
      assert.deepEqual(b.results, own.results);
      assert.deepEqual(b.zones, own.zones);
      assert.deepEqual(all.reference, own.reference);
      assert.deepEqual(all.variables, own.variables);
    }
    // 2015 is the poor year (×0.2): every band with a median peak is well below it.
    const pi = all.variables.indexOf('pct_median_peak_mean_swe_mm');
    const pcts = all.basins.flatMap((b) => b.results['2015']!.map((r) => r[pi])).filter((v) => v !== null);
    assert.ok(pcts.length >= 4 && pcts.every((v) => (v as number) < 40), JSON.stringify(pcts));
    const csv = (await cli('stats-all', 'hist', ...args, '--format', 'csv')).split('\r\n');
    assert.match(
      csv[0]!,
      /^pourpoint,water_year,terrain\.elevation_min_ft,terrain\.elevation_max_ft,area_m2,peak_mean_swe_mm,peak_date,/,
    );
    assert.equal(
      csv.length - 1,
      all.basins.reduce((n, b) => n + b.zones.length, 0),
    );
    for (const [bad, why] of [
      [['--date', '2015-04-01', '--water-year', '2015'], /stats-all takes one of --date and --water-year/],
      [[], /stats-all takes one of --date and --water-year/],
      [['--water-year', '15'], /--water-year: expected a year such as 2024, got '15'/],
      [
        ['--water-year', '2015', '--variable', 'depth'],
        /water-year summaries need a water variable of 'hist' \(swe\), not 'depth'/,
      ],
    ] as const) {
      const r = await snowdb(['stats-all', 'hist', ...bad], { env });
      assert.equal(r.code, String(why).includes('one of') ? 2 : 1, bad.join(' ')); // usage errors exit 2
      assert.match(r.stderr, why);
    }
    const app = await buildApp(await Database.open(root));
    try {
      const r = await app.inject({
        method: 'GET',
        url: '/datasets/hist/water-years?water_year=2015&normals=true&normals_years=2004..2023&zone=terrain.elevation',
      });
      assert.equal(r.statusCode, 200, r.body);
      const { links: _l, dataset, ...body } = r.json() as Record<string, unknown>;
      assert.equal(dataset, 'hist');
      assert.deepEqual(body, all);
      const c = await app.inject({
        method: 'GET',
        url: '/datasets/hist/water-years?water_year=2015&normals=true&normals_years=2004..2023&zone=terrain.elevation&f=csv',
      });
      assert.equal(c.body.trimEnd(), csv.join('\r\n').trimEnd());
      const none = await app.inject({ method: 'GET', url: '/datasets/hist/water-years?water_year=2030' });
      assert.equal(none.statusCode, 200);
      assert.deepEqual(none.json().notes, [
        "'hist' has no date in water year 2030 (dates 2003-10-01 … 2024-01-31)",
      ]);
      assert.deepEqual(
        (none.json().basins as Body[]).map((b) => b.results),
        [{}, {}],
      );
      const bad = await app.inject({ method: 'GET', url: '/datasets/hist/water-years?water_year=soon' });
      assert.equal(bad.statusCode, 400);
      assert.match(bad.json().detail, /water_year/);
    } finally {
      await app.close();
    }
  });

  describe('over HTTP', () => {
    let base: string;
    let close_: () => Promise<void>;
    before(async () => {
      const app = await buildApp(await Database.open(root));
      base = await app.listen({ host: '127.0.0.1', port: 0 });
      close_ = () => app.close();
    });
    after(() => close_());

    it('normals and water-years endpoints answer as the CLI; normals=true on stats; problems for bad input', async () => {
      const get = async (path: string) => {
        const r = await fetch(`${base}${path}`);
        return { status: r.status, type: r.headers.get('content-type'), body: await r.text() };
      };
      const n = await get(`/datasets/hist/stats/${HALF}/normals?zone=terrain.elevation&units=us`);
      assert.equal(n.status, 200, n.body);
      const cliN = await json('normals', 'hist', HALF, '--zone', 'terrain.elevation', '--units', 'us');
      const httpN = JSON.parse(n.body) as Body & { pourpoint: string };
      assert.deepEqual(httpN.results, cliN.results);
      assert.deepEqual(httpN.reference, cliN.reference);
      assert.equal(httpN.pourpoint, HALF);
      const csv = await get(`/datasets/hist/stats/${FULL}/normals?f=csv`);
      assert.match(csv.body, /^day,area_m2,median_mean_swe_mm,/);
      const w = await get(`/datasets/hist/stats/${FULL}/water-years?years=2011..2012`);
      assert.deepEqual(
        (JSON.parse(w.body) as Body).results,
        (await json('water-years', 'hist', FULL, '--years', '2011..2012')).results,
      );
      const s = await get(`/datasets/hist/stats/${FULL}/date-range?datetime=2011-03-01&normals=true`);
      assert.deepEqual(
        (JSON.parse(s.body) as Body).results,
        (await json('stats', 'hist', FULL, '--dates', '2011-03-01', '--with-normals')).results,
      );
      // Normals and water-years carry an ETag of the state they read: If-None-Match gives 304 without
      // reading a raster; another format, reference span or threshold is another entity.
      const etagOf = async (path: string, inm?: string) => {
        const r = await fetch(`${base}${path}`, { headers: inm ? { 'if-none-match': inm } : {} });
        await r.arrayBuffer();
        return { status: r.status, etag: r.headers.get('etag') };
      };
      const paths = [
        `/datasets/hist/stats/${FULL}/normals`,
        `/datasets/hist/stats/${FULL}/normals?f=csv`,
        `/datasets/hist/stats/${FULL}/normals?normals_years=2005..2010`,
        `/datasets/hist/stats/${FULL}/water-years`,
        `/datasets/hist/stats/${FULL}/water-years?melt_out_below=5`,
      ];
      const tags: string[] = [];
      for (const path of paths) {
        const first = await etagOf(path);
        assert.equal(first.status, 200, path);
        assert.match(first.etag ?? '', /^"[\w-]{27}\/.+"$/, path);
        assert.deepEqual(await etagOf(path, first.etag!), { status: 304, etag: first.etag }, path);
        tags.push(first.etag!);
      }
      assert.equal(new Set(tags).size, paths.length, 'each answer its own entity tag');
      for (const [path, status, key] of [
        [`/datasets/hist/stats/${FULL}/normals?normals_years=2030..2031`, 409, 'no-reference-years'],
        [`/datasets/hist/stats/${FULL}/normals?normals_years=20x0`, 400, 'malformed-query-parameter'],
        [
          `/datasets/hist/stats/${FULL}/date-range?datetime=..&normals_years=2005..2006`,
          400,
          'malformed-query-parameter',
        ],
        [`/datasets/hist/stats/${FULL}/water-years?units=imperial`, 400, 'malformed-query-parameter'],
        [
          `/datasets/hist/stats/${HALF}/date-range?datetime=..&zone=terrain.elevation:band_step_ft=2`,
          422,
          'query-too-large',
        ],
      ] as const) {
        const r = await get(path);
        assert.equal(r.status, status, `${path}: ${r.body}`);
        assert.match(r.type ?? '', /^application\/problem\+json/);
        assert.equal((JSON.parse(r.body) as { type: string }).type, `/problems/${key}`);
      }
      const lonely = await get(
        `/datasets/hist/stats/${FULL}/date-range?datetime=..&normals_years=2005..2006`,
      );
      assert.equal(
        (JSON.parse(lonely.body) as { detail: string }).detail,
        'normals_years goes with normals=true',
      );
    });

    it('every answer is sized before any work: normals by day × cell × column × statistic, normals columns and every basin counted', async () => {
      // A server capped at 50,000 numbers an answer (and a read); swe has 2 columns; band_step_ft=250
      // gives 63 cells, 100 gives 153.
      const small = await buildApp(await Database.open(root), { limits: { maxValues: 50_000 } });
      try {
        const get = (url: string) => small.inject({ method: 'GET', url });
        const refused = async (url: string, numbers: RegExp) => {
          const r = await get(url);
          assert.equal(r.statusCode, 422, `${url}: ${r.body}`);
          const p = r.json() as { type: string; detail: string; limit: number };
          assert.equal(p.type, '/problems/query-too-large');
          assert.equal(p.limit, 50_000);
          assert.match(p.detail, numbers);
        };
        // Normals of one reference year: 365 dates read × 63 cells × 2 = 45,990 fits, but the answer
        // is 366 days × 63 cells × 2 columns × 7 statistics = 322,812.
        const one = 'normals_years=2011..2011';
        assert.equal((await get(`/datasets/hist/stats/${FULL}/normals?${one}`)).statusCode, 200);
        await refused(
          `/datasets/hist/stats/${FULL}/normals?${one}&zone=terrain.elevation:band_step_ft=250`,
          /asks for 322,812 numbers \(366 days × 63 cells × 2 columns × 7 statistics\)/,
        );
        // 181 dates × 63 cells × 2 columns = 22,806 fits; with normals, 10 columns: 114,030.
        const range = 'datetime=2011-01-01/2011-06-30&zone=terrain.elevation:band_step_ft=250';
        assert.equal((await get(`/datasets/hist/stats/${FULL}/date-range?${range}`)).statusCode, 200);
        await refused(
          `/datasets/hist/stats/${FULL}/date-range?${range}&normals=true`,
          /asks for 114,030 numbers \(181 dates × 63 cells × 10 columns \(normals included\)\)/,
        );
        // Every basin with normals: 31 dates × 153 cells × 10 columns = 47,430 a basin; 94,860 in one body.
        await refused(
          `/datasets/hist/stats?date=2011-03-01/2011-03-31&zone=terrain.elevation:band_step_ft=100&normals=true`,
          /asks for 94,860 numbers \(2 basins × 31 dates × their cells × 10 columns\), more than the limit of 50,000; ask for fewer dates, zones or variables, or export every basin \(snowdb export hist, or GET \/datasets\/hist\/export: a file, any size\)/,
        );
      } finally {
        await small.close();
      }
    });
  });
});
