/**
 * The web page with more basins than fit its list: 150 basins (the 10 bundled BAGIS outlines, each
 * copied to 15 places). The list draws only the rows in view between spacers as tall as the rows
 * left out, and the keyboard and the scroll bar still reach every basin; the map (one canvas, no
 * Leaflet layer per basin) names the basin under the pointer and picks it on a click. The page's
 * files are gzipped once and revalidated by ETag.
 */
import assert from 'node:assert/strict';
import { mkdir, readFile } from 'node:fs/promises';
import { type IncomingHttpHeaders, request } from 'node:http';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { gunzipSync } from 'node:zlib';
import type { Browser, Page } from 'playwright-core';
import { openPage } from '../demo/page.js';
import { basinCopies } from '../helpers/basin-copies.js';
import { launchChromium } from '../helpers/browser.js';
import { serveApi, snowdb, tempDir } from '../helpers/cli.js';

const COPIES = 15;
const ROW_PX = 46; // a list row's height (app.css)
const PAD = 30; // rows drawn beyond each edge of the list's view (list.js WINDOW_PAD)

/** The list's drawn rows (index and triplet), and its spacers' heights in px. */
function drawn(page: Page): Promise<{ rows: [number, string][]; pads: number[]; caption: string }> {
  return page.evaluate(`(() => {
    const t = document.querySelector('#basins');
    return {
      rows: [...t.querySelectorAll('tbody tr[data-i]')].map((r) => [Number(r.dataset.i), r.dataset.triplet]),
      pads: [...t.querySelectorAll('tbody tr.pad td')].map((d) => d.offsetHeight),
      caption: t.querySelector('caption').textContent,
    };
  })()`);
}

/** Wait until the page's URL names basin `t`. */
const chosen = (page: Page, t: string) =>
  page.waitForFunction(`new URL(location.href).searchParams.get('basin') === ${JSON.stringify(t)}`);

const focused = (page: Page) => page.evaluate('document.activeElement?.dataset.triplet ?? null');

