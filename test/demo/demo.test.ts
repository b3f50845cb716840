import assert from 'node:assert/strict';
import { type ChildProcessByStdio, execFile, spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { DuckDBInstance } from '@duckdb/node-api';
import type { Browser } from 'playwright-core';
import { DEMO_DATES, SPIRES_DATES, sweMm, waterYearDay } from '../../scripts/demo/snow.js';
import { launchChromium } from '../helpers/browser.js';
import { snowdb, tempDir } from '../helpers/cli.js';
import { type OracleInfo, oracle } from '../helpers/gdal.js';
import { fixturePath } from '../helpers/raster.js';
import { importOffGrid, OFFGRID } from '../helpers/zion-db.js';
import { docExamples, shellWords } from './examples.js';
import {
  chartData,
  classColour,
  closestPair,
  DEFICIENCIES,
  mappedBasins,
  mappedVertices,
  mapView,
  openPage,
  paintedAt,
  screenPoint,
  setMapView,
  settled,
  waitForVertices,
} from './page.js';

const DEMO = fileURLToPath(new URL('../../scripts/demo.js', import.meta.url));
const run = promisify(execFile);
const VIRGIN = '09406000:UT:USGS';
/** Virgin R nr Hurricane: holds the Virgin and North Creek, and their stations. */
const HURRICANE = '09408150:UT:USGS';
/** A drawn area: a triangle in the Virgin basin's country (the docs' my-area.geojson, the upload). */
const AREA = {
  type: 'Polygon',
  coordinates: [
    [
      [-113.2, 37.3],
      [-112.95, 37.3],
      [-113.05, 37.5],
      [-113.2, 37.3],
    ],
  ],
};
/** Delineated from the bundled DEM (demo/README.md): every zone layer classifies all of it. */
const NORTH_CREEK = 'NORTHCK:UT:DEMO';

/**
 * Start `npm run demo`'s script with `args` and its own temp dir `tmp` (its doctor then judges
 * only its own temp files, not those of test files running beside it); stderr is collected into
 * `log.text`.
 */
function startDemo(
  args: string[],
  tmp: string,
): {
  child: ChildProcessByStdio<null, Readable, Readable>;
  log: { text: string };
} {
  const env: NodeJS.ProcessEnv = { ...process.env, TMPDIR: tmp };
  delete env.SNOWDB_CONFIG;
  const child = spawn(process.execPath, [DEMO, ...args], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  const log = { text: '' };
  child.stdout.setEncoding('utf8').on('data', (d: string) => (log.text += d));
  child.stderr.setEncoding('utf8').on('data', (d: string) => (log.text += d));
  return { child, log };
}

interface Stats {
  zone_layers: string[];
  variables: string[];
  zones: { zone: { kind: string; min?: number; max?: number; label?: string }[]; area_m2: number }[];
  results: Record<string, (number | null)[][]>;
  links: { rel: string; href: string }[];
}

describe('npm run demo: a fresh build from bundled data, a second run that reuses it, and the web page', () => {
  let dir: string;
  let cleanup: () => Promise<void>;
  let first: string;
  let second: string;
  let base: string;
  let server: ChildProcessByStdio<null, Readable, Readable>;
  let browser: Browser;
  const env = () => ({ SNOWDB_CONFIG: join(dir, 'db') });
  const api = async <T>(path: string): Promise<T> => {
    const r = await fetch(`${base}${path}`);
    assert.equal(r.status, 200, path);
    return (await r.json()) as T;
  };

  before(async () => {
    ({ dir, cleanup } = await tempDir('snowdb-demo-'));
    const tmp = join(dir, 'tmp');
    await mkdir(tmp);
    const build = startDemo(['--dir', dir, '--no-serve'], tmp);
    const [code] = await once(build.child, 'close');
    first = build.log.text;
    assert.equal(code, 0, first);
    // The second run converges, then serves on a free port.
    const serve = startDemo(['--dir', dir, '--port', '0'], tmp);
    server = serve.child;
    const url = /web page\s+(http:\/\/\S+)\/app/;
    // Wait for the URL with one listener each (a `once` per chunk would pile up 'close' listeners).
    await new Promise<void>((resolve, reject) => {
      const done = () => {
        server.stderr.off('data', onData);
        server.off('close', onClose);
      };
      const onData = () => {
        if (!url.test(serve.log.text)) return;
        done();
        resolve();
      };
      const onClose = () => {
        done();
        reject(new Error(`demo exited: ${serve.log.text}`));
      };
      server.stderr.on('data', onData);
      server.on('close', onClose);
      onData();
    });
    second = serve.log.text;
    base = url.exec(second)![1]!;
    browser = await launchChromium();
  });
  after(async () => {
    await browser?.close();
    if (server && server.exitCode === null) {
      server.kill('SIGINT');
      await once(server, 'close');
    }
    await cleanup();
  });

  it('builds through the real commands in the spec order, doctor passing', () => {
    const order = [
      'init',
      'pourpoint sync',
      'dataset create snodas',
      'dataset create swann',
      'dataset create instarr',
      'dataset generate-zones',
      'dataset ingest',
      'dataset activate snodas',
      'stations sync',
      'doctor',
    ].map((c) => first.indexOf(`$ snowdb ${c}`));
    assert.ok(
      order.every((i) => i >= 0),
      first,
    );
    assert.deepEqual(
      [...order].sort((a, b) => a - b),
      order,
    );
    assert.match(first, /# snodas: 14 file\(s\) generated, 0 reused/);
    assert.match(first, /# swann: 46 file\(s\) generated, 0 reused/);
    assert.match(first, /# spires: 21 file\(s\) generated, 0 reused/);
    assert.match(first, /doctor: every check passed/);
    assert.match(
      first,
      /33 stations listed \(33 new, 0 moved\); 33 records fetched, 0 already current; 10 forecast points/,
    );
    // The bundled DEM reaches only part of every BAGIS basin: one info line per dataset and BAGIS
    // basin, its layers grouped by share, not one per layer (North Creek, inside it, has none).
    const infos = first.split('\n').filter((l) => /^info\s+zones\s/.test(l));
    assert.equal(infos.length, 30, infos.join('\n'));
    assert.equal(new Set(infos.map((l) => l.split(/\s+/).slice(2, 4).join(' '))).size, 30);
    assert.ok(infos.every((l) => /terrain\.elevation\b/.test(l) && /landcover\.forest_cover/.test(l)));
  });

  it('a second run reuses every source and date, then serves and prints URLs and example commands', () => {
    assert.match(second, /# snodas: 0 file\(s\) generated, 14 reused/);
    assert.match(second, /# swann: 0 file\(s\) generated, 46 reused/);
    assert.match(second, /# spires: 0 file\(s\) generated, 21 reused/);
    assert.match(second, /ingested 0, up-to-date 14,/);
    assert.match(second, /ingested 0, up-to-date 46,/);
    assert.match(second, /ingested 0, up-to-date 7,/);
    assert.match(second, /33 stations listed \(0 new, 0 moved\); 0 records fetched, 33 already current/);
    assert.match(second, /web page\s+http:\/\/127\.0\.0\.1:\d+\/app/);
    assert.match(second, /npx snowdb stats snodas NORTHCK:UT:DEMO --variable swe --zone terrain.elevation/);
  });

  it('holds eleven basins and three active datasets with the generated dates', async () => {
    const r = await snowdb(['status', '--format', 'json'], { env: env() });
    assert.equal(r.code, 0, r.stderr);
    const s = JSON.parse(r.stdout) as {
      datasets: { name: string; active: boolean; dates: number; first_date: string; health: string }[];
    };
    const by = Object.fromEntries(s.datasets.map((d) => [d.name, d]));
    for (const [name, n, firstDate] of [
      ['snodas', 14, '2025-02-01'],
      ['swann', 46, '2021-02-01'],
      ['instarr', 7, '2025-02-01'],
    ] as const) {
      assert.equal(by[name]?.active, true, name);
      assert.equal(by[name]?.dates, n, name);
      assert.equal(by[name]?.first_date, firstDate, name);
      assert.equal(by[name]?.health, 'ok', name);
    }
    assert.equal(DEMO_DATES.length, 14);
    assert.equal(SPIRES_DATES.length, 7);
    const pp = await api<{ features: unknown[] }>('/pourpoints?limit=100');
    assert.equal(pp.features.length, 11);
  });

  it('North Creek, delineated inside the bundled DEM, is wholly zoned on every dataset: its bands sum to the basin', async () => {
    for (const [dataset, date, variable] of [
      ['snodas', '2025-03-01', 'swe'],
      ['swann', '2025-03-01', 'swe'],
      ['instarr', '2025-03-01', 'snow_fraction'],
    ] as const) {
      const path = `/datasets/${dataset}/stats/${NORTH_CREEK}/date-range?datetime=${date}&variable=${variable}`;
      const whole = await api<Stats>(path);
      for (const zone of ['terrain.elevation', 'landcover.forest_cover']) {
        const by = await api<Stats>(`${path}&zone=${zone}`);
        assert.ok(
          by.zones.every((z) => z.zone.every((c) => c.kind !== 'unclassified')),
          JSON.stringify(by.zones),
        );
        const sum = by.zones.reduce((t, z) => t + z.area_m2, 0);
        assert.ok(
          Math.abs(sum - whole.zones[0]!.area_m2) <= 1e-9 * sum,
          `${dataset} ${zone}: ${sum} vs ${whole.zones[0]!.area_m2}`,
        );
      }
    }
    // Doctor names no share for it (every other demo basin is partly or not at all under the DEM).
    assert.ok(!/^info\s+zones\s.*NORTHCK/m.test(first), first);
  });

  it("writes sources GDAL reads on the producers' grids, and ustar tars system tar lists", async () => {
    const sources = join(dir, 'sources');
    const [swann] = await oracle<OracleInfo[]>(
      'info',
      `NETCDF:"${join(sources, 'swann/UA_SWE_Depth_800m_v1_20250301_early.nc')}":SWE`,
    );
    assert.deepEqual(swann!.size, [7025, 3105]);
    // GDAL derives the transform from the lat/lon cell centres: equal to a few ulps.
    const ua = [-125.0208, 0.008333325394357, 0, 49.9375, 0, -0.008333325394357];
    assert.ok(
      swann!.geotransform.every((v, i) => Math.abs(v - ua[i]!) < 1e-12),
      String(swann!.geotransform),
    );
    assert.equal(swann!.nodata, -999);
    const tile = join(sources, 'spires/h09v05/2025/SPIRES_NRT_h09v05_MOD09GA061_20250301_V1.0.nc');
    const [spires] = await oracle<OracleInfo[]>('info', `NETCDF:"${tile}":grain_size`);
    assert.deepEqual(spires!.size, [2400, 2400]);
    assert.ok(Math.abs(spires!.geotransform[0]! - (-20015109.354 + 9 * 1111950.5196666666)) < 1e-3);
    assert.ok(Math.abs(spires!.geotransform[3]! - (10007554.677 - 5 * 1111950.5196666666)) < 1e-3);
    assert.equal(spires!.nodata, 65535);
    const { stdout } = await run('tar', ['-tf', join(sources, 'snodas/SNODAS_20250301.tar')]);
    const members = stdout.trim().split('\n');
    assert.equal(members.length, 16);
    assert.ok(members.includes('us_ssmv11034tS__T0001TTNATS2025030105HP001.dat.gz'), stdout);
  });

  it('SWE of an ingested SNODAS cell is the model of the SRTM height under its centre', async () => {
    // The SNODAS cell holding (-113.0, 37.3), inside the Zion DEM; its centre in lon/lat.
    const cell = 0.008333333333333;
    const col = Math.floor((-113.0 + 124.733333333333) / cell);
    const row = Math.floor((52.875 - 37.3) / cell);
    const lon = -124.733333333333 + (col + 0.5) * cell;
    const lat = 52.875 - (row + 0.5) * cell;
    const at = async (path: string) =>
      Number(
        (await run('gdallocationinfo', ['-valonly', '-wgs84', path, String(lon), String(lat)])).stdout.trim(),
      );
    const height = await at(fixturePath('zion/srtm.tif'));
    assert.ok(height > 1500 && height < 3000, String(height));
    for (const date of ['20250201', '20250329', '20250426']) {
      const swe = await at(join(dir, 'db/data/snodas/cogs', date, 'swe.tif'));
      assert.equal(swe, sweMm(height, lon, lat, waterYearDay(date)), date);
    }
  });

  it('US units reach every unit: precipitation in inches, snowpack temperature in °F, by the exact factors', async () => {
    type Body = { variables: string[]; results: Record<string, number[][]> };
    const path = `/datasets/snodas/stats/${NORTH_CREEK}/date-range?datetime=2025-03-01&variable=precip_solid&variable=average_temp`;
    const metric = await api<Body>(path);
    const us = await api<Body>(`${path}&units=us`);
    assert.deepEqual(metric.variables, [
      'mean_average_temp_k',
      'mean_precip_solid_kg_per_m2',
      'total_precip_solid_m3',
    ]);
    assert.deepEqual(us.variables, [
      'mean_average_temp_degf',
      'mean_precip_solid_in',
      'total_precip_solid_acre_ft',
    ]);
    const [k, kg, m3] = metric.results['2025-03-01']![0]!;
    const [f, inches, af] = us.results['2025-03-01']![0]!;
    assert.ok(k! > 200 && kg! > 0, `${k} K, ${kg} kg/m²`);
    assert.ok(Math.abs(f! - ((k! * 9) / 5 - 459.67)) < 1e-9, `${f} °F from ${k} K`);
    assert.ok(Math.abs(inches! - kg! / 25.4) < 1e-12 && Math.abs(af! - m3! / 1233.48183754752) < 1e-9);
  });

  it('every query example of README.md and docs/reference.md answers on the demo with data', async () => {
    const QUERIES = new Set([
      'stats',
      'stats-all',
      'normals',
      'water-years',
      'changes',
      'snowline',
      'compare',
      'point',
      'stations',
      'forecast',
    ]);
    // Every query, and every station and forecast command but `stations sync` (it asks AWDB itself).
    const examples = (await docExamples(['README.md', 'docs/reference.md'])).filter(
      (e) =>
        (e.words[0] === 'npx' && QUERIES.has(e.words[2] ?? '') && e.words[3] !== 'sync') ||
        e.words[0] === 'curl',
    );
    assert.ok(examples.length >= 15, `${examples.length} examples`);
    // The drawn-polygon examples' file: a part of the Virgin basin's country the demo covers.
    const area = join(dir, 'my-area.geojson');
    await writeFile(area, JSON.stringify({ type: 'Feature', properties: {}, geometry: AREA }));
    const local = (w: string) =>
      w === './my-area.geojson' ? area : w === '@my-area.geojson' ? `@${area}` : w;
    const failures: string[] = [];
    for (const e of examples) {
      let body: string;
      if (e.words[0] === 'curl') {
        const url = e.words.find((w) => w.startsWith('http://127.0.0.1:8000/'))!;
        const data = e.words.find((w) => w.startsWith('@'));
        const r = await fetch(
          url.replace('http://127.0.0.1:8000', base),
          data === undefined
            ? {}
            : {
                method: 'POST',
                body: await readFile(local(data).slice(1)),
                headers: { 'content-type': 'application/geo+json' },
              },
        );
        body = e.words.includes('-o') ? '' : await r.text(); // `-o file`: a download (a Parquet file)
        if (e.words.includes('-o') && (await r.arrayBuffer()).byteLength === 0)
          failures.push(`${e.line}: empty`);
        if (r.status !== 200)
          failures.push(`${e.file}: ${e.line}\n  → HTTP ${r.status}: ${body.slice(0, 300)}`);
      } else {
        const redirect = e.words.indexOf('>'); // `> file`: the shell's, not the command's
        const r = await snowdb(e.words.slice(2, redirect < 0 ? undefined : redirect).map(local), {
          env: env(),
        });
        body = r.stdout;
        if (r.code !== 0)
          failures.push(`${e.file}: ${e.line}\n  → exit ${r.code}: ${r.stderr.slice(0, 300)}`);
        if (/note: no date/.test(r.stderr)) failures.push(`${e.file}: ${e.line}\n  → ${r.stderr.trim()}`);
      }
      // Data: a JSON body with a non-empty `results` (or basins with results), a {date: number}
      // map with a number (the snow line as the reference prints it), or CSV rows.
      // (stations and forecasts: non-empty `stations`, `years` or `forecasts`; a download: its bytes, above.)
      const data =
        e.words.includes('-o') ||
        (body.startsWith('{')
          ? ((j: {
              results?: object;
              basins?: { results: object }[];
              datasets?: { results: object }[];
              stations?: unknown[];
              years?: unknown[];
              forecasts?: unknown[];
            }) =>
              Object.keys(j.results ?? {}).length > 0 ||
              [...(j.basins ?? []), ...(j.datasets ?? [])].some((b) => Object.keys(b.results).length > 0) ||
              [j.stations, j.years, j.forecasts].some((a) => (a?.length ?? 0) > 0) ||
              Object.entries(j).some(([k, v]) => /^\d{4}-\d{2}-\d{2}$/.test(k) && typeof v === 'number'))(
              JSON.parse(body),
            )
          : body.trim().split('\n').length > 1);
      if (!data) failures.push(`${e.file}: ${e.line}\n  → no data: ${body.slice(0, 200)}`);
    }
    assert.deepEqual(failures, []);
  });

  it('every recipe of docs/recipes.md runs on the demo: its shell, Python (pandas, xarray), SQL (DuckDB) and R print the stats API numbers', async () => {
    const text = await readFile(fileURLToPath(new URL('../../../docs/recipes.md', import.meta.url)), 'utf8');
    const work = join(dir, 'recipes');
    await mkdir(work, { recursive: true });
    const printed: unknown[] = [];
    for (const [, lang, code] of text.matchAll(/```(sh|python|sql|r)\n([\s\S]*?)```/g)) {
      if (lang === 'sh')
        for (const line of code!.split('\n').filter((l) => l.trim() !== '')) {
          const words = shellWords(line);
          const redirect = words.indexOf('>');
          // The user's shell in the recipe's folder: `--out` relative to it, stdout into the file `>` names.
          const args = words
            .slice(2, redirect < 0 ? undefined : redirect)
            .map((w, i, a) => (a[i - 1] === '--out' ? join(work, w) : w));
          const r = await snowdb(args, { env: env() });
          assert.equal(r.code, 0, `${line}: ${r.stderr}`);
          if (redirect >= 0) await writeFile(join(work, words[redirect + 1]!), r.stdout);
        }
      else if (lang === 'python')
        printed.push(Number((await run('/usr/bin/python3', ['-c', code!], { cwd: work })).stdout.trim()));
      else if (lang === 'r')
        printed.push(
          Number((await run('Rscript', ['-e', code!], { cwd: work })).stdout.replace(/^\[1\]\s*/, '').trim()),
        );
      else {
        const c = await (await DuckDBInstance.create(':memory:')).connect();
        const sql = code!.replaceAll("'swann.parquet'", `'${join(work, 'swann.parquet')}'`);
        printed.push((await c.runAndReadAll(sql)).getRows());
      }
    }
    const value = async (basin: string, date: string, zone?: string) => {
      const s = await api<Stats>(
        `/datasets/swann/stats/${basin}/date-range?variable=swe&datetime=${date}${zone ? `&zone=${zone}` : ''}`,
      );
      return { s, col: s.variables.indexOf('mean_swe_mm') };
    };
    const hurricane = await value(HURRICANE, '2025-04-01');
    assert.equal(printed[0], hurricane.s.results['2025-04-01']![0]![hurricane.col]);
    // The 7000–8000 ft band's peak of water year 2025 in the Virgin, and each basin's 8000–9000 ft peak.
    const band = async (basin: string, min: number) => {
      const { s, col } = await value(basin, '2024-10-01/2025-09-30', 'terrain.elevation');
      const k = s.zones.findIndex((z) => z.zone[0]?.min === min);
      return k < 0 ? null : Math.max(...Object.values(s.results).map((r) => r[k]![col] ?? -Infinity));
    };
    assert.equal(printed[1], await band(VIRGIN, 7000));
    const apr1 = await value(HURRICANE, '2024-04-01');
    assert.equal(printed[2], apr1.s.results['2024-04-01']![0]![apr1.col]);
    const sql = printed[3] as [string, number][];
    assert.ok(sql.length >= 2, JSON.stringify(sql));
    for (const [basin, peak] of sql) assert.equal(peak, await band(basin, 8000), basin);
    // xarray: the Virgin's 8000–9000 ft band on 1 April 2025.
    const byBand = await value(VIRGIN, '2025-04-01', 'terrain.elevation');
    const k = byBand.s.zones.findIndex((z) => z.zone[0]?.min === 8000);
    assert.equal(printed[4], byBand.s.results['2025-04-01']![k]![byBand.col]);
    // R: the first recipe's file, Hurricane on 1 April 2025.
    assert.equal(printed[5], hurricane.s.results['2025-04-01']![0]![hurricane.col]);
  });

  it('compare: SNODAS and SWANN side by side equal their own stats answers, each with the basin area on its grid', async () => {
    const flags = ['--dates', '2025-03-01/2025-04-01', '--variable', 'swe', '--zone', 'terrain.elevation'];
    const r = await snowdb(['compare', VIRGIN, '--dataset', 'snodas', '--dataset', 'swann', ...flags], {
      env: env(),
    });
    assert.equal(r.code, 0, r.stderr);
    type Entry = Stats & { dataset: string; basin_area_m2: number; area_vs_polygon_percent: number };
    const body = JSON.parse(r.stdout) as { pourpoint: string; polygon_area_m2: number; datasets: Entry[] };
    const polygon = (await api<{ properties: { area_meters: number } }>(`/pourpoints/${VIRGIN}`)).properties
      .area_meters;
    assert.equal(body.polygon_area_m2, polygon);
    assert.deepEqual(
      body.datasets.map((d) => d.dataset),
      ['snodas', 'swann'],
    );
    for (const d of body.datasets) {
      const own = await snowdb(['stats', d.dataset, VIRGIN, ...flags], { env: env() });
      const { dataset: _d, basin_area_m2, area_vs_polygon_percent, ...stats } = d;
      assert.deepEqual(stats, JSON.parse(own.stdout), `${d.dataset}: the same numbers as its own stats`);
      assert.equal(
        basin_area_m2,
        d.zones.reduce((t, z) => t + z.area_m2, 0),
      );
      assert.ok(Math.abs(area_vs_polygon_percent - (100 * (basin_area_m2 - polygon)) / polygon) < 1e-9);
      assert.match(
        r.stderr,
        new RegExp(`note: ${d.dataset}: the basin is [\\d.]+ km² on its grid, [+-][\\d.]+ %`),
      );
    }
    assert.notEqual(body.datasets[0]!.basin_area_m2, body.datasets[1]!.basin_area_m2, 'the grids differ');
    const url = `/pourpoints/${VIRGIN}/compare?dataset=snodas&dataset=swann&datetime=2025-03-01/2025-04-01&variable=swe&zone=terrain.elevation`;
    const http = await api<typeof body>(url);
    assert.deepEqual(http.datasets, body.datasets);
    const csv = await (await fetch(`${base}${url}&f=csv`)).text();
    const rows = csv.trimEnd().split('\r\n');
    assert.equal(
      rows[0],
      'dataset,date,terrain.elevation_min_ft,terrain.elevation_max_ft,area_m2,mean_swe_mm,total_swe_m3',
    );
    const cells = body.datasets.reduce((t, d) => t + Object.keys(d.results).length * d.zones.length, 0);
    assert.equal(rows.length, 1 + cells);
    const one = await fetch(`${base}/pourpoints/${VIRGIN}/compare?dataset=snodas&datetime=2025-04-01`);
    assert.equal(one.status, 422);
    assert.match(
      ((await one.json()) as { detail: string }).detail,
      /name 2 to 4 different datasets to compare, got snodas/,
    );
    const depthless = await snowdb(['compare', VIRGIN, '--dataset', 'snodas', '--dataset', 'instarr'], {
      env: env(),
    });
    assert.equal(depthless.code, 1);
    assert.match(depthless.stderr, /the datasets share no variable/);
    // No elevation zone reaches Bumping Lake (the bundled DEM is Zion's): its snow line says so.
    const unzoned = await fetch(
      `${base}/datasets/snodas/snowline/12488000:WA:USGS/date-range?datetime=2025-04-01&variable=swe&threshold=25`,
    );
    assert.equal(unzoned.status, 409);
    assert.match(
      ((await unzoned.json()) as { detail: string }).detail,
      /no elevation zone reaches this basin in 'snodas' \(its terrain layer does not cover it\): no snow line/,
    );
  });

  it('Virgin R: SWE rises with elevation, and higher bands peak later', async () => {
    const s = await api<Stats>(
      `/datasets/snodas/stats/${VIRGIN}/date-range?datetime=2025-02-01/2025-04-30&variable=swe&zone=terrain.elevation`,
    );
    const dates = Object.keys(s.results).sort();
    assert.equal(dates.length, 14);
    // The Zion DEM covers part of the basin: the rest is the last cell, 'unclassified'.
    assert.equal(s.zones.at(-1)!.zone[0]!.kind, 'unclassified');
    const bands = s.zones.slice(0, -1).map((z) => z.zone[0]!.min!);
    assert.deepEqual(
      bands,
      [...bands].sort((a, b) => a - b),
    );
    const mean = (d: string, z: number) => s.results[d]![z]![0]!;
    for (let z = 1; z < bands.length; z++)
      assert.ok(mean('2025-03-01', z) > mean('2025-03-01', z - 1), `band ${z}`);
    const peak = bands.map((_, z) =>
      dates.reduce((best, d) => (mean(d, z) > mean(best, z) ? d : best), dates[0]!),
    );
    const snowy = peak.slice(2); // the two lowest bands hold little or no snow
    assert.deepEqual(snowy, [...snowy].sort());
    assert.ok(snowy[0]! < snowy.at(-1)!);
  });

  const REF = '2021..2024';
  type Body = Stats & { reference?: { start_water_year: number } };
  const col = (b: { variables: string[] }, name: string) => {
    const i = b.variables.indexOf(name);
    assert.ok(i >= 0, `${name} in ${b.variables}`);
    return i;
  };
  const shots = process.env.SNOWDB_SCREENSHOTS;

  /** The season chart's arrays as the API gives them: [x, min, p10, median, p90, max, this year]. */
  async function seasonFromApi(
    triplet: string,
    units: 'us' | 'metric',
    measure = 'mean_swe',
  ): Promise<(number | null)[][]> {
    const u = measure === 'mean_swe' ? (units === 'us' ? 'in' : 'mm') : units === 'us' ? 'acre_ft' : 'm3';
    const stat = `${measure}_${u}`;
    const path = `/datasets/swann/stats/${triplet}`;
    const s = await api<Body>(
      `${path}/date-range?variable=swe&datetime=2024-10-01/2025-04-26&normals=true&normals_years=${REF}&units=${units}`,
    );
    const n = await api<Body>(`${path}/normals?variable=swe&normals_years=${REF}&units=${units}`);
    const out: (number | null)[][] = [[], [], [], [], [], [], []];
    for (let t = Date.UTC(2024, 9, 1); t <= Date.UTC(2025, 3, 26); t += 86_400_000) {
      const d = new Date(t).toISOString().slice(0, 10);
      const v = s.results[d]?.[0]?.[col(s, stat)] ?? null;
      const row = n.results[d.slice(5)]![0]!;
      const q = ['min', 'p10', 'median', 'p90', 'max'].map((k) => row[col(n, `${k}_${stat}`)] ?? null);
      if (v === null && q[2] === null) continue;
      for (const [i, x] of [t / 1000, ...q, v].entries()) out[i]!.push(x);
    }
    return out;
  }

  it('search finds a basin by keyboard and zooms to it; the season chart is the API numbers; units convert exactly; the URL restores the view', async () => {
    const { page, problems, outside, release } = await openPage(browser, `${base}/`);
    assert.equal(new URL(page.url()).pathname, '/app/');
    assert.equal(await mappedBasins(page), 11);
    // Freshness: "as of" the dataset's newest date; the demo's 2025 dates are past every template's usual lag.
    const shown = (await page.textContent('#freshness')) ?? '';
    const shownDataset = shown.split(' ')[0]!;
    const fresh = (
      await api<{
        freshness: { newest_date: string; age_days: number; late: boolean; usual_lag_days: number };
      }>(`/datasets/${shownDataset}`)
    ).freshness;
    assert.ok(
      shown.startsWith(`${shownDataset} as of ${fresh.newest_date} (${fresh.age_days} days ago)`),
      shown,
    );
    assert.equal(fresh.late, true);
    assert.ok(shown.includes(`— late: ${shownDataset} is usually ${fresh.usual_lag_days} day`), shown);
    assert.equal(await page.getAttribute('#freshness', 'class'), 'freshness late');
    // Outlines: coarse for the whole set, fine for the basins in view once zoomed in (LOD by zoom).
    const rings = async (tol: string) => {
      const fc = await api<{ features: { id: string; geometry: { coordinates: number[][][][] } }[] }>(
        `/pourpoints?geometry=basin&simplify=${tol}&limit=1000`,
      );
      const g = fc.features.find((x) => x.id === HURRICANE)!.geometry;
      const polys = (g as { type?: string }).type === 'Polygon' ? [g.coordinates] : g.coordinates;
      return polys.flat().reduce((n, ring) => n + (ring as unknown[]).length - 1, 0); // the map drops the closing vertex
    };
    assert.equal(await mappedVertices(page, HURRICANE), await rings('0.01'));
    const zoom0 = await page.evaluate(() =>
      (globalThis as never as { snowdb: { map: { map: { getZoom(): number } } } }).snowdb.map.map.getZoom(),
    );
    await page.fill('#search', 'hurricane');
    assert.deepEqual(
      await page
        .locator('#basins tbody tr')
        .evaluateAll((rows) =>
          rows.map((r) => (r as unknown as { dataset: { triplet: string } }).dataset.triplet),
        ),
      [HURRICANE],
    );
    await page.locator('#basins tbody tr').focus();
    await page.keyboard.press('Enter');
    await settled(page);
    assert.match(
      (await page.textContent('#basin-title')) ?? '',
      /Virgin R nr Hurricane \(09408150:UT:USGS\)/,
    );
    assert.equal(new URL(page.url()).searchParams.get('basin'), HURRICANE);
    // Zoomed to the basin: its bounds fill the view.
    const view = await page.evaluate(() => {
      const m = (
        globalThis as never as {
          snowdb: { map: { map: { getZoom(): number; getBounds(): { toBBoxString(): string } } } };
        }
      ).snowdb.map.map;
      return { zoom: m.getZoom(), bbox: m.getBounds().toBBoxString().split(',').map(Number) };
    });
    const f = await api<{ bbox?: number[]; geometry: { coordinates: number[][][][] } }>(
      `/pourpoints/${HURRICANE}`,
    );
    const pts = f.geometry.coordinates.flat(2);
    const [x0, y0, x1, y1] = [
      Math.min(...pts.map((p) => p[0]!)),
      Math.min(...pts.map((p) => p[1]!)),
      Math.max(...pts.map((p) => p[0]!)),
      Math.max(...pts.map((p) => p[1]!)),
    ];
    assert.ok(view.zoom > zoom0, `zoom ${zoom0} → ${view.zoom}`);
    assert.ok(
      view.bbox[0]! <= x0 && view.bbox[1]! <= y0 && view.bbox[2]! >= x1 && view.bbox[3]! >= y1,
      `${view.bbox} holds ${[x0, y0, x1, y1]}`,
    );
    assert.ok(view.bbox[2]! - view.bbox[0]! < 3 * (x1 - x0), 'the basin fills the view');
    const fine = await rings('0.002');
    assert.ok(fine > (await rings('0.01')), 'the finer outline has more vertices');
    await waitForVertices(page, HURRICANE, fine);

    // The season chart: this water year, median, p10–p90 and min–max, in inches by default: the
    // API's metric numbers divided by exactly 25.4 (the API's own units=us takes quantiles after
    // converting, which can differ in the last bit).
    const mm = await seasonFromApi(HURRICANE, 'metric');
    const by = (f: number) => (a: (number | null)[][]) =>
      a.map((xs, i) => (i === 0 ? xs : xs.map((v) => (v === null ? null : v / f))));
    // The grid's series (the stations' lines after them are the next test's).
    const grid = (d: (number | null)[][]) => d.slice(0, 7);
    const us = grid(await chartData(page, 'season'));
    assert.deepEqual(us, by(25.4)(mm));
    const apiUs = (await seasonFromApi(HURRICANE, 'us')).flat();
    for (const [i, v] of us.flat().entries())
      assert.ok(v === apiUs[i] || Math.abs(v! - apiUs[i]!) < 1e-12 * Math.abs(v!));
    const s = await api<Body>(
      `/datasets/swann/stats/${HURRICANE}/date-range?variable=swe&datetime=2025-04-26&normals=true&normals_years=${REF}`,
    );
    // The demo's south has melted out by 26 April, over a median under 0.1 in: no % of median
    // (a bare basin is not "129 % of median"), and the headline says why.
    const row = s.results['2025-04-26']![0]!;
    const median = row[col(s, 'median_mean_swe_mm')]!;
    assert.equal(row[col(s, 'pct_median_mean_swe_mm')], null);
    assert.ok(median >= 0 && median < 2.54, String(median));
    assert.match(
      (await page.textContent('#season-title')) ?? '',
      /^Water year 2025: 0(\.0+)? in on 2025-04-26 \(no snow at median: no % of median\)$/,
    );
    // The season against normal: the peak, its % of the median peak, and melt-out, as water-years says.
    const wyBody = await api<Body>(
      `/datasets/swann/stats/${HURRICANE}/water-years?variable=swe&years=2025&normals=true&normals_years=${REF}`,
    );
    const wyRow = wyBody.results['2025']![0]!;
    const wv = (name: string) => wyRow[col(wyBody, name)];
    const peakLine = (await page.textContent('#season-peak')) ?? '';
    const m =
      /^Peak ([\d.,]+) in on (\S+) — (\d+) % of the median peak \(([\d.,]+) in, median peak day (\S+)\)\. Melted out on (\S+) \(median melt-out day (\S+)\)\. /.exec(
        peakLine,
      );
    assert.ok(m, peakLine);
    const [, peakIn, peakDate, pctPeak, medianIn, peakDay, meltOut, meltDay] = m;
    const near3 = (text: string, mm: number) =>
      Math.abs(Number(text.replaceAll(',', '')) - mm / 25.4) <= 0.006 * Math.abs(mm / 25.4) + 0.0005;
    assert.ok(near3(peakIn!, wv('peak_mean_swe_mm') as number), `${peakIn} vs ${wv('peak_mean_swe_mm')} mm`);
    assert.ok(near3(medianIn!, wv('median_peak_mean_swe_mm') as number));
    assert.deepEqual(
      [peakDate, Number(pctPeak), peakDay, meltOut, meltDay],
      [
        wv('peak_date'),
        Math.round(wv('pct_median_peak_mean_swe_mm') as number),
        wv('median_peak_day'),
        wv('melt_out_date'),
        wv('median_melt_out_day') ?? '–',
      ],
    );
    // …then the week's change and the water year so far, as the changes endpoint says (weekly demo dates: no 1-day change, no gain).
    const ch = await api<Body>(`/datasets/swann/stats/${HURRICANE}/changes?variable=swe&datetime=2025-04-26`);
    const week = ch.results['2025-04-26']![0]![col(ch, 'change_7d_mean_swe_mm')] as number;
    const wk =
      /Change to 2025-04-26: – over 1 day, ([+-]?[\d.,]+) in over 7 days\. Gain and melt since 1 October: – \(a day is missing since then\)\./.exec(
        peakLine,
      );
    assert.ok(wk, peakLine);
    assert.ok(near3(wk[1]!.replace('+', ''), week), `${wk[1]} vs ${week} mm`);
    // On 1 April, the main snow-survey date, it is a poor year with a percentage.
    const apr1 = await api<Body>(
      `/datasets/swann/stats/${HURRICANE}/date-range?variable=swe&datetime=2025-04-01&normals=true&normals_years=${REF}`,
    );
    const pct = apr1.results['2025-04-01']![0]![col(apr1, 'pct_median_mean_swe_mm')]!;
    assert.ok(pct > 5 && pct < 70, String(pct));

    // Metric: the API's mm exactly.
    await page.check('input[name=units][value=metric]');
    await page.waitForFunction("new URL(location.href).searchParams.get('units') === 'metric'");
    await settled(page);
    assert.deepEqual(grid(await chartData(page, 'season')), mm);
    // Volumes: m³, and acre-feet exactly m³ / 1233.48183754752.
    await page.selectOption('#measure', 'total');
    await page.waitForFunction(
      "document.querySelector('#numbers th:nth-child(2)')?.textContent === 'this year (m³)'",
    );
    const m3 = await chartData(page, 'season');
    assert.deepEqual(m3, await seasonFromApi(HURRICANE, 'metric', 'total_swe'));
    await page.check('input[name=units][value=us]');
    await page.waitForFunction(
      "document.querySelector('#numbers th:nth-child(2)')?.textContent === 'this year (acre-ft)'",
    );
    const af = await chartData(page, 'season');
    assert.deepEqual(af, by(1233.48183754752)(m3));

    // Reload: the URL brings back the same basin, measure, units and chart.
    const url = page.url();
    await page.reload();
    await page.waitForSelector('body[data-ready=true]', { state: 'attached' });
    await settled(page);
    assert.equal(page.url(), url);
    assert.deepEqual(await chartData(page, 'season'), af);
    assert.equal(await page.inputValue('#measure'), 'total');
    // …and the map zoomed to that basin again, as when it was chosen.
    const zoomAgain = await page.evaluate(() =>
      (globalThis as never as { snowdb: { map: { map: { getZoom(): number } } } }).snowdb.map.map.getZoom(),
    );
    assert.equal(zoomAgain, view.zoom);

    // SPIRES snow cover: the snow line on its own axis of the season chart, and on the as-of date in words.
    await page.goto(`${base}/app/?dataset=instarr&variable=snow_fraction&basin=${VIRGIN}&units=us`);
    await page.waitForSelector('body[data-ready=true]', { state: 'attached' });
    await settled(page);
    const sl = await api<
      Omit<Body, 'results'> & {
        rows: Body['results'];
        results: Record<string, { elevation_ft: number } | null>;
      }
    >(
      `/datasets/instarr/snowline/${VIRGIN}/date-range?variable=snow_fraction&datetime=2024-10-01/2025-09-30`,
    );
    const drawn = await page.evaluate(() => {
      const c = (
        globalThis as never as {
          snowdb: { charts: { season: { data: (number | null)[][]; series: { label: string }[] } } };
        }
      ).snowdb.charts.season;
      return { labels: c.series.map((x) => x.label), xs: c.data[0], line: c.data.at(-1) };
    });
    assert.equal(drawn.labels.at(-1), 'snow line');
    const want = drawn.xs!.map((x) => {
      const d = new Date(x! * 1000).toISOString().slice(0, 10);
      const row = sl.rows[d]?.[0]?.[col(sl as unknown as Body, 'snowline_ft')] ?? null;
      // The reference's member says the same line.
      assert.equal(sl.results[d]?.elevation_ft ?? null, row, d);
      return row;
    });
    assert.deepEqual(drawn.line, want);
    assert.ok(
      want.some((v) => v !== null),
      'a snow line on some date',
    );
    assert.match(
      (await page.textContent('#season-peak')) ?? '',
      /^Snow line \(50 % cover\) on 2025-\d\d-\d\d: (none \(.+\)|[\d,]+ ft)\.$/,
    );

    // SNODAS beside SWANN: its water year on the same chart, each dataset's area on its grid in the note.
    await page.goto(`${base}/app/?dataset=swann&basin=${VIRGIN}&with=snodas`);
    await page.waitForSelector('body[data-ready=true]', { state: 'attached' });
    await settled(page);
    const cmp = await api<{ datasets: (Body & { dataset: string; area_vs_polygon_percent: number })[] }>(
      `/pourpoints/${VIRGIN}/compare?dataset=swann&dataset=snodas&variable=swe&datetime=2024-10-01/2025-04-26`,
    );
    const beside = await page.evaluate(() => {
      const c = (
        globalThis as never as {
          snowdb: { charts: { season: { data: (number | null)[][]; series: { label: string }[] } } };
        }
      ).snowdb.charts.season;
      const k = c.series.findIndex((x) => x.label === 'snodas');
      return { labels: c.series.map((x) => x.label), xs: c.data[0], snodas: c.data[k] };
    });
    // After the grid's lines: SNODAS, then the basin's stations.
    assert.equal(beside.labels[7], 'snodas', beside.labels.join(', '));
    const sno = cmp.datasets[1]!;
    assert.deepEqual(
      beside.snodas,
      beside.xs!.map((x) => {
        const v =
          sno.results[new Date(x! * 1000).toISOString().slice(0, 10)]?.[0]?.[col(sno, 'mean_swe_mm')] ?? null;
        return v === null ? null : v / 25.4;
      }),
    );
    assert.ok(beside.snodas!.some((v) => v !== null));
    const pctText = cmp.datasets[0]!.area_vs_polygon_percent.toFixed(2);
    assert.ok(
      ((await page.textContent('#season-note')) ?? '').includes(
        `(${pctText.startsWith('-') ? '' : '+'}${pctText} %), snodas`,
      ),
      (await page.textContent('#season-note')) ?? '',
    );
    assert.equal(await page.isChecked('#beside input[value=snodas]'), true);
    assert.deepEqual(problems, []);
    assert.deepEqual(outside, []);
    release();
  });

  it('the map colours every basin by the class of its % of median from the API, the list sorts by it, and the legend survives colour-blindness', async () => {
    const { page, problems, outside, release } = await openPage(browser, `${base}/app/`);
    await page.waitForSelector('#basins tbody tr td i.swatch');
    const all = await api<{
      variables: string[];
      basins: { pourpoint: string; results: Record<string, (number | null)[][]> }[];
    }>(`/datasets/swann/stats?date=2025-03-27/2025-04-26&variable=swe&normals=true&normals_years=${REF}`);
    const pi = col(all, 'pct_median_mean_swe_mm');
    const mi = col(all, 'median_mean_swe_mm');
    const pct = new Map(all.basins.map((b) => [b.pourpoint, b.results['2025-04-26']![0]![pi] ?? null]));
    const median = new Map(all.basins.map((b) => [b.pourpoint, b.results['2025-04-26']![0]![mi] ?? null]));
    // A melted-out basin whose median is under 0.1 in has no % of median: "no snow at median".
    const bare = [...pct].filter(([t, p]) => p === null && (median.get(t) ?? null) !== null);
    for (const [t] of bare) assert.ok(median.get(t)! < 2.54, `${t}: median ${median.get(t)} mm`);
    assert.equal(pct.size, 11);
    const classes = new Set<string>();
    // What the screen shows at each outflow point (outlets are drawn over the basins, in the class colour).
    const points = await api<{ features: { id: string; properties: { pourpoint: [number, number] } }[] }>(
      '/pourpoints?limit=1000',
    );
    await page.mouse.move(0, 0); // no tooltip over the map
    // A pixel of each outlet's dot (radius 5 px, 1 px outline) that no other dot reaches; where
    // outlets crowd (two creeks by Carson City), the map is zoomed in on that outlet until one shows.
    const CLEAR = 7; // px from another dot's centre: past its radius 5, outline 1 and antialiasing
    const ring = [
      [0, 0],
      ...[0, 1, 2, 3, 4, 5, 6, 7].map((k) => [
        3 * Math.cos((k * Math.PI) / 4),
        3 * Math.sin((k * Math.PI) / 4),
      ]),
    ];
    const home = await mapView(page);
    for (const [triplet, p] of pct) {
      const [lon, lat] = points.features.find((f) => f.id === triplet)!.properties.pourpoint;
      let spot: { x: number; y: number } | undefined;
      for (let zoom = home.zoom; !spot && zoom <= 13; zoom += 2) {
        if (zoom > home.zoom) await setMapView(page, lon, lat, zoom);
        const at = new Map<string, { x: number; y: number }>();
        for (const f of points.features) at.set(f.id, await screenPoint(page, ...f.properties.pourpoint));
        const c = at.get(triplet)!;
        spot = ring
          .map(([dx, dy]) => ({ x: c.x + dx!, y: c.y + dy! }))
          .find((q) => [...at].every(([u, o]) => u === triplet || Math.hypot(q.x - o.x, q.y - o.y) >= CLEAR));
      }
      assert.ok(spot, `${triplet}: its outlet is under another at every zoom`);
      const fill = await paintedAt(page, spot);
      assert.equal(fill, classColour(p, median.get(triplet) ?? null), `${triplet} at ${p} %`);
      classes.add(fill);
      await setMapView(page, home.lon, home.lat, home.zoom);
    }
    assert.ok(classes.size >= 4, `${classes.size} classes`); // the demo's history spreads the basins out
    // The list: ascending % of median by default (no median last), then descending on a click.
    const order = [...pct].sort(([, a], [, b]) => (a === null ? 1 : b === null ? -1 : a - b)).map(([t]) => t);
    const rows = () =>
      page
        .locator('#basins tbody tr')
        .evaluateAll((r) => r.map((x) => (x as unknown as { dataset: { triplet: string } }).dataset.triplet));
    assert.deepEqual(await rows(), order);
    await page.click('#basins th button[data-key=pct]');
    const ranked = [...pct.values()].filter((p) => p !== null).length; // basins without a median stay last
    assert.deepEqual((await rows()).slice(0, ranked), order.slice(0, ranked).reverse());
    assert.equal(new URL(page.url()).searchParams.get('sort'), 'pct:desc');
    // Legend colours stay apart under simulated deuteranopia, protanopia and tritanopia.
    const legend = (await page.evaluate(
      "[...document.querySelectorAll('.legend i')].map((i) => getComputedStyle(i).backgroundColor)",
    )) as string[];
    assert.equal(legend.length, 9);
    for (const d of [undefined, ...DEFICIENCIES])
      assert.ok(closestPair(legend, d) > 10, `${d}: ΔE ${closestPair(legend, d)}`);
    if (shots) {
      const cdp = await page.context().newCDPSession(page);
      await cdp.send('Emulation.setEmulatedVisionDeficiency', { type: 'deuteranopia' });
      await page.screenshot({ path: join(shots, 'map-deuteranopia.png') });
      await cdp.send('Emulation.setEmulatedVisionDeficiency', { type: 'none' }); // the tab is reused
      await cdp.detach();
    }
    assert.deepEqual(problems, []);
    assert.deepEqual(outside, []);
    release();
  });

  it('the map can colour by % of median peak: each basin as the every-basin water-years answer says; the choice is in the URL', async () => {
    const { page, problems, outside, release } = await openPage(browser, `${base}/app/?colour=peak`);
    await page.waitForSelector('#basins tbody tr td i.swatch');
    const all = await api<{
      variables: string[];
      basins: { pourpoint: string; results: Record<string, (number | string | null)[][]> }[];
    }>(`/datasets/swann/water-years?water_year=2025&variable=swe&normals=true&normals_years=${REF}`);
    const pi = all.variables.indexOf('pct_median_peak_mean_swe_mm');
    const vi = all.variables.indexOf('peak_mean_swe_mm');
    const want = new Map(
      all.basins.map((b) => {
        const row = b.results['2025']![0]!;
        return [b.pourpoint, [row[vi] as number, row[pi] as number | null]] as const;
      }),
    );
    assert.equal(want.size, 11);
    assert.ok([...want.values()].filter(([, p]) => p !== null).length >= 8);
    // The list: each basin's peak (in: US units by default) and its % of the median peak, rounded.
    const shown = (await page.locator('#basins tbody tr').evaluateAll((rows) =>
      rows.map((r) => {
        const cells = [...r.querySelectorAll('td')].map((c) => c.textContent ?? '');
        return [(r as unknown as { dataset: { triplet: string } }).dataset.triplet, cells[3], cells[4]];
      }),
    )) as [string, string, string][];
    assert.equal(shown.length, 11);
    for (const [triplet, value, pct] of shown) {
      const [peak, p] = want.get(triplet)!;
      assert.equal(pct, p === null ? '–' : String(Math.round(p)), triplet);
      const inches = peak / 25.4;
      assert.ok(
        Math.abs(Number(value.replaceAll(',', '')) - inches) <= 0.006 * inches + 0.006,
        `${triplet} ${value} vs ${inches}`,
      );
    }
    assert.match(
      (await page.textContent('.legend-title')) ?? '',
      /^Peak of water year 2025, % of the median peak$/,
    );
    assert.match((await page.textContent('#basins th')) ?? '', /Basin/);
    assert.match(await page.locator('#basins thead').innerText(), /Value \(peak, in\)/);
    await page.selectOption('#colour-by', 'day');
    await page.waitForFunction(
      "/% of median on/.test(document.querySelector('.legend-title')?.textContent ?? '')",
    );
    assert.equal(new URL(page.url()).searchParams.get('colour'), null);
    await page.selectOption('#colour-by', 'peak');
    await page.waitForFunction(
      "/median peak/.test(document.querySelector('.legend-title')?.textContent ?? '')",
    );
    assert.equal(new URL(page.url()).searchParams.get('colour'), 'peak');
    if (shots) await page.screenshot({ path: join(shots, 'map-peak.png') });
    assert.deepEqual(problems, []);
    assert.deepEqual(outside, []);
    release();
  });

  it('nesting on the page: the basin a basin lies in and those inside it, as the API says; a click goes up', async () => {
    const detail = await api<{ properties: { parents: string[]; children: string[] } }>(
      `/pourpoints/${VIRGIN}`,
    );
    assert.deepEqual(detail.properties.parents, [HURRICANE]);
    assert.deepEqual(detail.properties.children, ['NORTHCK:UT:DEMO']);
    const { page, problems, outside, release } = await openPage(browser, `${base}/app/?basin=${VIRGIN}`);
    await page.waitForSelector('#basin-nest a');
    assert.equal(
      await page.textContent('#basin-nest'),
      'Inside: Virgin R nr Hurricane · Holds 1: North Ck nr Virgin (delineated from the demo DEM)',
    );
    await page.click(`#basin-nest a[data-triplet="${HURRICANE}"]`);
    await page.waitForFunction(
      `document.querySelector('#basin-title')?.textContent?.includes('${HURRICANE}')`,
    );
    await page.waitForFunction(
      "document.querySelector('#basin-nest')?.textContent === 'Holds 1: Virgin R at Virgin'",
    );
    assert.equal(new URL(page.url()).searchParams.get('basin'), HURRICANE);
    assert.deepEqual(problems, []);
    assert.deepEqual(outside, []);
    release();
  });

  it("an area uploaded while the basin's stations still load: they never show beside the area", async () => {
    const { page, problems, outside, release } = await openPage(
      browser,
      `${base}/app/?units=metric&dataset=swann&variable=swe&date=2025-04-01`,
    );
    await page.waitForSelector('#basins tbody tr td i.swatch');
    // The basin's station index is held back until the area is on show.
    let held: () => void = () => {};
    const gate = new Promise<void>((go) => {
      held = go;
    });
    const arrived = new Promise<void>((ok) => {
      void page.route('**/station-index*', async (route) => {
        ok();
        await gate;
        await route.continue();
      });
    });
    await page.click(`#basins tbody tr[data-triplet="${HURRICANE}"]`);
    await arrived;
    const file = join(dir, 'while-loading.geojson');
    await writeFile(file, JSON.stringify({ type: 'Feature', properties: {}, geometry: AREA }));
    await page.setInputFiles('#area-file', file);
    await page.waitForFunction(
      "document.querySelector('#basin-title')?.textContent === 'Your area: while-loading.geojson'",
    );
    await settled(page);
    held();
    // The held answer lands, then the rest of the basin's station requests would: none may write.
    await page.waitForResponse('**/station-index*');
    await page.waitForLoadState('networkidle');
    await settled(page);
    assert.equal(await page.locator('#stations').isHidden(), true);
    assert.equal(await page.locator('#stations-table tbody tr').count(), 0);
    assert.equal(await page.textContent('#stations-note'), '');
    assert.equal(await page.textContent('#basin-title'), 'Your area: while-loading.geojson');
    assert.doesNotMatch((await page.textContent('#panel')) ?? '', /Station index/);
    await page.unroute('**/station-index*'); // the page goes back to the pool as it came
    assert.deepEqual(problems, []);
    assert.deepEqual(outside, []);
    release();
  });

  it('an uploaded polygon: its season from the drawn-polygon route, the numbers on show, a basin replaces it', async () => {
    // A basin with stations chosen first: nothing of it may stay once the area is on show.
    const { page, problems, outside, release } = await openPage(
      browser,
      `${base}/app/?units=metric&dataset=swann&variable=swe&basin=${HURRICANE}&date=2025-04-01`,
    );
    await page.waitForSelector('#basins tbody tr td i.swatch');
    await settled(page);
    await page.waitForFunction("document.querySelectorAll('#stations-table tbody tr').length > 0");
    const file = join(dir, 'upload.geojson');
    const geometry = AREA;
    await writeFile(file, JSON.stringify({ type: 'Feature', properties: {}, geometry }));
    await page.setInputFiles('#area-file', file);
    await page.waitForFunction(
      "document.querySelector('#basin-title')?.textContent === 'Your area: upload.geojson'",
    );
    await settled(page);
    assert.equal(await page.locator('#stations').isHidden(), true, "the basin's stations are gone");
    assert.equal(await page.locator('#stations-table tbody tr').count(), 0);
    const ring = (geometry as { coordinates: number[][][] }).coordinates[0]!;
    const [lons, lats] = [ring.map((p) => p[0]!), ring.map((p) => p[1]!)];
    const box = [Math.min(...lons), Math.min(...lats), Math.max(...lons), Math.max(...lats)] as const;
    // The map goes to the area (once a zoom to the basin chosen before, if still under way, ends).
    const centred = await page
      .waitForFunction(
        ([w, s, e, n]) => {
          const c = (
            globalThis as never as { snowdb: { map: { map: { getCenter(): { lat: number; lng: number } } } } }
          ).snowdb.map.map.getCenter();
          return c.lng >= w && c.lng <= e && c.lat >= s && c.lat <= n;
        },
        box,
        { timeout: 5000 },
      )
      .then(
        () => true,
        () => false,
      );
    const center = await page.evaluate(() =>
      (
        globalThis as never as { snowdb: { map: { map: { getCenter(): { lat: number; lng: number } } } } }
      ).snowdb.map.map.getCenter(),
    );
    assert.ok(centred, `the map shows the area: centre ${center.lng}, ${center.lat}`);
    const r = await fetch(
      `${base}/datasets/swann/stats/area?variable=swe&datetime=2024-10-01/2025-04-26&normals=true&normals_years=${REF}`,
      { method: 'POST', body: JSON.stringify(geometry), headers: { 'content-type': 'application/geo+json' } },
    );
    const body = (await r.json()) as Body & { pourpoint: string };
    const dates = Object.keys(body.results).sort();
    const [xs, , , median, , , value] = await chartData(page, 'season');
    assert.deepEqual(
      xs,
      dates.map((d) => Date.parse(`${d}T00:00:00Z`) / 1000),
    );
    assert.deepEqual(
      value,
      dates.map((d) => body.results[d]![0]![col(body, 'mean_swe_mm')]),
    );
    assert.deepEqual(
      median,
      dates.map((d) => body.results[d]![0]![col(body, 'median_mean_swe_mm')]),
    );
    assert.ok(
      value!.some((v) => v !== null && v > 0),
      'snow in the area',
    );
    assert.match(
      (await page.textContent('#season-note')) ?? '',
      new RegExp(`upload\\.geojson: .* on the swann grid, .*\\(${body.pourpoint}\\)`),
    );
    assert.equal(await page.locator('#numbers tbody tr').count(), dates.length);
    assert.equal(
      await page.locator('[role=tab][data-view=zones]').isHidden(),
      true,
      'one view for a drawn area',
    );
    if (shots) await page.screenshot({ path: join(shots, 'upload.png'), fullPage: true });
    // Drawn on the map: three clicks and a double-click; the panel shows that polygon's season.
    await page.click('#draw-area');
    const corners: [number, number][] = [
      [-113.25, 37.25],
      [-112.95, 37.3],
      [-113.1, 37.5],
    ];
    await setMapView(page, -113.1, 37.35, 9);
    const px = [];
    for (const [lon, lat] of corners) px.push(await screenPoint(page, lon, lat));
    await page.mouse.click(px[0]!.x, px[0]!.y);
    await page.mouse.click(px[1]!.x, px[1]!.y);
    await page.mouse.dblclick(px[2]!.x, px[2]!.y);
    await page.waitForFunction(
      "document.querySelector('#basin-title')?.textContent === 'Your area: drawn on the map'",
    );
    await settled(page);
    const drawn = (await page.evaluate('window.snowdb.area.geometry')) as {
      type: string;
      coordinates: number[][][];
    };
    assert.equal(drawn.type, 'Polygon');
    assert.equal(drawn.coordinates[0]!.length, 4, 'three corners, closed');
    drawn.coordinates[0]!.slice(0, 3).forEach(([lon, lat], i) => {
      // A click lands within a pixel of its corner (zoom 9: ~0.003° a pixel).
      assert.ok(
        Math.abs(lon! - corners[i]![0]) < 0.01 && Math.abs(lat! - corners[i]![1]) < 0.01,
        `${lon},${lat}`,
      );
    });
    const again = (await (
      await fetch(
        `${base}/datasets/swann/stats/area?variable=swe&datetime=2024-10-01/2025-04-26&normals=true&normals_years=${REF}`,
        {
          method: 'POST',
          body: JSON.stringify(drawn),
          headers: { 'content-type': 'application/json' },
        },
      )
    ).json()) as Body;
    const [, , , , , , drawnValues] = await chartData(page, 'season');
    const drawnDates = Object.keys(again.results).sort();
    assert.deepEqual(
      drawnValues,
      drawnDates.map((d) => again.results[d]![0]![col(again, 'mean_swe_mm')]),
    );
    // A bad file says so; choosing a basin leaves the area.
    await writeFile(join(dir, 'bad.geojson'), '{"type": "Point", "coordinates": [-113, 37]}');
    await page.setInputFiles('#area-file', join(dir, 'bad.geojson'));
    await page.waitForFunction(
      "/expected a Polygon or MultiPolygon/.test(document.querySelector('#panel .status')?.textContent ?? '')",
    );
    await page.click(`#basins tbody tr[data-triplet="${VIRGIN}"]`);
    await page.waitForFunction(`document.querySelector('#basin-title')?.textContent?.includes('${VIRGIN}')`);
    assert.equal(await page.locator('[role=tab][data-view=zones]').isHidden(), false);
    assert.deepEqual(
      problems.filter((p) => !/422/.test(p)),
      [],
    );
    assert.deepEqual(outside, []);
    release();
  });

  it('by zone: each band with its area and share, partial coverage named, the API numbers; year against year and every year on the day; CSV of what is shown', async () => {
    const { page, problems, outside, release } = await openPage(
      browser,
      `${base}/app/?basin=${VIRGIN}&view=zones&units=metric`,
    );
    await settled(page);
    const s = await api<Body>(
      `/datasets/swann/stats/${VIRGIN}/date-range?variable=swe&datetime=2024-10-01/2025-04-26&zone=terrain.elevation:band_step_ft=1000&normals=true&normals_years=${REF}`,
    );
    const total = s.zones.reduce((t, z) => t + z.area_m2, 0);
    const captions = await page.locator('.zone-card figcaption').allTextContents();
    assert.equal(captions.length, s.zones.length);
    for (const [k, z] of s.zones.entries())
      assert.match(captions[k]!, new RegExp(`${((100 * z.area_m2) / total).toFixed(1)} % of the basin`));
    const lost = s.zones.at(-1)!;
    assert.equal(lost.zone[0]!.kind, 'unclassified');
    // The bands no station within 10 km stands in, as the API places the stations.
    const placed = await api<{ stations: { band: { min: number; max: number } | null }[] }>(
      `/pourpoints/${VIRGIN}/stations?within_km=10`,
    );
    const bands = s.zones.filter((z) => z.zone[0]!.kind === 'band');
    const empty = bands.filter(
      (z) => !placed.stations.some((p) => p.band?.min === z.zone[0]!.min && p.band?.max === z.zone[0]!.max),
    );
    assert.ok(empty.length > 0 && empty.length < bands.length);
    assert.equal(
      await page.textContent('#zones-note'),
      `Zone layers cover ${((100 * (total - lost.area_m2)) / total).toFixed(0)} % of this basin; the rest is shown as 'unclassified'. No station stands in ${empty.length} of ${bands.length} bands (${((100 * empty.reduce((t, z) => t + z.area_m2, 0)) / total).toFixed(0)} % of the basin): ▲ marks the stations within 10 km.`,
    );
    // One key names both lines of every card and the unit of their y axes.
    assert.equal(
      (await page.textContent('#zones-key'))?.trim(),
      `this year  median of water years ${REF.replace('..', '–')} · values in mm`,
    );
    const dates = Object.keys(s.results).sort();
    for (const k of [0, 4, s.zones.length - 1]) {
      const [xs, median, value] = await chartData(page, 'zones', k);
      assert.deepEqual(
        xs,
        dates.map((d) => Date.parse(`${d}T00:00:00Z`) / 1000),
      );
      assert.deepEqual(
        value,
        dates.map((d) => s.results[d]![k]![col(s, 'mean_swe_mm')]),
      );
      assert.deepEqual(
        median,
        dates.map((d) => s.results[d]![k]![col(s, 'median_mean_swe_mm')]),
      );
    }
    const [download] = await Promise.all([page.waitForEvent('download'), page.click('#download-csv')]);
    assert.equal(download.suggestedFilename(), '09406000-UT-USGS_mean_swe_mm_by-zone_WY2025.csv');
    const text = await readFile((await download.path())!, 'utf8');
    assert.ok(text.startsWith('\ufeff'), 'a byte-order mark: Excel reads the en dash and m³');
    const csv = text.slice(1).trimEnd().split('\r\n');
    assert.equal(csv[0], 'date,zone,this year (mm),median (mm),% of median,1-day (mm),7-day (mm)');
    assert.equal(csv.length - 1, dates.length * s.zones.length);
    // The changes columns are the changes endpoint's, zone by zone (weekly data: 7-day changes, no 1-day ones).
    const ch = await api<Body>(
      `/datasets/swann/stats/${VIRGIN}/changes?variable=swe&datetime=2024-10-01/2025-04-26&zone=terrain.elevation:band_step_ft=1000`,
    );
    let weeks = 0;
    csv.slice(1).forEach((line, i) => {
      const [d, , , , , one, seven] = line.split(',');
      const k = i % s.zones.length;
      const want = ch.results[d!]![k]![col(ch, 'change_7d_mean_swe_mm')];
      assert.equal(seven === '' ? null : Number(seven), want ?? null, `${d} zone ${k}`);
      assert.equal(
        one === '' ? null : Number(one),
        ch.results[d!]![k]![col(ch, 'change_1d_mean_swe_mm')] ?? null,
      );
      if (want !== null) weeks++;
    });
    assert.ok(weeks >= s.zones.length, `${weeks} 7-day changes`);
    const held = dates.filter((d) => d <= '2025-04-26').at(-1)!;
    const week = ch.results[held]![4]![col(ch, 'change_7d_mean_swe_mm')];
    assert.equal(typeof week, 'number', `${held}: a week after another held date`);
    assert.match(captions[4]!, new RegExp(`in 7 days to ${held}`), 'the card says its 7-day change');
    const [d0, z0, v0] = csv[1 + 4]!.split(',');
    assert.deepEqual(
      [d0, z0, Number(v0)],
      [dates[0], '7000–8000 ft', s.results[dates[0]!]![4]![col(s, 'mean_swe_mm')]],
    );

    await page.click('[role=tab][data-view=years]');
    await settled(page);
    const years = await chartData(page, 'years');
    assert.equal(years.length, 4); // x, then the default three water years 2023–2025
    const wy24 = await api<Body>(
      `/datasets/swann/stats/${VIRGIN}/date-range?variable=swe&datetime=2023-10-01/2024-09-30&units=metric`,
    );
    const x = years[0]!;
    const mar1 = x.indexOf(152); // 1 March in every year (2024 is a leap year)
    assert.equal(years[2]![mar1], wy24.results['2024-03-01']![0]![0]);
    const doy = await api<Body>(
      `/datasets/swann/stats/${VIRGIN}/doy?variable=swe&month=4&day=26&start_year=2021&end_year=2025&normals=true&normals_years=${REF}`,
    );
    const doyRows = await page
      .locator('#doy-table tbody tr')
      .evaluateAll((r) => r.map((tr) => [...tr.querySelectorAll('td')].map((td) => td.textContent)));
    assert.equal(doyRows.length, 5);
    assert.equal(doyRows[4]![1], '2025-04-26');
    // Every year ranks among the same five (2021–2024 and 2025); a tie at no snow has no rank.
    const days = Object.keys(doy.results).sort();
    days.forEach((d, i) => {
      const row = doy.results[d]![0]!;
      const rank = row[col(doy, 'rank_mean_swe_mm')];
      assert.equal(row[col(doy, 'rank_of_mean_swe_mm')], 5, d);
      assert.equal(doyRows[i]![4], rank === null ? '' : `${rank} of 5`, d);
    });
    assert.deepEqual(problems, []);
    assert.deepEqual(outside, []);
    release();
  });

  it('stations on the page: the table is the API placement with each latest SWE, the season chart draws the sites inside as the station API says, bands mark their stations', async () => {
    const { page, problems, outside, release } = await openPage(
      browser,
      `${base}/app/?basin=${HURRICANE}&dataset=swann&variable=swe&date=2025-04-01&units=metric`,
      1280,
    );
    await settled(page);
    await page.waitForFunction("document.querySelectorAll('#stations-table tbody tr').length > 0");
    // At 1280 px the table fits its box: SWE, % of median and station ÷ cell are on screen.
    const fit = await page.evaluate(() => {
      const t = (
        globalThis as never as {
          document: {
            getElementById(id: string): { scrollWidth: number; parentElement: { clientWidth: number } };
          };
        }
      ).document.getElementById('stations-table');
      return { table: t.scrollWidth, box: t.parentElement.clientWidth };
    });
    assert.ok(fit.table <= fit.box, `stations table ${fit.table} px in a ${fit.box} px box`);
    const near = await api<{
      stations: {
        triplet: string;
        name: string;
        inside: boolean;
        network: string;
        elevation_m: number;
        band: { min: number; max: number };
      }[];
    }>(`/pourpoints/${HURRICANE}/stations?within_km=10`);
    assert.ok(near.stations.length >= 3);
    const rows = await page
      .locator('#stations-table tbody tr')
      .evaluateAll((trs) =>
        trs.map((tr) =>
          [...tr.querySelectorAll('td')].map((td) =>
            (td as unknown as { innerText: string }).innerText.replace(/\s+/g, ' ').trim(),
          ),
        ),
      );
    assert.deepEqual(
      rows.map((r) => r[0]),
      near.stations.map((s) => `${s.name} ${s.triplet}`),
    );
    let cellsShown = 0;
    for (const [i, s] of near.stations.entries()) {
      const body = await api<{ variables: string[]; results: Record<string, (number | null)[]> }>(
        `/stations/${s.triplet}?datetime=2024-10-01/2025-04-01`,
      );
      const last = Object.keys(body.results)
        .filter((d) => body.results[d]![0] !== null)
        .at(-1)!;
      assert.equal(rows[i]![5], last); // columns: station, SWE, % of median, cell, ÷, on, elevation, where
      // The page's table rounds as its num(): 0 decimals from 100, 1 from 10, 2 from 1, else 3.
      const v = body.results[last]![0]!;
      const a = Math.abs(v);
      const digits = a === 0 ? 0 : a >= 100 ? 0 : a >= 10 ? 1 : a >= 1 ? 2 : 3;
      assert.equal(Number(rows[i]![1]!.replace(/,/g, '')), Number(v.toFixed(digits)), s.triplet);
      // The grid cell holding it that day, and station ÷ cell, as the station-against-grid route says.
      const cmp = await api<{ results: Record<string, (number | null)[]> }>(
        `/datasets/swann/stations/${s.triplet}?datetime=${last}`,
      );
      const [, cell, ratio] = cmp.results[last] ?? [null, null, null];
      const shown = (text: string) => (text === '–' ? null : Number(text.replace(/,/g, '')));
      const rounded = (x: number | null | undefined) => {
        if (x === null || x === undefined) return null;
        const b = Math.abs(x);
        return Number(x.toFixed(b === 0 ? 0 : b >= 100 ? 0 : b >= 10 ? 1 : b >= 1 ? 2 : 3));
      };
      assert.equal(shown(rows[i]![3]!), rounded(cell), `${s.triplet} cell`);
      assert.equal(shown(rows[i]![4]!), rounded(ratio), `${s.triplet} ratio`);
      if (cell !== null && cell !== undefined) cellsShown++;
    }
    assert.equal(cellsShown, near.stations.length, 'every station has its cell on its latest day');
    const index = await api<{ results: Record<string, (number | null)[]> }>(
      `/pourpoints/${HURRICANE}/station-index?datetime=2025-04-01`,
    );
    assert.match(
      (await page.textContent('#stations-note'))!,
      new RegExp(`Station index on 2025-04-01: ${index.results['2025-04-01']![0]} % of median`),
    );
    // The chart's station lines: the recorded SNOTEL sites inside, highest first, on the chart's days.
    const lines = near.stations
      .filter((s) => s.inside && s.network === 'SNTL')
      .sort((a, b) => b.elevation_m - a.elevation_m)
      .slice(0, 3);
    const data = await chartData(page, 'season');
    const xs = data[0]!;
    const labels = await page.evaluate(() =>
      (
        globalThis as unknown as { snowdb: { charts: { season: { series: { label: string }[] } } } }
      ).snowdb.charts.season.series.map((x) => x.label),
    );
    for (const s of lines) {
      const k = labels.findIndex((l) => l.startsWith(`${s.name} (station`));
      assert.ok(k > 0, `${s.name} in ${labels.join(', ')}`);
      const body = await api<{ results: Record<string, (number | null)[]> }>(
        `/stations/${s.triplet}?datetime=2024-10-01/2025-09-30`,
      );
      assert.deepEqual(
        data[k],
        xs.map((x) => body.results[new Date(x! * 1000).toISOString().slice(0, 10)]?.[0] ?? null),
      );
    }
    // By zone, 1000-ft bands: each card lists the stations placed in its band.
    await page.click('[role=tab][data-view=zones]');
    await settled(page);
    await page.waitForFunction(
      "document.querySelectorAll('.zone-card').length > 0 && !document.querySelector('[aria-busy=true]')",
    );
    const cards = await page.locator('.zone-card figcaption').evaluateAll((fs) =>
      fs.map((f) => ({
        band: f.querySelector('strong')!.textContent!,
        marks: [...f.querySelectorAll('.station-mark')].map(
          (m) => (m as unknown as { dataset: Record<string, string> }).dataset.triplet!,
        ),
      })),
    );
    for (const c of cards) {
      const m = /^(\d+)–(\d+) ft$/.exec(c.band);
      const want = m
        ? near.stations
            .filter((s) => s.band?.min === Number(m[1]) && s.band?.max === Number(m[2]))
            .map((s) => s.triplet)
        : [];
      assert.deepEqual(c.marks, want, c.band);
    }
    assert.ok(cards.some((c) => c.marks.length > 0));
    assert.match(
      (await page.textContent('#zones-note'))!,
      /No station stands in \d+ of \d+ bands \(\d+ % of the basin\)/,
    );
    assert.deepEqual(problems, []);
    assert.deepEqual(outside, []);
    release();
  });

  it('at 390 px the page stacks without sideways scrolling; a basin no zone layer reaches says so; a bad URL date shows the problem', async () => {
    const { page, problems, release } = await openPage(browser, `${base}/app/?basin=${VIRGIN}`, 390, 800);
    await settled(page);
    const [overview, detail] = await Promise.all(
      ['#overview', '#detail'].map((s) => page.locator(s).boundingBox()),
    );
    assert.ok(detail!.y >= overview!.y + overview!.height, 'the basin panel is below the map and list');
    assert.ok(((await page.evaluate('document.documentElement.scrollWidth')) as number) <= 390);
    if (shots) await page.screenshot({ path: join(shots, 'page-390.png'), fullPage: true });
    // SPIRES' variable menu holds long names: it wraps or shrinks, the page stays 390 px wide.
    await page.goto(`${base}/app/?basin=${VIRGIN}&dataset=instarr`);
    await page.waitForSelector('body[data-ready=true]', { state: 'attached' });
    await settled(page);
    const wide = (await page.evaluate('document.documentElement.scrollWidth')) as number;
    assert.ok(wide <= 390, `instarr at 390 px: ${wide} px wide`);
    await page.goto(`${base}/app/?dataset=snodas&basin=12488000:WA:USGS&view=zones`);
    await page.waitForSelector('body[data-ready=true]', { state: 'attached' });
    await page.waitForFunction("document.querySelector('#zones-note')?.textContent !== ''");
    assert.equal(
      await page.textContent('#zones-note'),
      'No zone layer of this dataset reaches this basin: there is nothing to show by zone.',
    );
    // A basin off every dataset's grid (Virgin R. moved 60° west, imported while the server runs).
    await importOffGrid(dir, env());
    await page.goto(`${base}/app/?dataset=snodas&basin=${OFFGRID}`);
    await page.waitForSelector('#panel-status.error');
    assert.equal(
      await page.textContent('#panel-status'),
      'The snodas dataset does not cover this basin: choose another dataset.',
    );
    assert.match((await page.textContent('#basin-facts')) ?? '', /snodas covers none of it$/);
    assert.equal(await page.locator('#numbers tr').count(), 0, 'no numbers for a basin not covered');
    await page.goto(`${base}/app/?dataset=swann&date=2025-02-30`);
    await page.waitForSelector('#overview > .status.error');
    assert.match(
      (await page.textContent('#overview > .status')) ?? '',
      /^Malformed query parameter: .*2025-02-30/,
    );
    assert.deepEqual(
      problems.filter((p) => !p.includes('400 (Bad Request)')),
      [],
    );
    release();
    if (shots) {
      const wide = await openPage(browser, `${base}/app/?basin=${VIRGIN}`, 1400, 900);
      await settled(wide.page);
      await wide.page.screenshot({ path: join(shots, 'page-1400.png'), fullPage: true });
      wide.release();
    }
  });
});
