/**
 * `snowdb export` on the 20-year history fixture, read back by readers that are not the writers:
 * DuckDB for Parquet (its types, its row groups, every value), Python's csv module for CSV; each
 * row equal to the stats API's answer for that basin, date and zone cell, the key sets equal; the
 * per-basin and per-date folders hold the same rows; a killed export leaves nothing at --out (and
 * the next one clears what it left); bad arguments are named and write nothing.
 */
import assert from 'node:assert/strict';
import { execFileSync, spawn } from 'node:child_process';
import { once } from 'node:events';
import { cp, mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { DuckDBInstance } from '@duckdb/node-api';
import { buildApp } from '../../src/api/app.js';
import { publishStatic } from '../../src/app/publish-static.js';
import { Database } from '../../src/db/database.js';
import { sinkFor } from '../../src/export/writers.js';
import { DirBucket } from '../../src/io/bucket.js';
import { CLI, snowdb, tempDir } from '../helpers/cli.js';
import { FULL, HALF, historyDb } from '../helpers/history-db.js';

interface Stats {
  zone_layers: string[];
  variables: string[];
  zones: { zone: { kind: string; min?: number; max?: number }[]; area_m2: number }[];
  results: Record<string, (number | null)[][]>;
}

/** Python's csv module's reading of a CSV file: its rows as lists of strings. */
const pythonCsv = (path: string): string[][] =>
  JSON.parse(
    execFileSync(
      'python3',
      ['-c', 'import csv,json,sys; print(json.dumps(list(csv.reader(open(sys.argv[1], newline="")))))', path],
      {
        maxBuffer: 256 * 1024 * 1024,
      },
    ).toString(),
  ) as string[][];

describe('export: every basin × zone cell × date, read back by other readers', () => {
  let env: Record<string, string>;
  let dir: string;
  let cleanup: () => Promise<void>;
  const ok = async (...args: string[]) => {
    const r = await snowdb(args, { env });
    assert.equal(r.code, 0, `${args.join(' ')}: ${r.stderr}`);
    return r;
  };
  /** Each basin's stats as the API body (by band), keyed `basin|date|band min`. */
  let want: Map<string, { area: number; values: (number | null)[] }>;
  let variables: string[];

  before(async () => {
    env = await historyDb();
    ({ dir, cleanup } = await tempDir());
    want = new Map();
    for (const b of [FULL, HALF]) {
      const s = JSON.parse((await ok('stats', 'hist', b, '--zone', 'terrain.elevation')).stdout) as Stats;
      variables = s.variables;
      for (const [date, rows] of Object.entries(s.results))
        s.zones.forEach((z, k) => {
          want.set(`${b}|${date}|${z.zone[0]!.min ?? 'unclassified'}`, { area: z.area_m2, values: rows[k]! });
        });
    }
  });
  after(() => cleanup());

  it('Parquet: DuckDB reads typed columns, row groups of 100,000, and every stats value', async () => {
    const out = join(dir, 'hist.parquet');
    const r = JSON.parse(
      (await ok('export', 'hist', '--zone', 'terrain.elevation', '--out', out, '--format', 'json')).stdout,
    );
    assert.equal(r.rows, want.size);
    assert.equal(r.dates, new Set([...want.keys()].map((k) => k.split('|')[1])).size);
    const db = await DuckDBInstance.create(':memory:');
    const c = await db.connect();
    const types = (await c.runAndReadAll(`describe select * from read_parquet('${out}')`)).getRowsJson();
    assert.deepEqual(
      types.map((t) => [t[0], t[1]]),
      [
        ['pourpoint', 'VARCHAR'],
        ['date', 'DATE'],
        ['terrain.elevation_min_ft', 'DOUBLE'],
        ['terrain.elevation_max_ft', 'DOUBLE'],
        ['area_m2', 'DOUBLE'],
        ...variables.map((v) => [v, 'DOUBLE']),
      ],
    );
    const groups = (
      await c.runAndReadAll(
        `select distinct row_group_id, row_group_num_rows from parquet_metadata('${out}') order by 1`,
      )
    ).getRows();
    assert.deepEqual(
      groups.map((g) => Number(g[1])),
      [want.size],
    );
    const rows = (
      await c.runAndReadAll(
        `select pourpoint, strftime(date, '%Y-%m-%d'), "terrain.elevation_min_ft", area_m2, * exclude (pourpoint, date, "terrain.elevation_min_ft", "terrain.elevation_max_ft", area_m2) from read_parquet('${out}')`,
      )
    ).getRows();
    assert.equal(rows.length, want.size);
    const seen = new Set<string>();
    for (const [b, date, min, area, ...values] of rows) {
      const key = `${b}|${date}|${min ?? 'unclassified'}`;
      const w = want.get(key);
      assert.ok(w, key);
      assert.equal(area, w.area, key);
      assert.deepEqual(values, w.values, key);
      seen.add(key);
    }
    assert.equal(seen.size, want.size);
  });

  it('NetCDF-4: a CF basin × time × zone cube that ncdump and xarray open without a warning, every value the stats value', async () => {
    const out = join(dir, 'hist.nc');
    await ok('export', 'hist', '--zone', 'terrain.elevation', '--to', 'netcdf', '--out', out);
    const header = execFileSync('ncdump', ['-h', out], { stdio: ['ignore', 'pipe', 'pipe'] }).toString();
    assert.match(header, /dimensions:\n\tbasin = 2 ;\n\ttime = \d+ ;\n\tzone = \d+ ;/);
    assert.match(header, /mean_swe_mm:standard_name = "lwe_thickness_of_surface_snow_amount"/);
    // xarray (warnings are errors) lists every value with its basin, date, band and area.
    const script = [
      'import json, sys, math, xarray as xr',
      'ds = xr.open_dataset(sys.argv[1])',
      `names = ${JSON.stringify(variables)}`,
      'out = []',
      'for b in ds.basin.values:',
      '  for zi, zmin in enumerate(ds.terrain_elevation_min.values):',
      '    area = float(ds.area.sel(basin=b).values[zi])',
      '    cols = [ds[n].sel(basin=b).values[:, zi] for n in names]',
      '    for ti, t in enumerate(ds.time.values):',
      '      vals = [float(c[ti]) for c in cols]',
      '      if all(math.isnan(v) for v in vals): continue',
      '      out.append([str(b), str(t)[:10], None if math.isnan(zmin) else float(zmin), area, [None if math.isnan(v) else v for v in vals]])',
      'print(json.dumps(out))',
    ].join('\n');
    const rows = JSON.parse(
      execFileSync('/usr/bin/python3', ['-W', 'error', '-c', script, out], {
        maxBuffer: 256 * 1024 * 1024,
      }).toString(),
    ) as [string, string, number | null, number, (number | null)[]][];
    const seen = new Set<string>();
    for (const [b, date, min, area, values] of rows) {
      const k = `${b}|${date}|${min ?? 'unclassified'}`;
      const w = want.get(k);
      assert.ok(w, k);
      assert.equal(area, w.area, k);
      assert.deepEqual(values, w.values, k);
      seen.add(k);
    }
    // Cells with every statistic null are NaN throughout, so xarray's listing skips them.
    const allNull = [...want.entries()].filter(([, w]) => w.values.every((v) => v === null)).length;
    assert.equal(seen.size, want.size - allNull);
  });

  it('CSV: one long file, a file per basin and a file per date hold the same rows, each the stats value', async () => {
    const long = join(dir, 'hist.csv');
    await ok(
      'export',
      'hist',
      '--zone',
      'terrain.elevation',
      '--to',
      'csv',
      '--dates',
      '2010-10-01/2012-09-30',
      '--out',
      long,
    );
    const rows = pythonCsv(long);
    assert.deepEqual(rows[0], [
      'pourpoint',
      'date',
      'terrain.elevation_min_ft',
      'terrain.elevation_max_ft',
      'area_m2',
      ...variables,
    ]);
    const body = rows.slice(1);
    const inRange = [...want.keys()].filter(
      (k) => k.split('|')[1]! >= '2010-10-01' && k.split('|')[1]! <= '2012-09-30',
    );
    assert.equal(body.length, inRange.length);
    for (const [b, date, min, , area, ...values] of body) {
      const w = want.get(`${b}|${date}|${min === '' ? 'unclassified' : Number(min)}`)!;
      assert.equal(Number(area), w.area);
      assert.deepEqual(
        values.map((v) => (v === '' ? null : Number(v))),
        w.values,
      );
    }
    const byBasin = join(dir, 'by-basin');
    await ok(
      'export',
      'hist',
      '--zone',
      'terrain.elevation',
      '--to',
      'csv',
      '--layout',
      'by-basin',
      '--dates',
      '2010-10-01/2012-09-30',
      '--out',
      byBasin,
    );
    assert.deepEqual((await readdir(byBasin)).sort(), ['FULL_UT_TEST.csv', 'HALF_UT_TEST.csv']);
    const full = pythonCsv(join(byBasin, 'FULL_UT_TEST.csv'));
    assert.deepEqual(
      full.slice(1),
      body.filter((r) => r[0] === FULL).map((r) => r.slice(1)),
    );
    const byDate = join(dir, 'by-date');
    await ok(
      'export',
      'hist',
      '--zone',
      'terrain.elevation',
      '--to',
      'csv',
      '--layout',
      'by-date',
      '--dates',
      '2010-10-01/2012-09-30',
      '--out',
      byDate,
    );
    const files = (await readdir(byDate)).sort();
    assert.equal(files.length, 731);
    const day = pythonCsv(join(byDate, '20120401.csv'));
    assert.deepEqual(
      day.slice(1),
      body.filter((r) => r[1] === '2012-04-01'),
    );
  });

  it('CSV, wide: a date per row and a basin per column; a basin and water year per row and a band per column', async () => {
    const wide = join(dir, 'wide.csv');
    await ok(
      'export',
      'hist',
      '--to',
      'csv',
      '--layout',
      'date-by-basin',
      '--dates',
      '2011-01-01/2011-03-31',
      '--out',
      wide,
    );
    const rows = pythonCsv(wide);
    assert.deepEqual(rows[0], [`date (${variables[0]})`, FULL, HALF]);
    assert.equal(rows.length - 1, 90);
    for (const [i, b] of [FULL, HALF].entries()) {
      const s = JSON.parse(
        (await ok('stats', 'hist', b, '--dates', '2011-01-01/2011-03-31')).stdout,
      ) as Stats;
      for (const row of rows.slice(1))
        assert.equal(Number(row[i + 1]), s.results[row[0]!]![0]![0], `${b} ${row[0]}`);
    }
    const years = join(dir, 'years.csv');
    await ok(
      'export',
      'hist',
      '--zone',
      'terrain.elevation',
      '--to',
      'csv',
      '--layout',
      'year-by-band',
      '--out',
      years,
    );
    const table = pythonCsv(years);
    assert.equal(table[0]![1], `water_year (${variables[0]} on 04-01)`);
    assert.equal(table.length - 1, 2 * 20, 'two basins × water years 2004–2023 (2024 has no 1 April yet)');
    let cells = 0;
    for (const row of table.slice(1))
      table[0]!.slice(2).forEach((label, j) => {
        const m = /^(-?\d+)–-?\d+ ft$/.exec(label);
        const w = want.get(`${row[0]}|${row[1]}-04-01|${m ? Number(m[1]) : 'unclassified'}`);
        assert.equal(
          row[j + 2] === '' ? undefined : Number(row[j + 2]),
          w?.values[0] ?? undefined,
          `${row[0]} ${row[1]} ${label}`,
        );
        if (w !== undefined) cells++;
      });
    assert.ok(cells > 40, `${cells} band values`);
  });

  it('a killed export leaves nothing at --out; the next one clears what it left and writes it whole', async () => {
    const out = join(dir, 'killed.parquet');
    const child = spawn(
      process.execPath,
      [CLI, 'export', 'hist', '--zone', 'terrain.elevation', '--out', out],
      {
        env: { ...env, PATH: process.env.PATH },
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    let err = '';
    child.stderr.setEncoding('utf8').on('data', (d: string) => (err += d));
    // Killed (SIGKILL: no clean-up) once a few water years are written.
    while (!/chunk 4 of/.test(err)) await once(child.stderr, 'data');
    child.kill('SIGKILL');
    await once(child, 'close');
    await assert.rejects(stat(out), { code: 'ENOENT' });
    const left = (await readdir(dir)).filter((f) => f.startsWith('.killed.parquet.'));
    assert.equal(left.length, 1, 'its temp file, named with its pid');
    const again = await ok('export', 'hist', '--zone', 'terrain.elevation', '--out', out);
    assert.match(again.stderr, /removed \.killed\.parquet\.\d+-[0-9a-f]{8}\.tmp/);
    assert.deepEqual(
      (await readdir(dir)).filter((f) => f.startsWith('.killed.parquet.')),
      [],
    );
    assert.ok((await stat(out)).size > 0);
  });

  it('over HTTP: a water year as Parquet or CSV, the same rows; a longer range is refused', async () => {
    const app = await buildApp(await Database.open(env.SNOWDB_CONFIG!));
    try {
      const url = '/datasets/hist/export?datetime=2012-10-01/2013-09-30&zone=terrain.elevation';
      const pq = await app.inject({ method: 'GET', url });
      assert.equal(pq.statusCode, 200, pq.body);
      assert.equal(pq.headers['content-type'], 'application/vnd.apache.parquet');
      const file = join(dir, 'http.parquet');
      await writeFile(file, pq.rawPayload);
      const c = await (await DuckDBInstance.create(':memory:')).connect();
      const rows = (
        await c.runAndReadAll(
          `select pourpoint, strftime(date, '%Y-%m-%d'), "terrain.elevation_min_ft", area_m2, * exclude (pourpoint, date, "terrain.elevation_min_ft", "terrain.elevation_max_ft", area_m2) from read_parquet('${file}')`,
        )
      ).getRows();
      const inYear = [...want.keys()].filter(
        (k) => k.split('|')[1]! >= '2012-10-01' && k.split('|')[1]! <= '2013-09-30',
      );
      assert.equal(rows.length, inYear.length);
      for (const [b, date, min, area, ...values] of rows) {
        const w = want.get(`${b}|${date}|${min ?? 'unclassified'}`)!;
        assert.equal(area, w.area);
        assert.deepEqual(values, w.values);
      }
      const csv = await app.inject({ method: 'GET', url: `${url}&format=csv&basin=${FULL}` });
      assert.equal(csv.statusCode, 200);
      const lines = csv.body.trimEnd().split('\r\n');
      assert.equal(lines.length - 1, inYear.filter((k) => k.startsWith(`${FULL}|`)).length);
      const long = await app.inject({
        method: 'GET',
        url: '/datasets/hist/export?datetime=2010-01-01/2012-12-31',
      });
      assert.equal(long.statusCode, 422);
      assert.match(long.json().detail, /at most 366 \(a water year\)/);
      const info = (await app.inject({ method: 'GET', url: '/datasets/hist' })).json();
      assert.ok(info.links.some((l: { rel: string }) => l.rel === 'export'));
      assert.deepEqual(
        (await readdir(tmpdir())).filter((f) => f.startsWith(`snowdb-export-${process.pid}-`)),
        [],
      );
    } finally {
      await app.close();
    }
  });

  it('what an HTTP export killed mid-way left in the temp dir is debris: doctor names it, --fix removes it', async () => {
    // A process that has ended: its pid names the files as an export server of it would have.
    const gone = spawn(process.execPath, ['-e', '0']);
    await once(gone, 'close');
    const pid = gone.pid!;
    const left = [
      `.snowdb-export-${pid}-req-7.parquet.${pid}-0a1b2c3d.tmp`,
      `snowdb-export-${pid}-req-8.csv`,
    ];
    for (const f of left) await writeFile(join(tmpdir(), f), 'part of an export');
    try {
      const doctor = await snowdb(['doctor', '--check', 'debris'], { env });
      assert.equal(doctor.code, 1, doctor.stdout);
      for (const f of left) assert.ok(doctor.stdout.includes(join(tmpdir(), f)), `${f}: ${doctor.stdout}`);
      assert.match(doctor.stdout, /HTTP export being written \(temp dir\)/);
      const fixed = await snowdb(['doctor', '--check', 'debris', '--fix'], { env });
      assert.equal(fixed.code, 0, fixed.stdout);
      for (const f of left) await assert.rejects(stat(join(tmpdir(), f)), { code: 'ENOENT' });
    } finally {
      for (const f of left) await rm(join(tmpdir(), f), { force: true });
    }
  });

  it('static files for a bucket: a CSV per basin and per date, the latest per basin, one Parquet, an index; unchanged files not uploaded again', async () => {
    // A copy of the fixture holding its dates from RECENT on (a file per date: 7,400 of them cost
    // ~25 s of fsyncs and hashing and test nothing more), its series store rebuilt.
    const RECENT = '20230601';
    const root = join(dir, 'recent');
    await cp(env.SNOWDB_CONFIG!, root, {
      recursive: true,
      filter: (src) => !/[/]series$/.test(src) && (!/[/]cogs[/]\d{8}$/.test(src) || src.slice(-8) >= RECENT),
    });
    const r0 = await snowdb(['dataset', 'rebuild-series', 'hist'], { env: { SNOWDB_CONFIG: root } });
    assert.equal(r0.code, 0, r0.stderr);
    const recent = new Map([...want].filter(([k]) => k.split('|')[1]!.replaceAll('-', '') >= RECENT));
    const target = join(dir, 'bucket');
    const db = await Database.open(root);
    const [r] = await publishStatic(db, new DirBucket(target), ['terrain.elevation']);
    const dates = new Set([...recent.keys()].map((k) => k.split('|')[1]!));
    assert.ok(dates.size > 200 && dates.size < 300, `${dates.size} dates`);
    assert.equal(r!.files, 2 + dates.size + 2 + 1);
    assert.equal(r!.uploaded, r!.files);
    const index = JSON.parse(await readFile(join(target, 'static/hist/index.json'), 'utf8'));
    assert.equal(Object.keys(index.files).length, r!.files);
    for (const [f, e] of Object.entries(index.files as Record<string, { size: number }>).slice(0, 50))
      assert.equal((await stat(join(target, 'static/hist', f))).size, e.size, f);
    // Each basin's latest: its newest date's rows, as the stats API gives them.
    const newest = [...dates].sort().at(-1)!;
    const latest = pythonCsv(join(target, 'static/hist/latest/FULL_UT_TEST.csv'));
    const wantLatest = [...recent.entries()].filter(([k]) => k.startsWith(`${FULL}|${newest}|`));
    assert.equal(latest.length - 1, wantLatest.length);
    for (const row of latest.slice(1)) {
      assert.equal(row[0], newest);
      const w = recent.get(`${FULL}|${newest}|${row[1] === '' ? 'unclassified' : Number(row[1])}`)!;
      assert.deepEqual(
        row.slice(4).map((v) => (v === '' ? null : Number(v))),
        w.values,
      );
    }
    const c = await (await DuckDBInstance.create(':memory:')).connect();
    const n = (
      await c.runAndReadAll(
        `select count(*) from read_parquet('${join(target, 'static/hist/hist.parquet')}')`,
      )
    ).getRows();
    assert.equal(Number(n[0]![0]), recent.size);
    const [again] = await publishStatic(db, new DirBucket(target), ['terrain.elevation']);
    assert.deepEqual([again!.uploaded, again!.removed], [0, 0]);
  });

  it('names bad arguments, and writes nothing', async () => {
    const before_ = (await readdir(dir)).sort();
    for (const [args, msg] of [
      [
        ['export', 'hist', '--basin', 'NOPE:UT:TEST', '--out', join(dir, 'x.parquet')],
        /'NOPE:UT:TEST': not a basin hist covers/,
      ],
      [['export', 'hist', '--set', 'huc12', '--out', join(dir, 'x.parquet')], /no basin of set 'huc12'/],
      [
        ['export', 'hist', '--dates', '1990-01-01/1990-12-31', '--out', join(dir, 'x.parquet')],
        /no date of hist in 1990-01-01\/1990-12-31/,
      ],
      [
        ['export', 'hist', '--layout', 'by-basin', '--out', join(dir, 'x.parquet')],
        /layout 'by-basin' is for CSV/,
      ],
      [
        ['export', 'hist', '--out', join(dir, 'hist.parquet')],
        /exists: choose another path, or --replace it/,
      ],
      [['export', 'hist', '--zone', 'terrain.nope', '--out', join(dir, 'x.parquet')], /terrain\.nope/],
      [['export', 'nope', '--out', join(dir, 'x.parquet')], /nope/],
    ] as const) {
      const r = await snowdb(args, { env });
      assert.notEqual(r.code, 0, args.join(' '));
      assert.match(r.stderr, msg, args.join(' '));
    }
    assert.deepEqual((await readdir(dir)).sort(), before_);
  });
});

describe('the Parquet sink: row groups of 100,000 rows whatever the basins, typed columns with nulls', () => {
  it('613 basins × 366 dates: groups of 100,000, 100,000 and 24,358, every value and null where written', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'snowdb-parquet-'));
    try {
      const out = join(dir, 'rows.parquet');
      const dates = Array.from({ length: 366 }, (_, d) =>
        new Date(Date.UTC(2023, 9, 1 + d)).toISOString().slice(0, 10),
      );
      const basins = Array.from({ length: 613 }, (_, b) => `huc12:${String(b).padStart(6, '0')}`);
      // mean = b·1000 + d, null where (b + d) mod 97 = 0; total = mean × 2; area = b + 0.5.
      const mean = (b: number, d: number) => ((b + d) % 97 === 0 ? null : b * 1000 + d);
      const sink = await sinkFor(
        'parquet',
        'long',
        out,
        { generator: 'test' },
        { pourpoints: basins, names: basins, dates, axes: [] },
      );
      for (const [b, id] of basins.entries()) {
        const results: Record<string, (number | null)[][]> = {};
        for (const [d, date] of dates.entries()) {
          const m = mean(b, d);
          results[date] = [[m, m === null ? null : m * 2]];
        }
        await sink.basin(id, {
          zone_layers: [],
          variables: ['mean_swe_mm', 'total_swe_m3'],
          zones: [{ zone: [], area_m2: b + 0.5 }],
          results,
        });
      }
      await sink.chunkEnd();
      await sink.finish();
      const c = await (await DuckDBInstance.create(':memory:')).connect();
      const rows = async (q: string) => (await c.runAndReadAll(q)).getRows();
      const groups = await rows(
        `select distinct row_group_id, row_group_num_rows from parquet_metadata('${out}') order by 1`,
      );
      assert.deepEqual(
        groups.map((g) => Number(g[1])),
        [100_000, 100_000, 613 * 366 - 200_000],
      );
      const types = await rows(`select column_name, column_type from (describe select * from '${out}')`);
      assert.deepEqual(types, [
        ['pourpoint', 'VARCHAR'],
        ['date', 'DATE'],
        ['area_m2', 'DOUBLE'],
        ['mean_swe_mm', 'DOUBLE'],
        ['total_swe_m3', 'DOUBLE'],
      ]);
      const got = await rows(
        `select pourpoint, strftime(date, '%Y-%m-%d'), area_m2, mean_swe_mm, total_swe_m3 from '${out}'`,
      );
      assert.equal(got.length, 613 * 366);
      let nulls = 0;
      got.forEach(([id, date, area, m, t], i) => {
        const b = Math.floor(i / 366);
        const d = i % 366;
        assert.deepEqual([id, date, area], [basins[b], dates[d], b + 0.5], `row ${i}`);
        assert.equal(m, mean(b, d), `row ${i}`);
        assert.equal(t, m === null ? null : (m as number) * 2, `row ${i}`);
        if (m === null) nulls++;
      });
      // (b + d) mod 97 = 0 for about one row in 97.
      let expected = 0;
      for (let b = 0; b < 613; b++) for (let d = 0; d < 366; d++) if ((b + d) % 97 === 0) expected++;
      assert.equal(nulls, expected);
      assert.ok(nulls > 2000);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
