import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Browser } from 'playwright-core';
import { launchChromium, tab } from '../helpers/browser.js';
import { serveApi, snowdb, tempDir } from '../helpers/cli.js';

describe('API documentation pages render offline in headless Chromium', () => {
  let cleanup: () => Promise<void>;
  let stop: () => Promise<void>;
  let base: string;
  let browser: Browser;

  before(async () => {
    let dir: string;
    ({ dir, cleanup } = await tempDir());
    const db = join(dir, 'db');
    assert.equal((await snowdb(['init', db])).code, 0);
    ({ base, stop } = await serveApi({ SNOWDB_CONFIG: db }));
    browser = await launchChromium();
  });
  after(async () => {
    await browser?.close();
    await stop();
    await cleanup();
  });

  for (const [path, selector, operation] of [
    ['/docs', '.swagger-ui .info .title', '.opblock-summary-description'],
    ['/redoc', 'h1', 'h2'],
  ] as const) {
    it(`${path} shows our title and the stats operations, with no request leaving 127.0.0.1`, async () => {
      const { page, outside, release } = await tab(browser);
      await page.goto(`${base}${path}`);
      const title = page.locator(selector).first();
      await title.waitFor({ timeout: 30_000 });
      assert.match(await title.innerText(), /snowdb API/);
      const op = page
        .locator(operation, { hasText: 'Stratified statistics of a basin over a date range' })
        .first();
      await op.waitFor({ timeout: 30_000 });
      // Placeholders in angle brackets are shown, not eaten as HTML; parameters and bodies have examples.
      if (path === '/docs') await op.click();
      const triplet = page.getByText('<station>:<state>:<network>').first();
      await triplet.waitFor({ timeout: 30_000 });
      assert.match(await triplet.innerText(), /<station>:<state>:<network>/);
      const text = await page.locator('body').innerText();
      assert.match(text, /terrain\.elevation:band_step_ft=500/, 'the zone parameter has an example');
      assert.match(text, /NORTHCK:UT:DEMO/, 'the stats response has an example');
      assert.doesNotMatch(text, /station triplet ::/);
      assert.deepEqual(outside, []);
      release();
    });
  }
});
