import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Browser } from 'playwright-core';
import { launchChromium, localOnly } from '../helpers/browser.js';
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
      const page = await browser.newPage();
      const outside = await localOnly(page);
      await page.goto(`${base}${path}`);
      const title = page.locator(selector).first();
      await title.waitFor({ timeout: 30_000 });
      assert.match(await title.innerText(), /snowdb API/);
      await page
        .locator(operation, { hasText: 'Stratified statistics of a basin over a date range' })
        .first()
        .waitFor({ timeout: 30_000 });
      assert.deepEqual(outside, []);
      await page.close();
    });
  }
});
