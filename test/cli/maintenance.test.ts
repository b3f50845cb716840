import assert from 'node:assert/strict';
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { snowdb, tempDir } from '../helpers/cli.js';
import { logicalTree } from '../helpers/fs.js';
import { COLS, ROWS } from '../helpers/snodas.js';
import { buildZionDb, HOLE_COL, ZION, ZION_DAYS, zionSwe } from '../helpers/zion-db.js';

describe('operator commands: dataset dates, dataset remove-date, pourpoint remove, listings as CSV', () => {
  let dir: string;
  let cleanup: () => Promise<void>;
  let env: Record<string, string>;
  const cli = (...args: string[]) => snowdb(args, { env });
  const db = () => join(dir, 'db');

  before(async () => {
    ({ dir, cleanup } = await tempDir());
    env = await buildZionDb(dir);
  });
  after(() => cleanup());

  /** Each command fails with exit 1, names the problem, and leaves the database as it was. */
  async function refused(cases: readonly [readonly string[], RegExp][]): Promise<void> {
    const before = await logicalTree(db());
    for (const [args, message] of cases) {
      const r = await cli(...args);
      assert.equal(r.code, 1, `${args.join(' ')}: ${r.stdout}${r.stderr}`);
      assert.match(r.stderr, message, args.join(' '));
    }
    assert.deepEqual(await logicalTree(db()), before);
  }

  it('dataset dates lists the ingested dates, or the missing days of a range, as a table, JSON or CSV', async () => {
    const t = await cli('dataset', 'dates', 'snodas');
    assert.equal(t.code, 0, t.stderr);
    assert.equal(t.stdout, 'date\n2024-01-15\n2024-01-16\n');
    const csv = await cli(
      'dataset',
      'dates',
      'snodas',
      '--missing',
      '--from',
      '20240113',
      '--to',
      '2024-01-18',
      '--format',
      'csv',
    );
    assert.equal(csv.stdout, 'date\n2024-01-13\n2024-01-14\n2024-01-17\n2024-01-18\n');
    const json = JSON.parse(
      (await cli('dataset', 'dates', 'snodas', '--from', '2024-01-16', '--format', 'json')).stdout,
    );
    assert.deepEqual(json, {
      dataset: 'snodas',
      kind: 'ingested',
      from: '2024-01-16',
      to: null,
      dates: ['2024-01-16'],
    });
    const none = await cli('dataset', 'dates', 'snodas', '--missing');
    assert.match(none.stdout, /^no missing days from 2024-01-15 to 2024-01-16$/m);
    await refused([
      [['dataset', 'dates', 'nope'], /dataset 'nope'/],
      [['dataset', 'dates', 'snodas', '--from', '2024-02-30'], /'2024-02-30' is not a calendar date/],
      [
        ['dataset', 'dates', 'snodas', '--from', '2024-01-16', '--to', '2024-01-15'],
        /--from 2024-01-16 is after --to 2024-01-15/,
      ],
    ]);
  });

  it('dataset values: min, max and mean of the valid cells and the nodata share, per variable of a date', async () => {
    // 2024-01-15: SWE 100 mm everywhere but HOLE_COL (nodata): 1 column of 6935.
    const first = await cli('dataset', 'values', 'snodas', '--date', '20240115', '--format', 'json');
    assert.equal(first.code, 0, first.stderr);
    const r = JSON.parse(first.stdout);
    assert.equal(r.date, '2024-01-15');
    assert.deepEqual(
      r.variables.map((v: { variable: string }) => v.variable),
      [
        'average_temp',
        'depth',
        'precip_liquid',
        'precip_solid',
        'runoff',
        'sublimation',
        'sublimation_blowing',
        'swe',
      ],
    );
    const hole = Math.round(100_000 / COLS) / 1000; // % of cells in one column
    assert.deepEqual(r.variables.at(-1), {
      variable: 'swe',
      unit: 'mm',
      min: 100,
      max: 100,
      mean: 100,
      nodata_pct: hole,
    });
    // 2024-01-16 (the default: the last date): SWE from the generator's formula, summed here.
    const swe = zionSwe(ZION_DAYS[1]![1]);
    let sum = 0;
    for (let row = 0; row < ROWS; row++)
      for (let col = 0; col < COLS; col++) if (col !== HOLE_COL) sum += swe(row, col);
    const csv = await cli('dataset', 'values', 'snodas', '--format', 'csv');
    assert.equal(csv.code, 0, csv.stderr);
    const [header, ...rows] = csv.stdout.trim().split('\n');
    assert.equal(header, 'variable,unit,min,max,mean,nodata_pct');
    const [name, unit, min, max, mean, pct] = rows.at(-1)!.split(',');
    assert.deepEqual([name, unit, min, max, pct], ['swe', 'mm', '20', '60', hole.toFixed(3)]);
    assert.ok(
      Math.abs(Number(mean) - sum / (ROWS * (COLS - 1))) < 1e-9,
      `${mean} vs ${sum / (ROWS * (COLS - 1))}`,
    );
    await refused([
      [['dataset', 'values', 'snodas', '--date', '2024-01-17'], /snodas has no date 2024-01-17/],
      [['dataset', 'values', 'snodas', '--date', '2024-02-30'], /'2024-02-30' is not a calendar date/],
      [['dataset', 'values', 'nope'], /no dataset 'nope'/],
    ]);
  });

  it('pourpoint list --format csv: one row per basin, quoted where needed', async () => {
    const r = await cli('pourpoint', 'list', '--format', 'csv');
    const [header, row, ...rest] = r.stdout.trim().split('\n');
    assert.equal(
      header,
      'triplet,name,area_meters,lon,lat,west,south,east,north,outlet,outlet_outside_m,area_vs_declared_percent,coverage',
    );
    // The outflow point lies in the basin's box (lon/lat degrees), west < east, south < north.
    const num = '(-?\\d+(?:\\.\\d+)?(?:e-?\\d+)?)';
    const m = new RegExp(
      `^${ZION},[^,]+,${Array(7).fill(num).join(',')},true,${num},${num}?,snodas:full$`,
    ).exec(row!);
    assert.ok(m, row);
    const [area, lon, lat, w, s, e, n, outside] = m.slice(1).map(Number) as number[];
    assert.ok(area! > 1e6, row);
    assert.ok(
      w! < e! && s! < n! && lon! >= w! - 0.01 && lon! <= e! + 0.01 && lat! >= s! - 0.01 && lat! <= n! + 0.01,
      row,
    );
    assert.ok(outside! >= 0, row);
    assert.deepEqual(rest, []);
  });

  it('dataset remove-date: --dry-run changes nothing; a removal takes the date and its series pages; an unknown date changes nothing', async () => {
    const before = await logicalTree(db());
    const dry = await cli('dataset', 'remove-date', 'snodas', '2024-01-16', '--dry-run');
    assert.equal(dry.stdout.trim(), 'would remove snodas 2024-01-16');
    assert.deepEqual(await logicalTree(db()), before);
    await refused([
      [['dataset', 'remove-date', 'snodas', '2024-01-16', '2024-01-17'], /snodas has no date 2024-01-17/],
      [['dataset', 'remove-date', 'snodas', '16 Jan'], /'16 Jan' is not a calendar date/],
      [['dataset', 'remove-date', 'nope', '2024-01-16'], /dataset 'nope'/],
    ]);
    const r = await cli('dataset', 'remove-date', 'snodas', '20240116');
    assert.equal(r.stdout.trim(), 'removed snodas 2024-01-16');
    const cogs = join(db(), 'data/snodas/cogs');
    assert.deepEqual((await readdir(cogs)).filter((n) => !n.startsWith('.') || n.endsWith('.v')).length, 2);
    assert.deepEqual(
      (await cli('dataset', 'dates', 'snodas', '--format', 'csv')).stdout,
      'date\n2024-01-15\n',
    );
    // The series store no longer answers for the date; doctor finds the store level with the COGs.
    const doc = await cli('doctor', '--dataset', 'snodas', '--check', 'series', '--check', 'dates');
    assert.equal(doc.code, 0, doc.stdout);
    assert.equal((await cli('dataset', 'activate', 'snodas')).code, 0);
    const stats = await cli(
      'stats',
      'snodas',
      ZION,
      '--variable',
      'swe',
      '--dates',
      '2024-01-15/2024-01-16',
      '--format',
      'csv',
    );
    assert.deepEqual(
      stats.stdout
        .trim()
        .split('\n')
        .slice(1)
        .map((l) => l.split(',')[0]),
      ['2024-01-15'],
    );
    // One year is a span of one: --years 2024 answers as --years 2024..2024.
    const doy = (years: string) =>
      cli('stats', 'snodas', ZION, '--variable', 'swe', '--doy', '01-15', '--years', years);
    const [one, span] = [await doy('2024'), await doy('2024..2024')];
    assert.equal(one.code, 0, one.stderr);
    assert.equal(one.stdout, span.stdout);
    assert.match(one.stdout, /2024-01-15/);
  });

  it('pourpoint remove: --dry-run names the files; removal takes record, index entry and AOI rasters; bad triplets change nothing', async () => {
    const record = join(db(), 'pourpoints/09406000_UT_USGS.geojson');
    const aoi = join(db(), 'data/snodas/aoi/09406000_UT_USGS.tif');
    const before = await logicalTree(db());
    const dry = await cli('pourpoint', 'remove', ZION, '--dry-run');
    assert.equal(dry.stdout, `would remove ${ZION}\n  would delete ${record}\n  would delete ${aoi}\n`);
    assert.deepEqual(await logicalTree(db()), before);
    await refused([
      [['pourpoint', 'remove', ZION, 'NOPE:UT:USGS'], /pourpoint 'NOPE:UT:USGS' is not in the database/],
      [['pourpoint', 'remove', '../etc/passwd'], /is not a basin id/],
    ]);
    const r = await cli('pourpoint', 'remove', ZION);
    assert.equal(r.code, 0, r.stderr);
    assert.deepEqual(await readdir(join(db(), 'data/snodas/aoi')), []);
    assert.ok(!(await readdir(join(db(), 'pourpoints'))).includes('09406000_UT_USGS.geojson'));
    const index = JSON.parse(await readFile(join(db(), 'pourpoints/index.geojson'), 'utf8')) as {
      features: unknown[];
    };
    assert.equal(index.features.length, 0);
    assert.equal(
      (await cli('pourpoint', 'list', '--format', 'csv')).stdout,
      'triplet,name,area_meters,lon,lat,west,south,east,north,outlet,outlet_outside_m,area_vs_declared_percent,coverage\n',
    );
    const doc = await cli('doctor', '--include-inactive');
    assert.equal(doc.code, 0, doc.stdout);
    // The series store still holds the removed basin's pixels (every one): information, not a
    // failure, until a rebuild gives their space back.
    const unused = /series\/blocks\.bin\s+(\d+) of (\d+) stored pixel\(s\) lie under no basin now/.exec(
      doc.stdout,
    );
    assert.ok(unused !== null && Number(unused[1]) > 0 && unused[1] === unused[2], doc.stdout);
    const rebuilt = await cli('dataset', 'rebuild-series', 'snodas');
    assert.equal(rebuilt.code, 0, rebuilt.stderr);
    const after = await cli('doctor', '--include-inactive');
    assert.equal(after.code, 0, after.stdout);
    assert.doesNotMatch(after.stdout, /under no basin/);
  });
});
