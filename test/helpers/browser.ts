import { type Browser, chromium, type Page } from 'playwright-core';

/** Debian's Chromium, headless, with a fresh profile (playwright makes a temporary one). */
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
    ],
  });
}

/** Abort every request that leaves 127.0.0.1 (data: and blob: stay local); returns the list of them. */
export async function localOnly(page: Page): Promise<string[]> {
  const outside: string[] = [];
  await page.route('**/*', (route) => {
    const url = new URL(route.request().url());
    if (url.hostname === '127.0.0.1' || url.protocol === 'data:' || url.protocol === 'blob:')
      return route.continue();
    outside.push(url.href);
    return route.abort();
  });
  return outside;
}