describe('the web page with 150 basins', () => {
  let cleanup: () => Promise<void>;
  let stop: () => Promise<void>;
  let base: string;
  let browser: Browser;
  let ids: string[];

  before(async () => {
    let dir: string;
    ({ dir, cleanup } = await tempDir());
    const db = join(dir, 'db');
    await mkdir(join(dir, 'records'));
    // Each bundled outline at 15 spots 1.5° apart; triplets B000..B149.
    ids = await basinCopies(
      join(dir, 'records'),
      COPIES,
      (n, k) => [-121 + 1.5 * k, 34 + 1.5 * n],
      (n, k) => `B${String(n * COPIES + k).padStart(3, '0')}:UT:TEST`,
    );
    assert.equal((await snowdb(['init', db])).code, 0);
    const sync = await snowdb(['pourpoint', 'sync', join(dir, 'records')], { env: { SNOWDB_CONFIG: db } });
    assert.equal(sync.code, 0, sync.stderr);
    ({ base, stop } = await serveApi({ SNOWDB_CONFIG: db }));
    browser = await launchChromium();
  });
  after(async () => {
    await browser?.close();
    await stop?.();
    await cleanup?.();
  });

  it('no request leaves 127.0.0.1: one for elsewhere is listed and fails, by name, by address or over TLS', async () => {
    const { page, outside, release } = await openPage(browser, `${base}/app/`);
    const elsewhere = ['http://example.org/x', 'http://93.184.216.34/y', 'https://example.org/z'];
    const got = await page.evaluate(
      (urls) =>
        Promise.all(
          urls.map((u) =>
            fetch(u, { mode: 'no-cors' }).then(
              () => 'reached',
              () => 'blocked',
            ),
          ),
        ),
      elsewhere,
    );
    assert.deepEqual(got, ['blocked', 'blocked', 'blocked']);
    assert.deepEqual(outside, elsewhere);
    // The page's own requests still go through.
    assert.equal(await page.evaluate(`fetch('${base}/pourpoints?limit=1').then((r) => r.status)`), 200);
    assert.deepEqual(outside, elsewhere);
    release();
  });

  it('the list draws the rows in view; scrolling and the keys reach every basin', async () => {
    const { page, problems, outside, release } = await openPage(browser, `${base}/app/`);
    const first = await drawn(page);
    assert.equal(first.caption, '150 of 150 basins');
    // No dataset, so no % of median: rows sort by triplet. From the top: the rows in view and PAD more.
    const [inView, tall] = (await page.evaluate(
      "[document.querySelector('.scroll').clientHeight, innerHeight]",
    )) as [number, number];
    const count = Math.ceil(Math.max(inView, tall) / ROW_PX) + 2 * PAD; // the window bounds the view at first
    assert.deepEqual(
      first.rows,
      ids.slice(0, count).map((t, i) => [i, t]),
    );
    assert.deepEqual(first.pads, [(150 - count) * ROW_PX]); // one spacer below, as tall as the rows left out
    // Scrolled to the bottom: the last rows are drawn, a spacer above stands for the rest.
    await page.evaluate(`new Promise((done) => {
      const s = document.querySelector('.scroll');
      s.addEventListener('scroll', () => requestAnimationFrame(done), { once: true });
      s.scrollTop = s.scrollHeight;
    })`);
    const bottom = await drawn(page);
    assert.deepEqual(bottom.rows.at(-1), [149, ids[149]]);
    assert.equal(bottom.pads.length, 1);
    assert.equal(bottom.pads[0], bottom.rows[0]![0] * ROW_PX);
    // The keys: Home, End, arrows and Page Down move the focus through all 150 rows.
    await page.locator('#basins tbody tr[data-i]').last().focus();
    await page.keyboard.press('Home');
    assert.equal(await focused(page), ids[0]);
    await page.keyboard.press('ArrowDown');
    assert.equal(await focused(page), ids[1]);
    await page.keyboard.press('End');
    assert.equal(await focused(page), ids[149]);
    await page.keyboard.press('ArrowUp');
    assert.equal(await focused(page), ids[148]);
    await page.keyboard.press('Home');
    await page.keyboard.press('PageDown');
    const page1 = Math.floor(inView / ROW_PX) - 1; // a page: the rows in view less one
    assert.equal(await focused(page), ids[page1]);
    // Enter picks the focused basin.
    await page.keyboard.press('Enter');
    await chosen(page, ids[page1]!);
    assert.deepEqual(problems, []);
    assert.deepEqual(outside, []);
    release();
  });

  it('the map names the basin under the pointer and picks it on a click; the list scrolls to it', async () => {
    const { page, problems, outside, release } = await openPage(browser, `${base}/app/`);
    // An outflow point clear of the others (12 px), of the controls and of the legend.
    const target = (await page.evaluate(`(() => {
      const bm = snowdb.map;
      const box = bm.map.getContainer().getBoundingClientRect();
      const at = bm.order.map((b) => {
        const [lon, lat] = b.feature.properties.pourpoint;
        return { b, p: bm.map.latLngToContainerPoint([lat, lon]) };
      });
      const ok = at.find(
        ({ b, p }) =>
          p.x > 60 &&
          p.y > 20 &&
          p.x < box.width - 200 &&
          p.y < box.height - 60 &&
          at.every((o) => o.b === b || Math.hypot(o.p.x - p.x, o.p.y - p.y) >= 12),
      );
      return { id: ok.b.id, name: ok.b.feature.properties.name, x: box.left + ok.p.x, y: box.top + ok.p.y };
    })()`)) as { id: string; name: string; x: number; y: number };
    await page.mouse.move(target.x + 2, target.y + 1);
    const tip = page.locator('.leaflet-tooltip');
    await tip.waitFor();
    assert.equal(await tip.innerText(), `${target.name}\n${target.id}\nno % of median`);
    await page.mouse.click(target.x + 2, target.y + 1);
    await chosen(page, target.id);
    assert.match((await page.textContent('#basin-title')) ?? '', new RegExp(`\\(${target.id}\\)`));
    // The chosen row is drawn, marked, and inside the list's view.
    const row = await page.evaluate(`(() => {
      const r = document.querySelector('#basins tr[aria-selected=true]');
      const s = document.querySelector('.scroll').getBoundingClientRect();
      const b = r?.getBoundingClientRect();
      return { triplet: r?.dataset.triplet, inside: b !== undefined && b.top >= s.top - 1 && b.bottom <= s.bottom + 1 }; // 1 px: fractional layout
    })()`);
    assert.deepEqual(row, { triplet: target.id, inside: true });
    // Away from every basin: the name goes.
    await page.mouse.move(5, 5);
    await tip.waitFor({ state: 'detached' });
    assert.deepEqual(problems, []);
    assert.deepEqual(outside, []);
    release();
  });

  it("serves the page's files gzipped, byte for byte the npm package's, with an ETag that answers 304", async () => {
    const file = await readFile(createRequire(import.meta.url).resolve('leaflet/dist/leaflet.js'));
    const get = (headers: Record<string, string>) =>
      new Promise<{ status: number; headers: IncomingHttpHeaders; body: Buffer }>((done, fail) =>
        request(`${base}/app/vendor/leaflet.js`, { headers }, async (res) => {
          const chunks: Buffer[] = [];
          for await (const c of res) chunks.push(c as Buffer);
          done({ status: res.statusCode!, headers: res.headers, body: Buffer.concat(chunks) });
        })
          .on('error', fail)
          .end(),
      );
    const zipped = await get({ 'Accept-Encoding': 'gzip, deflate, br' });
    assert.equal(zipped.status, 200);
    assert.equal(zipped.headers['content-encoding'], 'gzip');
    assert.deepEqual(gunzipSync(zipped.body), file);
    const plain = await get({});
    assert.equal(plain.headers['content-encoding'], undefined);
    assert.deepEqual(plain.body, file);
    const etag = zipped.headers.etag!;
    assert.equal(plain.headers.etag, etag);
    const again = await get({ 'If-None-Match': etag, 'Accept-Encoding': 'gzip' });
    assert.equal(again.status, 304);
    assert.equal(again.body.length, 0);
    assert.equal((await get({ 'If-None-Match': '"other"' })).status, 200);
  });
});
