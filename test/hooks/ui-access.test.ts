import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterEach, describe, expect, it } from 'vitest';
import { itWithBrowser, useBrowser } from '../helpers/browser.js';
import { post, tempDir } from './helpers.js';
import { runUi, type Running } from './ui-helpers.js';

// The inspector's token and its cookie: the address callctl prints always opens the page, whatever
// a browser kept from an earlier start (the token changes every start) or from another inspector
// on the same host (cookies are not kept apart by port).

const browser = useBrowser();
const log = join(tempDir('callctl-ui-access-'), 'events.ndjson');
writeFileSync(log, '');
const running: Running[] = [];
afterEach(() => {
  for (const r of running.splice(0)) r.child.kill('SIGTERM');
});

/** `hooks ui` on every address (so with a token of its own), on `port`; its printed address, reached on loopback. */
async function inspector(port = 0): Promise<{ address: string; base: string; token: string; run: Running }> {
  const run = await runUi(['hooks', 'ui', '--log', log, '--host', '0.0.0.0', '--port', String(port)]);
  running.push(run);
  const printed = new URL(run.ui);
  const base = `http://127.0.0.1:${printed.port}/`;
  const token = printed.searchParams.get('token')!;
  return { address: `${base}?token=${token}`, base, token, run };
}

const stop = async (r: Running) => {
  const exited = new Promise((resolve) => r.child.once('exit', resolve));
  r.child.kill('SIGTERM');
  await exited;
};

const get = (url: string, headers: Record<string, string> = {}) => post(url, '', headers, 'GET');

/** Opens `url` in `page` and waits for the list to be live (its first read answered). */
async function opens(page: Page, url: string): Promise<number> {
  const answer = await page.goto(url);
  if (answer?.status() !== 200) return answer?.status() ?? 0;
  await page.waitForSelector('#live:text("live")');
  return 200;
}

describe('the address printed always opens the inspector', () => {
  it('a correct ?token= wins over a stale cookie and replaces it; a wrong one is refused', async () => {
    const first = await inspector();
    const stale = String((await get(first.address)).headers['set-cookie']).split(';')[0]!;
    await stop(first.run);
    const again = await inspector(Number(new URL(first.base).port));
    expect(again.token).not.toBe(first.token);
    // The browser still sends the cookie of the earlier start with the new address.
    const opened = await get(again.address, { cookie: stale });
    expect(opened.status).toBe(303);
    const fresh = String(opened.headers['set-cookie']);
    expect(fresh).toMatch(new RegExp(`^callctl_inspector_${new URL(again.base).port}=${again.token}; HttpOnly`));
    expect((await get(again.base, { cookie: fresh.split(';')[0]! })).status).toBe(200);
    expect((await get(again.base, { cookie: stale })).status).toBe(401);
    expect((await get(`${again.base}?token=${first.token}`, { cookie: fresh.split(';')[0]! })).status).toBe(401);
  });

  itWithBrowser(
    'in Chromium: a restart on the same port, and two inspectors on one host, each open and stay open',
    async () => {
      const page = await browser.page();
      const first = await inspector();
      expect(await opens(page, first.address)).toBe(200);
      await stop(first.run);
      // The same port, a new token: the browser holds the old one's cookie.
      const again = await inspector(Number(new URL(first.base).port));
      expect(await opens(page, again.address)).toBe(200);
      // Another inspector on this host, opened in the same browser: the first keeps working.
      const other = await inspector();
      expect(await opens(page, other.address)).toBe(200);
      expect(await opens(page, again.base)).toBe(200);
      expect(await opens(page, other.base)).toBe(200);
    },
  );
});
