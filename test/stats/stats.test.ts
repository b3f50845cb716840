import assert from 'node:assert/strict';
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { snowdb, snowdbOnTty, tempDir } from '../helpers/cli.js';
import { type OracleInfo, oracle } from '../helpers/gdal.js';
import { fixturePath } from '../helpers/raster.js';
import { buildZionDb, importOffGrid, ZION } from '../helpers/zion-db.js';

const TRIPLET = ZION;

interface Body {
  zone_layers: string[];
  variables: string[];
  zones: { zone: Record<string, unknown>[]; area_m2: number }[];
  results: Record<string, (number | null)[][]>;
}
type Zonal = Record<string, { area_m2: number; valid_m2: number; mean: number | null; sum: number }>;

const close = (a: number, b: number, rel = 1e-9) =>
  Math.abs(a - b) <= rel * Math.max(Math.abs(a), Math.abs(b));

/** Each cell's area, mean and volume (mm → m³) on `date` equal the oracle's to 1e-9 relative. */
function matchCells(b: Body, date: string, refOf: (zone: Body['zones'][number], k: number) => Zonal[string]) {
  b.zones.forEach((z, k) => {
    const ref = refOf(z, k);
    const [mean, total] = b.results[date]![k]!;
    const at = `cell ${k} ${JSON.stringify(z.zone)}`;
    assert.ok(close(z.area_m2, ref.area_m2), `${at}: area ${z.area_m2} vs ${ref.area_m2}`);
    assert.ok(close(mean!, ref.mean!), `${at}: mean ${mean} vs ${ref.mean}`);
    assert.ok(close(total!, ref.sum * 0.001), `${at}: total ${total} vs ${ref.sum * 0.001}`);
  });
}

