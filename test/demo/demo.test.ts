import assert from 'node:assert/strict';
import { type ChildProcessByStdio, execFile, spawn } from 'node:child_process';
import { once } from 'node:events';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import type { Browser, Page } from 'playwright-core';
import { DEMO_DATES, SPIRES_DATES, sweMm, waterYearDay } from '../../scripts/demo/snow.js';
import { launchChromium, localOnly } from '../helpers/browser.js';
import { snowdb, tempDir } from '../helpers/cli.js';
import { type OracleInfo, oracle } from '../helpers/gdal.js';
import { fixturePath } from '../helpers/raster.js';

const DEMO = fileURLToPath(new URL('../../scripts/demo.js', import.meta.url));
const run = promisify(execFile);
const VIRGIN = '09406000:UT:USGS';

/** Start `npm run demo`'s script with `args`; stderr is collected into `log.text`. */
function startDemo(args: string[]): {
  child: ChildProcessByStdio<null, Readable, Readable>;
  log: { text: string };
} {
  const env = { ...process.env };
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
    const build = startDemo(['--dir', dir, '--no-serve']);
    const [code] = await once(build.child, 'close');
    first = build.log.text;
    assert.equal(code, 0, first);
    // The second run converges, then serves on a free port.
    const serve = startDemo(['--dir', dir, '--port', '0']);
    server = serve.child;
    const url = /web page\s+(http:\/\/\S+)\/app/;
    while (!url.test(serve.log.text)) {
      const [c] = await Promise.race([once(server.stderr, 'data'), once(server, 'close')]);
      if (typeof c === 'number' || c === null) assert.fail(`demo exited: ${serve.log.text}`);
    }
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
    assert.match(first, /# snodas: 13 file\(s\) generated, 0 reused/);
    assert.match(first, /# swann: 13 file\(s\) generated, 0 reused/);
    assert.match(first, /# spires: 21 file\(s\) generated, 0 reused/);
    assert.match(first, /doctor: every check passed/);
  });

  it('a second run reuses every source and date, then serves and prints URLs and example commands', () => {
    for (const kind of ['snodas', 'swann'])
      assert.match(second, new RegExp(`# ${kind}: 0 file\\(s\\) generated, 13 reused`));
    assert.match(second, /# spires: 0 file\(s\) generated, 21 reused/);
    assert.equal((second.match(/ingested 0, up-to-date 13,/g) ?? []).length, 2, second);
    assert.match(second, /ingested 0, up-to-date 7,/);
    assert.match(second, /web page\s+http:\/\/127\.0\.0\.1:\d+\/app/);
    assert.match(second, /npx snowdb stats snodas 09406000:UT:USGS/);
  });

  it('holds ten basins and three active datasets with the generated dates', async () => {
    const r = await snowdb(['status', '--format', 'json'], { env: env() });
    assert.equal(r.code, 0, r.stderr);
    const s = JSON.parse(r.stdout) as {
      datasets: { name: string; active: boolean; dates: number; first_date: string; health: string }[];
    };
    const by = Object.fromEntries(s.datasets.map((d) => [d.name, d]));
    for (const [name, n, firstDate] of [
      ['snodas', 13, '2025-02-01'],
      ['swann', 13, '2025-02-01'],
      ['instarr', 7, '2025-02-01'],
    ] as const) {
      assert.equal(by[name]?.active, true, name);
      assert.equal(by[name]?.dates, n, name);
      assert.equal(by[name]?.first_date, firstDate, name);
      assert.equal(by[name]?.health, 'ok', name);
    }
    assert.equal(DEMO_DATES.length, 13);
    assert.equal(SPIRES_DATES.length, 7);
    const pp = await api<{ features: unknown[] }>('/pourpoints?limit=100');
    assert.equal(pp.features.length, 10);
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
      assert.equal(swe, sweMm(height, waterYearDay(date)), date);
    }
  });

  it('Virgin R: SWE rises with elevation, and higher bands peak later', async () => {
    const s = await api<Stats>(
      `/datasets/snodas/stats/${VIRGIN}/date-range?datetime=2025-02-01/2025-04-30&variable=swe&zone=terrain.elevation`,
    );
    const dates = Object.keys(s.results).sort();
    assert.equal(dates.length, 13);
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

  /** Open the page, collecting console errors, page errors and failed requests. */
  async function openPage(): Promise<{ page: Page; problems: string[]; outside: string[] }> {
    const page = await browser.newPage({ viewport: { width: 1400, height: 900 }, acceptDownloads: true });
    const problems: string[] = [];
    page.on('console', (m) => {
      if (m.type() === 'error' || m.type() === 'warning') problems.push(`${m.type()}: ${m.text()}`);
    });
    page.on('pageerror', (e) => problems.push(`pageerror: ${e.message}`));
    page.on('requestfailed', (r) => problems.push(`failed: ${r.url()}`));
    const outside = await localOnly(page);
    await page.goto(`${base}/`); // a browser at the root is sent to the page
    await page.waitForSelector('body[data-ready=true]', { state: 'attached' });
    return { page, problems, outside };
  }

  it('the page shows the basins; a click draws a chart and table of the API numbers; the CSV link has them too', async () => {
    const { page, problems, outside } = await openPage();
    assert.equal(new URL(page.url()).pathname, '/app/');
    assert.equal(await page.locator('path.basin').count(), 10);
    await page.locator(`path.basin-${VIRGIN.replaceAll(':', '-')}`).click();
    await page.waitForSelector('#table tbody tr');
    assert.match((await page.textContent('#basin')) ?? '', /Virgin R at Virgin \(09406000:UT:USGS\)/);

    const s = await api<Stats>(
      `/datasets/snodas/stats/${VIRGIN}/date-range?datetime=2025-02-01/2025-04-26&variable=swe&zone=terrain.elevation:band_step_ft=1000`,
    );
    const dates = Object.keys(s.results).sort();
    const expected = s.zones.map((_, z) => dates.map((d) => s.results[d]![z]![0]!));
    const chart = (await page.evaluate(
      () =>
        (globalThis as unknown as { snowdbChart: { data: number[][]; series: { label: string }[] } })
          .snowdbChart.data,
    )) as number[][];
    assert.deepEqual(
      chart[0],
      dates.map((d) => Date.parse(`${d}T00:00:00Z`) / 1000),
    );
    assert.deepEqual(chart.slice(1), expected);
    const labels = await page.evaluate(() =>
      (globalThis as unknown as { snowdbChart: { series: { label: string }[] } }).snowdbChart.series
        .slice(1)
        .map((x) => x.label),
    );
    assert.deepEqual(
      labels,
      s.zones.map((z) =>
        z.zone[0]!.kind === 'unclassified'
          ? 'unclassified (outside the zone layers)'
          : `${z.zone[0]!.min}–${z.zone[0]!.max} ft`,
      ),
    );

    assert.match(
      (await page.textContent('#status')) ?? '',
      /\d+\.\d % of the basin is outside the zone layers/,
    );

    const rows = await page
      .locator('#table tbody tr')
      .evaluateAll((trs) => trs.map((tr) => [...tr.querySelectorAll('td')].map((td) => td.textContent)));
    assert.deepEqual(
      rows,
      dates.map((d, i) => [d, ...expected.map((series) => series[i]!.toFixed(1))]),
    );

    const [download] = await Promise.all([page.waitForEvent('download'), page.locator('#csv').click()]);
    assert.equal(download.suggestedFilename(), '09406000-UT-USGS_2025-02-01-2025-04-26_zonal_1.csv');
    const csv = (await readFile((await download.path())!, 'utf8')).trim().split('\n');
    const header = csv[0]!.split(',');
    const [iDate, iMin, iMean] = ['date', 'terrain.elevation_min_ft', 'mean_swe_mm'].map((h) =>
      header.indexOf(h),
    );
    assert.equal(csv.length - 1, dates.length * s.zones.length);
    for (const line of csv.slice(1)) {
      const f = line.split(',');
      const z = s.zones.findIndex((x) =>
        f[iMin!] === 'unclassified'
          ? x.zone[0]!.kind === 'unclassified'
          : x.zone[0]!.min === Number(f[iMin!]),
      );
      assert.equal(Number(f[iMean!]), s.results[f[iDate!]!]![z]![0], line);
    }
    assert.deepEqual(problems, []);
    assert.deepEqual(outside, []);
    await page.close();
  });

  it('the zone picker and dataset picker refetch: aspect classes, then SWANN', async () => {
    const { page, problems } = await openPage();
    await page.locator(`path.basin-${VIRGIN.replaceAll(':', '-')}`).click();
    await page.waitForSelector('#table tbody tr');
    await page.selectOption('#zone', 'terrain.aspect');
    await page.waitForFunction(
      () => (globalThis as unknown as { snowdbChart: { series: unknown[] } }).snowdbChart.series.length === 7,
    );
    const labels = await page.locator('#table thead th').allTextContents();
    assert.deepEqual(labels, ['date', 'N', 'E', 'S', 'W', 'flat', 'unclassified (outside the zone layers)']);
    await page.selectOption('#dataset', 'swann');
    await page.waitForFunction(
      "document.querySelector('#csv').getAttribute('href').includes('/datasets/swann/')",
    );
    const s = await api<Stats>(
      `/datasets/swann/stats/${VIRGIN}/date-range?datetime=2025-02-01/2025-04-26&variable=swe&zone=terrain.aspect`,
    );
    const chart = (await page.evaluate(
      () => (globalThis as unknown as { snowdbChart: { data: number[][] } }).snowdbChart.data,
    )) as number[][];
    const dates = Object.keys(s.results).sort();
    assert.deepEqual(
      chart.slice(1),
      s.zones.map((_, z) => dates.map((d) => s.results[d]![z]![0]!)),
    );
    assert.deepEqual(problems, []);
    await page.close();
  });

  it('a basin no zone layer reaches gets its whole-basin series, and the page says so', async () => {
    const { page, problems } = await openPage();
    await page.selectOption('#dataset', 'instarr');
    // Its outflow point: at the starting zoom the basin itself is a few pixels under the marker.
    await page.locator('.outlet-12488000-WA-USGS').click();
    await page.waitForSelector('#table tbody tr');
    assert.match((await page.textContent('#status')) ?? '', /No zone layer reaches this basin/);
    const s = await api<Stats>(
      '/datasets/instarr/stats/12488000:WA:USGS/date-range?datetime=2025-02-01/2025-04-26&variable=snow_fraction',
    );
    const dates = Object.keys(s.results).sort();
    assert.equal(dates.length, 7);
    const chart = (await page.evaluate(
      () => (globalThis as unknown as { snowdbChart: { data: number[][] } }).snowdbChart.data,
    )) as number[][];
    assert.deepEqual(chart.slice(1), [dates.map((d) => s.results[d]![0]![0]!)]);
    assert.deepEqual(await page.locator('#table thead th').allTextContents(), ['date', 'whole basin']);
    assert.deepEqual(problems, []);
    await page.close();
  });
});
