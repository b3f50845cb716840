/**
 * Stations and the forecast point, against a local double of the AWDB REST API serving the
 * history fixture's sites (test/helpers/awdb-world.ts): the sync through a 429, a 500 and a body
 * cut short, paging by date window, a moved station, garbage and an unreachable AWDB (clear error,
 * nothing changed); station-in-basin against OGR; the station's values, medians and % of median
 * against the double's rule; station against grid against GDAL's LocationInfo; the station index;
 * the regression against numpy's least squares; the M4 table; HTTP = CLI.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { copyFile, mkdir, readdir, readFile, stat, symlink } from 'node:fs/promises';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { AwdbDouble } from '../../scripts/demo/awdb-double.js';
import { MAX_DAILY_DAYS } from '../../scripts/demo/awdb-double.js';
import { buildApp } from '../../src/api/app.js';
import { openDataset } from '../../src/datasets/registry.js';
import { Database } from '../../src/db/database.js';
import { datasetPaths } from '../../src/db/layout.js';
import { aprJulVolume, LAST_DAY, medianOf, SITES, startHistoryAwdb, sweIn } from '../helpers/awdb-world.js';
import { snowdb, tempDir } from '../helpers/cli.js';
import { snapshotTree } from '../helpers/fs.js';
import { oracle } from '../helpers/gdal.js';
import { FULL, HALF, historyDb } from '../helpers/history-db.js';

interface Placed {
  triplet: string;
  inside: boolean;
  distance_km: number;
  elevation_ft: number;
  band: { min: number; max: number } | null;
  recorded: boolean;
  moves: number;
}
interface Keyed {
  variables: string[];
  results: Record<string, (number | null)[]>;
  median_source?: string;
}

describe('stations beside the grid, and the forecast point', () => {
  let awdb: AwdbDouble;
  let dir: string;
  let root: string;
  let cleanup: () => Promise<void>;
  let env: Record<string, string>;
  const cli = (...args: string[]) => snowdb(args, { env });
  const ok = async (...args: string[]) => {
    const r = await cli(...args);
    assert.equal(r.code, 0, `${args.join(' ')}: ${r.stderr}`);
    return r.stdout;
  };
  const json = async <T>(...args: string[]) => JSON.parse(await ok(...args)) as T;

  before(async () => {
    awdb = await startHistoryAwdb();
    ({ dir, cleanup } = await tempDir());
    // The shared history database, read through links; the stations store is this test's own.
    const shared = (await historyDb()).SNOWDB_CONFIG!;
    root = join(dir, 'db');
    await mkdir(root);
    for (const name of ['snowdb.json', 'pourpoints', 'data'])
      await symlink(join(shared, name), join(root, name));
    env = {
      SNOWDB_CONFIG: root,
      SNOWDB_AWDB_URL: awdb.url,
      SNOWDB_AWDB_INTERVAL_MS: '0',
      SNOWDB_FETCH_BACKOFF_MS: '10',
      SNOWDB_FETCH_RETRIES: '3',
    };
  });
  after(async () => {
    await awdb.close();
    await cleanup();
  });

  it('asks for a sync before anything else', async () => {
    const r = await cli('stations', 'list');
    assert.equal(r.code, 1);
    assert.match(r.stderr, /no stations .*run 'snowdb stations sync' first/);
  });

  it('fails cleanly when AWDB is unreachable or answers garbage, and stores nothing', async () => {
    const down = await snowdb(['stations', 'sync'], {
      env: { ...env, SNOWDB_AWDB_URL: 'http://127.0.0.1:1/awdbRestApi' },
    });
    assert.equal(down.code, 1);
    assert.match(
      down.stderr,
      /AWDB unreachable at http:\/\/127\.0\.0\.1:1\/awdbRestApi\/services\/v1\/stations/,
    );
    awdb.faults.push('html', 'html', 'html', 'html');
    const garbage = await cli('stations', 'sync');
    assert.equal(garbage.code, 1);
    assert.match(garbage.stderr, /AWDB answered \d+ bytes that are not JSON/);
    assert.equal(awdb.faults.length, 0, 'each attempt met one fault: 1 + 3 retries');
    assert.deepEqual(
      [...(await snapshotTree(dir)).keys()].filter((k) => k.includes('stations')),
      [],
    );
  });

  it('syncs through a 429, a 500 and a cut body; pages daily data by window; records only stations near basins', async () => {
    awdb.faults.push('429', '500', 'truncate');
    awdb.seen.length = 0;
    const t0 = Date.now();
    const r = JSON.parse(await ok('stations', 'sync', '--format', 'json')) as {
      listed: number;
      recorded: string[];
      forecastPoints: string[];
      requests: number;
    };
    assert.ok(Date.now() - t0 >= 1000, 'the 429 asked for 1 s (Retry-After) and was heard');
    assert.equal(r.listed, 5);
    assert.deepEqual(
      r.recorded.sort(),
      [SITES.in1, SITES.in2, SITES.move, SITES.course].map((s) => s.triplet).sort(),
    );
    assert.deepEqual(r.forecastPoints, [FULL]);
    // HALF's id is a triplet too, but AWDB's metadata names no forecast point there: no data asked.
    assert.ok(
      awdb.seen.some((u) => u.includes('returnForecastPointMetadata=true') && u.includes('HALF%3AUT%3ATEST')),
    );
    assert.ok(!awdb.seen.some((u) => u.includes('HALF') && !u.includes('/stations?')));
    assert.equal(r.requests, awdb.seen.length);
    // Every daily request within AWDB's limit; the windows of one station tile its record.
    const windows = awdb.seen
      .filter((u) => u.includes('IN1') && u.includes('duration=DAILY'))
      .map((u) => new URLSearchParams(u.split('?')[1]))
      .map((q) => [q.get('beginDate')!, q.get('endDate')!] as const)
      .filter((w, i, all) => all.findIndex((x) => x[0] === w[0]) === i);
    assert.ok(windows.length >= 3, `${windows.length} windows`);
    for (const [a, b] of windows) assert.ok((Date.parse(b) - Date.parse(a)) / 86_400_000 <= MAX_DAILY_DAYS);
    assert.equal(windows[0]![0], '1995-10-01');
    for (let i = 1; i < windows.length; i++)
      assert.equal(Date.parse(windows[i]![0]) - Date.parse(windows[i - 1]![1]), 86_400_000);
  });

  it('stores each day as AWDB gave it: values, gaps and flags; a second sync fetches only the last month', async () => {
    const rec = JSON.parse(await readFile(join(root, 'stations/records/IN1_UT_SNTL.json'), 'utf8'));
    assert.equal(rec.start, '1995-10-01');
    const swe = rec.daily.WTEQ;
    assert.equal(swe.unit, 'in');
    let checked = 0;
    for (let i = 0; i < swe.values.length; i++) {
      const date = new Date(Date.parse('1995-10-01') + i * 86_400_000).toISOString().slice(0, 10);
      if (date > LAST_DAY) break;
      const gap = date.endsWith('-02-10') || date.endsWith('-02-11');
      assert.equal(swe.values[i], gap ? null : sweIn(1, date), date);
      assert.equal(swe.flags[i], gap ? '-' : date.endsWith('-15') ? 'E' : 'V', date);
      checked++;
    }
    assert.ok(checked > 10_000);
    awdb.seen.length = 0;
    const again = JSON.parse(await ok('stations', 'sync', '--format', 'json')) as {
      recorded: string[];
      current: number;
    };
    assert.equal(again.current, 4, 'every record already through today');
    assert.equal(awdb.seen.filter((u) => u.includes('/data?') && !u.includes('SRVO')).length, 0);
  });

  it('places stations inside and near a basin as OGR does, with their elevation band', async () => {
    const b = await json<{ stations: Placed[] }>(
      'stations',
      'list',
      '--basin',
      FULL,
      '--within',
      '25',
      '--format',
      'json',
    );
    const got = new Map(b.stations.map((s) => [s.triplet, s]));
    const all = Object.values(SITES);
    const want = await oracle<{ inside: boolean; distance_m: number }[]>(
      'stations',
      join(root, 'pourpoints/FULL_UT_TEST.geojson'),
      JSON.stringify(all.map((s) => [s.lon, s.lat])),
    );
    all.forEach((s, i) => {
      const w = want[i]!;
      const g = got.get(s.triplet);
      if (w.distance_m > 25_000) {
        assert.equal(g, undefined, s.triplet);
        return;
      }
      assert.ok(g, s.triplet);
      assert.equal(g.inside, w.inside, s.triplet);
      assert.ok(
        Math.abs(g.distance_km * 1000 - w.distance_m) <= Math.max(1, w.distance_m * 0.005),
        `${s.triplet}: ${g.distance_km} km vs ${w.distance_m} m`,
      );
    });
    assert.deepEqual(
      b.stations
        .filter((s) => s.inside)
        .map((s) => s.triplet)
        .sort(),
      [SITES.in1.triplet, SITES.in2.triplet].sort(),
    );
    assert.deepEqual(got.get(SITES.in1.triplet)!.band, { min: 7000, max: 8000, unit: 'ft' });
    assert.deepEqual(got.get(SITES.in2.triplet)!.band, { min: 6000, max: 7000, unit: 'ft' });
    assert.deepEqual(got.get(SITES.course.triplet)!.band, { min: 8000, max: 9000, unit: 'ft' });
    const half = await json<{ stations: Placed[] }>(
      'stations',
      'list',
      '--basin',
      FULL,
      '--band-step-ft',
      '500',
      '--format',
      'json',
    );
    assert.deepEqual(half.stations.find((s) => s.triplet === SITES.in1.triplet)!.band, {
      min: 7000,
      max: 7500,
      unit: 'ft',
    });
  });

  it("gives a station's values in mm, its medians (AWDB's, or computed by the normals rule) and % of median", async () => {
    const in1 = await json<Keyed>('stations', 'show', SITES.in1.triplet, '--dates', '2023-01-01/2023-04-30');
    assert.deepEqual(in1.variables, [
      'swe_mm',
      'depth_mm',
      'precip_mm',
      'tavg_degc',
      'median_swe_mm',
      'pct_median_swe_mm',
    ]);
    assert.match(in1.median_source!, /AWDB's published 1991–2020 median/);
    const in2 = await json<Keyed>(
      'stations',
      'show',
      SITES.in2.triplet,
      '--dates',
      '2023-01-01/2023-04-30',
      '--units',
      'us',
    );
    assert.match(in2.median_source!, /computed from the station's own record/);
    let n = 0;
    for (const [date, row] of Object.entries(in1.results)) {
      const v = date.endsWith('-02-10') || date.endsWith('-02-11') ? null : sweIn(1, date);
      const m = medianOf(1, date.slice(5));
      assert.equal(row[0], v === null ? null : Math.round(v * 25.4 * 1000) / 1000, date);
      assert.equal(row[4], m === null ? null : Math.round(m * 25.4 * 1000) / 1000, date);
      assert.equal(
        row[5],
        v === null || m === null || m * 25.4 < 2.54 ? null : Math.round((v / m) * 1000) / 10,
        date,
      );
      // IN2 has no AWDB medians: its computed median is the same rule over its own record (inches).
      const v2 = in2.results[date]!;
      assert.equal(v2[4], medianOf(0.8, date.slice(5)), date);
      n++;
    }
    assert.equal(n, 120);
    const course = await json<Keyed & { kind: string }>(
      'stations',
      'show',
      SITES.course.triplet,
      '--dates',
      '2020-01-01/2020-12-31',
      '--units',
      'us',
    );
    assert.equal(course.kind, 'surveys');
    assert.deepEqual(Object.keys(course.results), ['2020-02-01', '2020-03-02', '2020-04-01', '2020-04-15']);
    assert.deepEqual(course.results['2020-04-15']!.slice(0, 3), [
      sweIn(1.3, '2020-04-15'),
      Math.round(sweIn(1.3, '2020-04-15') * 3),
      medianOf(1.3, '04-15'),
    ]);
  });

  it('compares a station with the grid cell holding it as GDAL reads the COG', async () => {
    const body = await json<Keyed & { cell: { col: number; row: number } }>(
      'stations',
      'compare',
      'hist',
      SITES.in1.triplet,
      '--dates',
      '2011-03-01/2011-03-03',
    );
    assert.deepEqual(body.variables, ['station_swe_mm', 'grid_swe_mm', 'ratio_swe']);
    const d = await openDataset(await Database.open(root), 'hist');
    for (const [date, [s, g, ratio]] of Object.entries(body.results)) {
      const xml = execFileSync('gdallocationinfo', [
        '-xml',
        '-wgs84',
        datasetPaths(d.dir).cog(date, 'swe'),
        String(SITES.in1.lon),
        String(SITES.in1.lat),
      ]).toString();
      const m = /pixel="(\d+)" line="(\d+)"[\s\S]*?<Value>(-?[\d.]+)<\/Value>/.exec(xml)!;
      assert.equal(Number(m[1]), body.cell.col);
      assert.equal(Number(m[2]), body.cell.row);
      assert.equal(g, Number(m[3]), date); // swe is stored in whole mm (scale 1)
      assert.equal(s, Math.round(sweIn(1, date) * 25.4 * 1000) / 1000);
      assert.equal(ratio, Math.round((s! / g!) * 1000) / 1000);
    }
    const csv = await ok(
      'stations',
      'compare',
      'hist',
      SITES.in1.triplet,
      '--dates',
      '2011-03-01/2011-03-03',
      '--format',
      'csv',
    );
    assert.equal(csv.split('\r\n')[0], 'date,station_swe_mm,grid_swe_mm,ratio_swe');
  });

  it("computes a basin's station index: Σ current ÷ Σ median of its sites", async () => {
    const b = await json<Keyed & { stations: { triplet: string }[] }>(
      'stations',
      'index',
      FULL,
      '--dates',
      '2019-03-01/2019-03-05',
      '--units',
      'us',
    );
    assert.deepEqual(b.stations.map((s) => s.triplet).sort(), [SITES.in1.triplet, SITES.in2.triplet].sort());
    for (const [date, [pct, used, sum, med]] of Object.entries(b.results)) {
      const v = sweIn(1, date) + sweIn(0.8, date);
      const m = medianOf(1, date.slice(5))! + medianOf(0.8, date.slice(5))!;
      assert.equal(used, 2);
      assert.ok(Math.abs(sum! - v) < 1e-9 && Math.abs(med! - m) < 1e-9, date);
      assert.equal(pct, Math.round((v / m) * 1000) / 10, date);
    }
  });

  it('fits basin SWE on 1 April against the April–July volume as numpy does, beside the published forecasts', async () => {
    const b = await json<{
      years: { water_year: number; x: number; y: number }[];
      fit: { intercept: number; slope: number; r2: number; residual_sd: number; n: number };
      this_year: unknown;
      published: { publication_date: string; values: Record<string, number> }[];
      notes: string[];
    }>('forecast', 'regression', 'hist', FULL, '--format', 'json');
    assert.deepEqual(
      b.years.map((y) => y.water_year),
      Array.from({ length: 20 }, (_, i) => 2004 + i),
    );
    for (const y of b.years)
      assert.ok(
        Math.abs(y.y - aprJulVolume(y.water_year)) < 0.03,
        `${y.water_year}: ${y.y} vs ${aprJulVolume(y.water_year)} (monthly values rounded to 0.01)`,
      );
    const np = await oracle<{ intercept: number; slope: number; r2: number; residual_sd: number }>(
      'lstsq',
      JSON.stringify(b.years.map((y) => y.x)),
      JSON.stringify(b.years.map((y) => y.y)),
    );
    for (const k of ['intercept', 'slope', 'r2', 'residual_sd'] as const)
      assert.ok(
        Math.abs(b.fit[k] - np[k]) <= 1e-9 * Math.max(1, Math.abs(np[k])),
        `${k}: ${b.fit[k]} vs ${np[k]}`,
      );
    assert.ok(b.fit.r2 > 0.9, 'volume follows the season scale');
    assert.equal(b.this_year, null, 'water year 2024 has no 1 April yet');
    assert.deepEqual(
      b.published.map((p) => p.publication_date),
      ['2024-01-01'],
    );
    assert.match(b.notes[0]!, /snowdb issues no forecasts/);
    const jan = await json<{ this_year: { water_year: number; x: number; fitted: number } }>(
      'forecast',
      'regression',
      'hist',
      FULL,
      '--day',
      '01-15',
      '--format',
      'json',
    );
    assert.equal(jan.this_year.water_year, 2024);
    const m4 = (await ok('forecast', 'm4', 'hist', FULL, '--day', '01-15', '--day', '04-01'))
      .trimEnd()
      .split('\r\n');
    assert.equal(m4[0], 'Year,mean_swe_01-15_mm,mean_swe_04-01_mm,APR-JUL_volume_kac_ft');
    assert.equal(m4.length, 1 + 21);
    assert.match(m4.at(-1)!, /^2024,[\d.]+,NA,NA$/);
  });

  it('serves the same answers over HTTP, and names missing things', async () => {
    const app = await buildApp(await Database.open(root));
    try {
      const get = async (url: string) => {
        const r = await app.inject({ method: 'GET', url });
        return { status: r.statusCode, body: r.json() as Record<string, unknown> };
      };
      const cliShow = await json<Keyed>(
        'stations',
        'show',
        SITES.in1.triplet,
        '--dates',
        '2023-03-01/2023-03-03',
      );
      const http = await get(`/stations/${SITES.in1.triplet}?datetime=2023-03-01/2023-03-03`);
      assert.equal(http.status, 200);
      assert.deepEqual(http.body.results, cliShow.results);
      const placed = await get(`/pourpoints/${FULL}/stations?within_km=5`);
      assert.deepEqual(
        (placed.body.stations as Placed[]).map((s) => s.triplet).sort(),
        [SITES.in1.triplet, SITES.in2.triplet, SITES.course.triplet].sort(),
      );
      const idx = await get(`/pourpoints/${FULL}/station-index?datetime=2019-03-01/2019-03-02&units=us`);
      assert.equal(idx.status, 200);
      const reg = await get(`/datasets/hist/forecast/${FULL}/regression`);
      assert.equal((reg.body.fit as { n: number }).n, 20);
      const csv = await app.inject({
        method: 'GET',
        url: `/datasets/hist/forecast/${FULL}/regression?f=csv`,
      });
      assert.match(csv.body, /^Year,mean_swe_04-01_mm,APR-JUL_volume_kac_ft\r\n2004,/);
      const none = await get('/stations/NOPE:UT:SNTL');
      assert.equal(none.status, 404);
      assert.match(String(none.body.detail), /no station 'NOPE:UT:SNTL'/);
      const noPoint = await get(`/pourpoints/${HALF}/forecast`);
      assert.equal(noPoint.status, 404);
      assert.match(
        String(noPoint.body.detail),
        /no volumes or forecasts synced for forecast point 'HALF:UT:TEST'/,
      );
      const farBasin = await get(`/pourpoints/${FULL}/stations?within_km=500`);
      assert.equal(farBasin.status, 400);
    } finally {
      await app.close();
    }
  });

  it('keeps a station AWDB moved: its earlier position kept, placed where AWDB now puts it', async () => {
    const s = awdb.world.stations.find((x) => x.stationTriplet === SITES.move.triplet)!;
    s.longitude = -112.7;
    s.latitude = 37.25;
    const r = JSON.parse(await ok('stations', 'sync', '--format', 'json')) as {
      moved: { triplet: string; km: number }[];
    };
    assert.equal(r.moved.length, 1);
    assert.equal(r.moved[0]!.triplet, SITES.move.triplet);
    assert.ok(Math.abs(r.moved[0]!.km - 14.0) < 0.5, `${r.moved[0]!.km} km`);
    const list = JSON.parse(await readFile(join(root, 'stations/stations.json'), 'utf8'));
    const m = list.stations.find((x: { triplet: string }) => x.triplet === SITES.move.triplet);
    assert.deepEqual(
      m.moves.map((x: { lon: number; lat: number }) => [x.lon, x.lat]),
      [[SITES.move.lon, SITES.move.lat]],
    );
    const half = await json<{ stations: Placed[] }>(
      'stations',
      'list',
      '--basin',
      HALF,
      '--within',
      '10',
      '--format',
      'json',
    );
    const moved = half.stations.find((x) => x.triplet === SITES.move.triplet)!;
    assert.equal(moved.inside, false);
    assert.equal(moved.moves, 1);
  });

  it("keeps AWDB's element names and units, and refuses a record in a unit it does not convert from", async () => {
    const list = JSON.parse(await readFile(join(root, 'stations/stations.json'), 'utf8'));
    assert.deepEqual(list.elements.WTEQ, { name: 'SNOW WATER EQUIVALENT', unit: 'in' });
    assert.deepEqual(list.elements.SRVO, { name: 'STREAM VOLUME, ADJUSTED', unit: 'kac_ft' });
    const far = awdb.world.data.get(SITES.far.triplet)!;
    const swe = far.get('WTEQ')!;
    far.set('WTEQ', { ...swe, unit: 'mm' });
    try {
      const r = await cli('stations', 'sync', '--station', SITES.far.triplet, '--no-forecasts');
      assert.equal(r.code, 1);
      assert.match(
        r.stderr,
        /AWDB stores WTEQ of FAR:UT:SNTL in 'mm', not 'in': snowdb converts from 'in' only/,
      );
      await assert.rejects(readFile(join(root, 'stations/records/FAR_UT_SNTL.json')), { code: 'ENOENT' });
    } finally {
      far.set('WTEQ', swe);
    }
  });

  it('refuses bad arguments by name, and leaves the store as it was', async () => {
    const before = await snapshotTree(join(dir, 'db/stations'));
    for (const [args, msg] of [
      [['stations', 'show', 'FAR:UT:SNTL'], /listed but its record was not synced/],
      [['stations', 'list', '--basin', FULL, '--within', '-1'], /within_km: a distance from 0 to 200 km/],
      [['stations', 'compare', 'hist', 'NOPE:UT:SNTL'], /no station 'NOPE:UT:SNTL'/],
      [['stations', 'index', FULL, '--dates', '2019-03-01/..'], /closed date range/],
      [['forecast', 'regression', 'hist', FULL, '--period', 'APR-XYZ'], /expected months like APR-JUL/],
      [['forecast', 'regression', 'hist', FULL, '--day', '4-1'], /expected MM-DD/],
      [['stations', 'sync', '--station', 'NOPE:UT:SNTL'], /AWDB lists no station 'NOPE:UT:SNTL'/],
    ] as const) {
      const r = await cli(...args);
      assert.equal(r.code, 1, args.join(' '));
      assert.match(r.stderr, msg, args.join(' '));
    }
    const after_ = await snapshotTree(join(dir, 'db/stations'));
    assert.deepEqual([...after_.keys()].sort(), [...before.keys()].sort());
    for (const [k, v] of before) assert.equal(after_.get(k), v, k);
  });

  it('skips a station whose AWDB triplet is no triplet, by name, and writes nothing outside the store', async () => {
    // Inside FULL, so a triplet that were trusted would have its record fetched and written.
    const hostile = { ...awdb.world.stations[0]!, stationTriplet: '../../../../x/pwn:UT:SNTL', name: 'pwn' };
    awdb.world.stations.push(hostile);
    try {
      // Where the trusted triplet wrote (four folders above stations/records), and what the store holds.
      const target = join(root, 'stations/records', '../../../../x/pwn_UT_SNTL.json');
      const r = await cli('stations', 'sync');
      assert.equal(r.code, 0, r.stderr);
      assert.match(
        r.stderr,
        /skipped a station AWDB lists as "\.\.\/\.\.\/\.\.\/\.\.\/x\/pwn:UT:SNTL": not a station triplet/,
      );
      await assert.rejects(stat(target), { code: 'ENOENT' });
      await assert.rejects(stat(join(target, '..')), { code: 'ENOENT' });
      const list = JSON.parse(await readFile(join(root, 'stations/stations.json'), 'utf8')) as {
        stations: { triplet: string }[];
      };
      assert.deepEqual(
        list.stations.map((s) => s.triplet),
        Object.values(SITES)
          .map((s) => s.triplet)
          .sort(),
      );
      assert.deepEqual((await readdir(join(root, 'stations/records'))).sort(), [
        'IN1_UT_SNTL.json',
        'IN2_UT_SNTL.json',
        'MOVE_UT_SNTL.json',
        'NEAR_UT_SNOW.json',
      ]);
    } finally {
      awdb.world.stations.pop();
    }
  });

  it('writes a station name that a spreadsheet would run as a formula as text, numbers as numbers', async () => {
    const s0 = awdb.world.stations[0]!;
    const was = { name: s0.name, longitude: s0.longitude };
    s0.name = '=HYPERLINK("http://x","y")';
    try {
      await ok('stations', 'sync', '--no-forecasts');
      const rows = (await ok('stations', 'list', '--format', 'csv')).split(/\r?\n/);
      const row = rows.find((r) => r.startsWith(`${s0.stationTriplet},`))!;
      // The cell opens with ' (so Excel and LibreOffice show it as text); lon stays a negative number.
      assert.equal(
        row,
        `${s0.stationTriplet},"'=HYPERLINK(""http://x"",""y"")",SNTL,${SITES.in1.ft},${was.longitude},${SITES.in1.lat},1995-10-01,2100-01-01`,
      );
    } finally {
      s0.name = was.name;
      await ok('stations', 'sync', '--no-forecasts');
    }
  });

  it('update keeps a synced stations store current', async () => {
    const { dir: d2, cleanup: c2 } = await tempDir();
    try {
      const r2 = join(d2, 'db');
      const e2 = { ...env, SNOWDB_CONFIG: r2 };
      const run = async (...args: string[]) => {
        const r = await snowdb(args, { env: e2 });
        assert.equal(r.code, 0, `${args.join(' ')}: ${r.stderr}`);
        return r.stdout;
      };
      await run('init', r2);
      await mkdir(join(d2, 'records'));
      for (const f of ['FULL_UT_TEST.geojson', 'HALF_UT_TEST.geojson'])
        await copyFile(join(root, 'pourpoints', f), join(d2, 'records', f));
      await run('pourpoint', 'sync', join(d2, 'records'));
      assert.doesNotMatch(await run('update'), /stations:/, 'no stations synced: none to keep current');
      await run('stations', 'sync', '--through', '2023-12-31');
      const before = JSON.parse(await readFile(join(r2, 'stations/records/IN1_UT_SNTL.json'), 'utf8'));
      assert.equal(before.through, '2023-12-31');
      awdb.seen.length = 0;
      assert.match(await run('update'), /stations: 4 records and 1 forecast points brought up to date/);
      const after = JSON.parse(await readFile(join(r2, 'stations/records/IN1_UT_SNTL.json'), 'utf8'));
      // Re-fetched from a month before the last day (AWDB revises recent values), through today.
      const first = awdb.seen.find((u) => u.includes('IN1') && u.includes('/data?'))!;
      assert.match(first, /beginDate=2023-12-01/);
      assert.equal(
        after.daily.WTEQ.values.length,
        before.daily.WTEQ.values.length + 31,
        'January 2024 added',
      );
      assert.deepEqual(
        after.daily.WTEQ.values.slice(0, before.daily.WTEQ.values.length),
        before.daily.WTEQ.values,
      );
    } finally {
      await c2();
    }
  });
});
