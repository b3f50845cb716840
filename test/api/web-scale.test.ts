/**
 * The web page with a basin set too large to outline at once: 2,184 HUC12-like basins (the scale
 * bench's tessellation of a 5° × 4° box, imported as a set). The first paint needs one request for
 * every basin (the basin table) and no outline: zoomed out, each basin is a small square at its
 * outflow point in its class colour; zoomed in, the outlines of the basins whose boxes meet the
 * view come (fine from zoom 8), and only those. The list holds every basin and search finds one.
 */
import assert from 'node:assert/strict';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { tessellate } from '../../bench/fixture/tessellation.js';
import { mappedVertices, openPage, paintedAt, screenPoint } from '../demo/page.js';
import { launchChromium } from '../helpers/browser.js';
import { serveApi, snowdb, tempDir } from '../helpers/cli.js';

const NO_DATA = '#c9c9c9'; // units.js: a basin without a value (no dataset here)
const HOSTILE = 'Rock "Creek", upper\r\nfork';

/** The API requests the page made under /pourpoints, as path and query. */
const requested = (page: Page): Promise<string[]> =>
  page.evaluate(() =>
    performance
      .getEntriesByType('resource')
      .map((e) => new URL(e.name))
      .filter((u) => u.pathname === '/pourpoints')
      .map((u) => `${u.pathname}${u.search}`),
  );

/** A basin as the map holds it: whether its outline came, and its box (unit coordinates). */
interface Shape {
  id: string;
  outlined: boolean;
  box: number[];
}