describe('stats: the stratified query engine and `snowdb stats`', () => {
  let dir: string;
  let cleanup: () => Promise<void>;
  let env: Record<string, string>;
  const cli = (...args: string[]) => snowdb(args, { env });
  const stats = async (...args: string[]): Promise<Body> => {
    const r = await cli('stats', 'snodas', TRIPLET, ...args);
    assert.equal(r.code, 0, r.stderr);
    return JSON.parse(r.stdout) as Body;
  };
  const db = () => join(dir, 'db');
  const aoi = () => join(db(), 'data', 'snodas', 'aoi', '09406000_UT_USGS.tif');
  const cog = (date: string, v: string) => join(db(), 'data', 'snodas', 'cogs', date, `${v}.tif`);
  /** SWE on 2024-01-16 (pixel-varying values) with more arguments. */
  const swe16 = (...args: string[]) =>
    stats('--dates', '2024-01-16/2024-01-16', '--variable', 'swe', ...args);
  /** The numpy oracle on 2024-01-16's SWE over the AOI weights, cells from a terrain layer. */
  const zonalOn = (layer: string, step: string) =>
    oracle<Zonal>(
      'zonal',
      aoi(),
      cog('20240116', 'swe'),
      '1',
      join(db(), `data/snodas/zones/terrain/${layer}.tif`),
      step,
    );

  before(async () => {
    ({ dir, cleanup } = await tempDir());
    env = await buildZionDb(dir);
  });
  after(() => cleanup());

  it('an inactive dataset is invisible to stats; activated, it answers', async () => {
    const r = await cli('stats', 'snodas', TRIPLET);
    assert.equal(r.code, 1);
    assert.match(
      r.stderr,
      /dataset 'snodas' is not active \(activate it with 'snowdb dataset activate snodas'\)/,
    );
    assert.equal((await cli('dataset', 'activate', 'snodas')).code, 0);
    assert.equal((await cli('stats', 'snodas', TRIPLET)).code, 0);
  });

  it('whole basin (K = 0): uniform 100 mm gives mean 100, volume over the valid area, valid fraction', async () => {
    const b = await stats('--dates', '2024-01-15/2024-01-15', '--variable', 'swe', '--valid-fraction');
    assert.deepEqual(b.zone_layers, []);
    assert.deepEqual(b.variables, ['mean_swe_mm', 'total_swe_m3', 'valid_fraction_swe']);
    assert.equal(b.zones.length, 1);
    assert.deepEqual(b.zones[0]!.zone, []);
    const [info] = await oracle<OracleInfo[]>('info', aoi());
    const area = Number(info!.metadata.SNOWDB_AOI_AREA_M2);
    const o = (await oracle<Zonal>('zonal', aoi(), cog('20240115', 'swe'), '1'))['0']!;
    // The AOI raster holds float64 weights: their sum is the basin area to rounding.
    assert.ok(close(b.zones[0]!.area_m2, o.area_m2), `${b.zones[0]!.area_m2} vs ${o.area_m2}`);
    assert.ok(close(o.area_m2, area, 1e-8), `${o.area_m2} vs tag ${area}`);
    assert.ok(o.valid_m2 < area, 'the nodata column lies in the basin');
    const [mean, total, valid] = b.results['2024-01-15']![0]!;
    assert.ok(Math.abs(mean! - 100) < 1e-12, String(mean));
    assert.ok(close(total!, 100 * 0.001 * o.valid_m2), `${total} vs ${0.1 * o.valid_m2}`);
    assert.ok(close(valid!, o.valid_m2 / o.area_m2));
  });

  it('elevation bands match a numpy recomputation to 1e-9; empty bands only on request', async () => {
    const b = await stats('--dates', '2024-01-16/..', '--zone', 'terrain.elevation', '--variable', 'swe');
    assert.deepEqual(b.zone_layers, ['terrain.elevation']);
    const o = await zonalOn('elevation', '1000');
    // The Zion DEM stops short of the basin: its pixels outside it are the last cell, 'unclassified'.
    const key = (z: Body['zones'][number]) =>
      z.zone[0]!.kind === 'unclassified' ? 'unclassified' : String(z.zone[0]!.min);
    assert.deepEqual(b.zones.map(key), [
      ...Object.keys(o)
        .filter((k) => k !== 'unclassified')
        .sort((x, y) => Number(x) - Number(y)),
      'unclassified',
    ]);
    for (const z of b.zones.slice(0, -1)) assert.equal(z.zone[0]!.max, (z.zone[0]!.min as number) + 1000);
    assert.deepEqual(b.zones.at(-1)!.zone, [{ kind: 'unclassified', layer: 'terrain.elevation' }]);
    matchCells(b, '2024-01-16', (z) => o[key(z)]!);
    // Bucketed: northness in 2 buckets of -1..1 (top edge inclusive); flat cells drop out.
    const nb = await stats(
      '--dates',
      '2024-01-16/..',
      '--zone',
      'terrain.northness:buckets=2',
      '--variable',
      'swe',
    );
    assert.deepEqual(
      nb.zones.map((z) => [z.zone[0]!.min ?? z.zone[0]!.kind, z.zone[0]!.max ?? null]),
      [
        [-1, 0],
        [0, 1],
        ['unclassified', null], // flat pixels and those past the DEM
      ],
    );
    const on = await zonalOn('northness', 'buckets:-1:1:2');
    matchCells(
      nb,
      '2024-01-16',
      (z, k) => on[z.zone[0]!.kind === 'unclassified' ? 'unclassified' : String(k)]!,
    );
    // Cell areas sum to the whole basin, whichever axis.
    const whole = (await swe16()).zones[0]!.area_m2;
    for (const x of [b, nb])
      assert.ok(
        close(
          x.zones.reduce((t, z) => t + z.area_m2, 0),
          whole,
        ),
      );
    const all = await swe16('--zone', 'terrain.elevation', '--include-empty-zones');
    assert.equal(all.zones.length, 17, 'every band of the crossing, then the unclassified cell');
    const empty = all.zones
      .map((z, k) => [z, all.results['2024-01-16']![k]!] as const)
      .filter(([z]) => z.area_m2 === 0);
    assert.equal(empty.length, 17 - b.zones.length);
    for (const [, row] of empty) assert.deepEqual(row, [null, null]);
  });

  it('a real basin end to end: areas, means and totals match OGR cell-polygon intersections × GDAL values to 1e-9', async () => {
    const o = await oracle<{ basin: Zonal[string]; bands: Zonal }>(
      'basin-stats',
      cog('20240116', 'swe'),
      fixturePath('zion/pourpoints/09406000_UT_USGS.geojson'),
      '1',
      join(db(), 'data/snodas/zones/terrain/elevation.tif'),
      '1000',
    );
    const whole = await stats('--dates', '2024-01-16/2024-01-16', '--variable', 'swe', '--valid-fraction');
    const [mean, total, valid] = whole.results['2024-01-16']![0]!;
    const ob = o.bands;
    assert.ok(
      close(whole.zones[0]!.area_m2, o.basin.area_m2),
      `area ${whole.zones[0]!.area_m2} vs OGR ${o.basin.area_m2}`,
    );
    assert.ok(close(mean!, o.basin.mean!), `mean ${mean} vs OGR ${o.basin.mean}`);
    assert.ok(close(total!, o.basin.sum * 0.001), `total ${total} vs OGR ${o.basin.sum * 0.001}`);
    assert.ok(close(valid!, o.basin.valid_m2 / o.basin.area_m2), `valid ${valid}`);
    // Values vary pixel to pixel, so a wrong weight anywhere moves the mean.
    assert.ok(mean! > 20 && mean! < 60 && Math.abs(mean! - 40) > 1e-6, String(mean));
    const bands = await swe16('--zone', 'terrain.elevation');
    assert.equal(bands.zones.length, Object.keys(ob).length);
    assert.ok('unclassified' in ob);
    matchCells(bands, '2024-01-16', (z) =>
      z.zone[0]!.kind === 'unclassified' ? ob.unclassified! : ob[String(z.zone[0]!.min)]!,
    );
  });

  it('crossed axes in flat product order (first axis outermost); CSV carries the same values', async () => {
    const args = [
      '--dates',
      '2024-01-16/2024-01-16',
      '--zone',
      'terrain.aspect',
      '--zone',
      'landcover.forest_cover:threshold_pct=30',
      '--variable',
      'swe',
      '--variable',
      'depth',
    ];
    const b = await stats(...args, '--include-empty-zones');
    assert.equal(b.zones.length, 11);
    assert.deepEqual(
      b.zones.map((z) => `${z.zone[0]!.label ?? z.zone[0]!.kind}/${z.zone[1]!.side ?? z.zone[1]!.kind}`),
      [
        ...['N', 'E', 'S', 'W', 'flat'].flatMap((a) => [`${a}/below`, `${a}/above`]),
        'unclassified/unclassified',
      ],
    );
    assert.deepEqual(b.variables, ['mean_depth_mm', 'mean_swe_mm', 'total_swe_m3']);
    // depth is nodata over the basin: null, never NaN.
    for (const row of b.results['2024-01-16']!) assert.equal(row[0], null);
    const csv = await cli('stats', 'snodas', TRIPLET, ...args, '--include-empty-zones', '--format', 'csv');
    assert.equal(csv.code, 0, csv.stderr);
    const lines = csv.stdout.split('\r\n').filter((l) => l.trim() !== '');
    assert.equal(
      lines[0],
      'date,terrain.aspect,landcover.forest_cover_side,landcover.forest_cover_threshold_%,area_m2,mean_depth_mm,mean_swe_mm,total_swe_m3',
    );
    assert.equal(lines.length, 12);
    lines.slice(1).forEach((line, k) => {
      const f = line.trim().split(',');
      const z = b.zones[k]!;
      const lost = z.zone[0]!.kind === 'unclassified';
      assert.deepEqual(f.slice(0, 4), [
        '2024-01-16',
        ...(lost ? ['unclassified', 'unclassified', ''] : [z.zone[0]!.label, z.zone[1]!.label, '30']),
      ]);
      assert.equal(Number(f[4]), z.area_m2);
      const row = b.results['2024-01-16']![k]!;
      assert.deepEqual(
        f.slice(5).map((x) => (x === '' ? null : Number(x))),
        row,
      );
    });
    assert.doesNotMatch(csv.stdout, /nan/i);
  });

  it('JSON is minified when piped and indented 2 on a terminal, with the same content', async () => {
    const args = ['stats', 'snodas', TRIPLET, '--dates', '2024-01-15/2024-01-16', '--zone', 'terrain.aspect'];
    const piped = await cli(...args);
    assert.equal(piped.code, 0, piped.stderr);
    assert.equal(piped.stdout.trimEnd().includes('\n'), false);
    const body = JSON.parse(piped.stdout) as Body;
    assert.equal(piped.stdout.trimEnd(), JSON.stringify(body));
    const tty = await snowdbOnTty(args, { env });
    assert.equal(tty.code, 0, tty.stderr);
    // The terminal shows stderr too: first the note on the basin's unclassified share.
    const [note, ...json] = tty.stdout.trimEnd().split('\n');
    assert.match(note!, /^note: 09406000:UT:USGS: [\d.]+ km² \([\d.]+ %\) of the basin is in no zone/);
    assert.equal(json.join('\n'), JSON.stringify(body, null, 2));
  });

  it('date selection: open ranges, day of year, zero dates; and every bad request is a clear error', async () => {
    assert.deepEqual(Object.keys((await stats('--variable', 'swe')).results), ['2024-01-15', '2024-01-16']);
    assert.deepEqual(Object.keys((await stats('--dates', '../2024-01-15', '--variable', 'swe')).results), [
      '2024-01-15',
    ]);
    assert.deepEqual(
      Object.keys((await stats('--doy', '01-16', '--years', '2020..2024', '--variable', 'swe')).results),
      ['2024-01-16'],
    );
    const none = await stats('--dates', '2025-01-01/2025-02-01', '--variable', 'swe');
    assert.deepEqual(none.results, {});
    assert.equal(none.zones.length, 1);
    const bad: [string[], RegExp][] = [
      [['--variable', 'snow'], /unknown variable 'snow' for 'snodas'; valid: average_temp, depth,/],
      [['--zone', 'terrain.slope'], /Unknown zone layer 'terrain\.slope'; available:/],
      [
        ['--zone', 'terrain.elevation:band_step_ft=1', '--max-zone-cells', '1000'],
        // 1-ft bands over -328.084..14763.78 ft: ⌊14763.78⌋ − ⌊−328.084⌋ + 1 = 15093.
        /has 15093 cells, more than the limit of 1000/,
      ],
      [['--dates', '2024-02-30/2024-03-01'], /'2024-02-30' is not a calendar date/],
      [['--dates', '2024-03-01/2024-02-01'], /the start is after the end/],
      [['--doy', '02-30', '--years', '2020..2024'], /day 30 does not exist in month 2 \(1-29\)/],
      [['--doy', '04-01', '--years', '2024..2020'], /start_year 2024 is after end_year 2020/],
    ];
    for (const [args, pattern] of bad) {
      const r = await cli('stats', 'snodas', TRIPLET, ...args);
      assert.equal(r.code, 1, args.join(' '));
      assert.match(r.stderr, pattern);
    }
    const unknown = await cli('stats', 'snodas', '99999999:UT:USGS');
    assert.equal(unknown.code, 1);
    assert.match(unknown.stderr, /no pourpoint 99999999:UT:USGS in the index/);
    const nods = await cli('stats', 'nosuch', TRIPLET);
    assert.equal(nods.code, 1);
    assert.match(nods.stderr, /nosuch/);
    // A basin moved 60° west (to about -173°) lies off the SNODAS grid: no AOI raster, a clear error.
    await importOffGrid(dir, env);
    const offgrid = await cli('stats', 'snodas', 'OFFGRID:UT:TEST');
    assert.equal(offgrid.code, 1);
    assert.match(offgrid.stderr, /pourpoint OFFGRID:UT:TEST lies outside the grid of 'snodas'/);
    // A date missing a requested variable read from the COGs is an error naming it, not a hole.
    // (swe and depth are answered by the series store, which doctor checks against the dates.)
    await rm(cog('20240116', 'runoff'));
    const hole = await cli('stats', 'snodas', TRIPLET, '--variable', 'runoff');
    assert.equal(hole.code, 1);
    assert.match(hole.stderr, /snodas 2024-01-16 has no 'runoff' raster/);
  });
});
