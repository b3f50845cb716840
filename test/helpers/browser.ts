import { type Browser, type BrowserContext, chromium, type Page } from 'playwright-core';

/**
 * Debian's Chromium, headless, with a fresh profile (playwright makes a temporary one). Nothing
 * can leave 127.0.0.1: every other host goes to a proxy on a closed loopback port (loopback itself
 * bypasses proxies) and no other name resolves. This blocks in the network stack, not by
 * intercepting each request (playwright's `route` cost ~40 % more CPU a page load, measured).
 */
export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: '/usr/bin/chromium',
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-background-networking',
      '--disable-component-update',
      '--no-first-run',
      '--disable-sync',
      '--disable-quic',
      '--proxy-server=http://127.0.0.1:9',
      '--host-resolver-rules=MAP * ~NOTFOUND , EXCLUDE 127.0.0.1',
    ],
  });
}

/**
 * Every request of `page` for a place other than 127.0.0.1 (data: and blob: stay local), as the
 * page makes it; launchChromium's browser lets none of them out. Returns the list, filled as the
 * page runs.
 */
export function localOnly(page: Page): string[] {
  const outside: string[] = [];
  page.on('request', (r) => {
    const url = new URL(r.url());
    if (url.hostname !== '127.0.0.1' && url.protocol !== 'data:' && url.protocol !== 'blob:')
      outside.push(url.href);
  });
  return outside;
}

/** A browser tab lent to one test, with what its pages did wrong since it was lent. */
export interface Tab {
  readonly page: Page;
  /** Console errors and warnings, uncaught page errors, failed requests (other than aborted ones). */
  readonly problems: string[];
  /** Requests for places other than 127.0.0.1 (localOnly). */
  readonly outside: string[];
  /** Give the tab back: the next `tab()` of this browser navigates it instead of opening another. */
  release(): void;
}

interface Tabs {
  readonly context: Promise<BrowserContext>;
  readonly idle: Tab[];
}

/**
 * One browser context per browser, and its tabs reused from test to test: a new tab costs
 * Chromium ~1.6 CPU-s more than navigating an open one (a WebContents in the browser process and
 * two renderer processes, the first for about:blank, measured in BENCHMARKS.md); a navigation
 * leaves nothing of the last page but the context's (empty) cookies and storage.
 */
const pools = new WeakMap<Browser, Tabs>();

/** A tab of `browser` for one test (an idle one, else a new one), its lists emptied. */
export async function tab(browser: Browser): Promise<Tab> {
  const pool = pools.get(browser) ?? { context: browser.newContext({ acceptDownloads: true }), idle: [] };
  pools.set(browser, pool);
  const idle = pool.idle.pop();
  if (idle !== undefined) {
    idle.problems.length = 0;
    idle.outside.length = 0;
    return idle;
  }
  const page = await (await pool.context).newPage();
  const problems: string[] = [];
  page.on('console', (m) => {
    if (m.type() === 'error' || m.type() === 'warning') problems.push(`${m.type()}: ${m.text()}`);
  });
  page.on('pageerror', (e) => problems.push(`pageerror: ${e.message}`));
  // A request cut off by leaving the page (or by the page's own AbortController) is not a fault:
  // net::ERR_ABORTED; anything else (refused, reset, DNS) is.
  page.on('requestfailed', (r) => {
    const why = r.failure()?.errorText ?? 'unknown';
    if (why !== 'net::ERR_ABORTED') problems.push(`failed: ${r.url()} (${why})`);
  });
  const lent: Tab = { page, problems, outside: localOnly(page), release: () => pool.idle.push(lent) };
  return lent;
}
