/**
 * A real browser for the page tests: Debian's `chromium` (/usr/bin/chromium, installed by .ci/run),
 * driven by playwright-core, which downloads no browser of its own. Without it the tests skip with a
 * line naming the package, and fail with CI=true (itWith).
 */
import { fileURLToPath } from 'node:url';
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll } from 'vitest';
import { itWith } from './programs.js';

const EXECUTABLE = '/usr/bin/chromium';

/**
 * The flags that work here as root (the machine's notes): no sandbox without user namespaces, no
 * GPU, and none of Chromium's own calls out (this machine's network is closed; they fail, many at
 * a time). playwright-core adds --headless and a fresh profile folder of its own.
 */
const FLAGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

export interface BrowserFixture {
  /** A new page in a context of its own (no cookies or storage shared with another test). */
  page(options?: { width?: number; height?: number }): Promise<Page>;
}

/** One browser for the test file: started at its first page, closed after the file. */
export function useBrowser(): BrowserFixture {
  let browser: Promise<Browser> | undefined;
  afterAll(async () => {
    if (browser) await (await browser).close();
  });
  return {
    async page(options = {}) {
      browser ??= chromium.launch({ executablePath: EXECUTABLE, headless: true, chromiumSandbox: false, args: FLAGS });
      const context = await (
        await browser
      ).newContext({ viewport: { width: options.width ?? 1200, height: options.height ?? 800 } });
      return context.newPage();
    },
  };
}

/** `it` for a test that needs Chromium: skipped with a line naming the package when it is missing. */
export function itWithBrowser(title: string, fn: () => unknown | Promise<unknown>, timeout = 60_000): void {
  itWith('chromium', title, fn, timeout);
}

/**
 * With UPDATE_SCREENSHOTS=1 (`npm run screenshots`), writes the page as docs/NAME.png, the
 * README's pictures; otherwise nothing.
 */
export async function screenshot(page: Page, name: string): Promise<void> {
  if (!process.env.UPDATE_SCREENSHOTS) return;
  await page.screenshot({ path: fileURLToPath(new URL(`../../docs/${name}.png`, import.meta.url)) });
}