describe('the web page with 2,184 basins', () => {
  let cleanup: () => Promise<void>;
  let stop: () => Promise<void>;
  let base: string;
  let browser: Browser;
  let ids: string[];
  let quoted: string; // the basin with the HOSTILE name

  before(async () => {
    let dir: string;
    ({ dir, cleanup } = await tempDir());
    const levels = tessellate({ box: [-116, 38, -111, 42], basins: 2200, step: 0.01, seed: 68 });
    ids = levels.huc12.map((f) => `huc12:${f.id}`).sort();
    // A name the basin table must quote: a comma, doubled quotes and a line end.
    const [first] = levels.huc12;
    levels.huc12[0] = { ...first!, properties: { ...first!.properties, name: HOSTILE } };
    quoted = `huc12:${first!.id}`;
    const file = join(dir, 'huc12.geojson');
    await writeFile(file, JSON.stringify({ type: 'FeatureCollection', features: levels.huc12 }));
    const db = join(dir, 'db');
    assert.equal((await snowdb(['init', db])).code, 0);
    const env = { SNOWDB_CONFIG: db };
    const r = await snowdb(['pourpoint', 'import', file, '--set', 'huc12'], { env });
    assert.equal(r.code, 0, r.stderr);
    ({ base, stop } = await serveApi(env));
    browser = await launchChromium();
  });
  after(async () => {
    await browser?.close();
    await stop?.();
    await cleanup?.();
  });

  const shapes = (page: Page): Promise<Shape[]> =>
    page.evaluate(
      `[...snowdb.map.shapes.values()].map((b) => ({ id: b.id, outlined: b.rings !== null, box: b.box }))`,
    );
  const viewBox = (page: Page): Promise<number[]> =>
    page.evaluate(`(() => {
      const m = snowdb.map.map, b = m.getBounds(), px = m.options.crs.scale(0);
      const nw = m.project(b.getNorthWest(), 0), se = m.project(b.getSouthEast(), 0);
      return [nw.x / px, nw.y / px, se.x / px, se.y / px];
    })()`);
  const meets = (a: number[], b: number[]) =>
    a[0]! <= b[2]! && a[2]! >= b[0]! && a[1]! <= b[3]! && a[3]! >= b[1]!;

  it('first paint: one request for every basin, no outline; each basin a square of its colour at its outflow point', async () => {
    const { page, problems, outside, release } = await openPage(browser, `${base}/app/`);
    assert.deepEqual(await requested(page), ['/pourpoints?f=csv']);
    const all = await shapes(page);
    assert.deepEqual(all.map((s) => s.id).sort(), ids);
    assert.ok(all.every((s) => !s.outlined));
    // Every basin's name as imported, the quoted one too (the page parses the CSV it asked for).
    const names = (await page.evaluate(
      '[...snowdb.map.shapes.values()].map((b) => [b.id, b.feature.properties.name])',
    )) as [string, string][];
    assert.equal(new Map(names).get(quoted), HOSTILE);
    assert.ok(names.every(([id, name]) => id === quoted || name === `HUC ${id.slice('huc12:'.length)}`));
    assert.equal(await page.textContent('#basins caption'), `${ids.length} of ${ids.length} basins`);
    // An outflow point's square (3 px) is painted in its class colour (no dataset: no data).
    const table = (await (await fetch(`${base}/pourpoints?f=csv`)).text()).trim().split('\r\n');
    const [lon, lat] = table.at(-1)!.split(',').slice(3, 5).map(Number) as [number, number]; // a plain name's row
    // Within 2 px of the point (the canvas sits at a fractional offset: a square's edges blend).
    const at = await screenPoint(page, lon, lat);
    const near: string[] = [];
    for (let dy = -2; dy <= 2; dy++)
      for (let dx = -2; dx <= 2; dx++) near.push(await paintedAt(page, { x: at.x + dx, y: at.y + dy }));
    assert.ok(near.includes(NO_DATA), near.join(' '));
    // Away from every outflow point (north of the box, 42°N): the land's colour only.
    assert.equal(await paintedAt(page, await screenPoint(page, lon, 42.3)), '#f4f1ea');
    // Search: the one basin named.
    const one = ids[1234]!;
    await page.fill('#search', `HUC ${one.slice('huc12:'.length)}`);
    assert.deepEqual(
      await page
        .locator('#basins tbody tr[data-triplet]')
        .evaluateAll((rows) =>
          rows.map((r) => (r as unknown as { dataset: { triplet: string } }).dataset.triplet),
        ),
      [one],
    );
    assert.deepEqual(problems, []);
    assert.deepEqual(outside, []);
    release();
  });

  it('zoomed in on a basin: the outlines of the basins in view, fine, by their boxes; no others', async () => {
    const { page, problems, outside, release } = await openPage(browser, `${base}/app/`);
    const one = ids[1234]!;
    await page.fill('#search', `HUC ${one.slice('huc12:'.length)}`);
    await page.keyboard.press('Enter');
    await page.waitForFunction(`new URL(location.href).searchParams.get('basin') === ${JSON.stringify(one)}`);
    await page.waitForFunction(
      (t) =>
        (globalThis as never as { snowdb: { map: { vertices(t: string): number } } }).snowdb.map.vertices(t) >
        0,
      one,
    );
    assert.ok(((await page.evaluate('snowdb.map.map.getZoom()')) as number) >= 8);
    const outlines = (await requested(page)).filter((r) => r.includes('geometry=basin'));
    assert.ok(
      outlines.length >= 1 && outlines.every((r) => /bbox_on=basin/.test(r) && /simplify=0\.002/.test(r)),
      outlines.join(' '),
    );
    // The chosen basin's outline is the API's, vertex for vertex (the map drops each closing vertex).
    const fc = (await (await fetch(`${base}${outlines.at(-1)}`)).json()) as {
      features: { id: string; geometry: { type: string; coordinates: number[][][] } }[];
    };
    const g = fc.features.find((f) => f.id === one)!.geometry;
    assert.equal(g.type, 'Polygon');
    assert.equal(
      await mappedVertices(page, one),
      g.coordinates.reduce((n, r) => n + r.length - 1, 0),
    );
    // Outlined: the basins whose boxes meet the view, and no other (an outline's own box may be a
    // hair inside its basin's: simplified, it keeps fewer of the original vertices).
    const view = await viewBox(page);
    const hair = 0.001 / 360; // 0.001° in unit coordinates
    const grown = [view[0]! - hair, view[1]! - hair, view[2]! + hair, view[3]! + hair];
    const now = await shapes(page);
    const outlined = now.filter((s) => s.outlined);
    assert.ok(outlined.length > 1 && outlined.length < ids.length / 10, `${outlined.length} outlined`);
    assert.deepEqual(
      outlined.filter((s) => !meets(s.box, grown)).map((s) => s.id),
      [],
    );
    assert.deepEqual(
      now.filter((s) => !s.outlined && meets(s.box, view)).map((s) => s.id),
      [],
    );
    assert.deepEqual(problems, []);
    assert.deepEqual(outside, []);
    release();
  });
});
