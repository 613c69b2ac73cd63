import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect } from 'vitest';

interface DOMRectJSON {
  left: number;
  right: number;
  width: number;
}
import { runCli } from '../helpers/cli.js';
import { itWithBrowser, useBrowser } from '../helpers/browser.js';
import { hasProgram } from '../helpers/programs.js';
import { tempDir, until } from './helpers.js';
import { forwardTarget, runUi, type Running } from './ui-helpers.js';

// The inspector's items of issue 36 in a real browser, beside a real serve-hooks (serve-hooks --ui)
// receiving real notifications (hooks trigger): what Copy as curl copies, template events' person
// (channel_id) shown, masked and found, the list's columns beside the detail, and --open.

const browser = useBrowser();
const log = join(tempDir('callctl-ui-'), 'events.ndjson');
let target: Awaited<ReturnType<typeof forwardTarget>>;
let run: Running;

beforeAll(async () => {
  target = await forwardTarget();
  run = await runUi([
    'serve-hooks',
    '--port',
    '0',
    '--key',
    'k1',
    '--log',
    log,
    '--forward-to',
    target.url,
    '--ui',
    '--ui-port',
    '0',
  ]);
});
afterAll(async () => {
  run?.child.kill('SIGTERM');
  await target?.close();
});

const trigger = (type: string, ...extra: string[]) =>
  runCli(['hooks', 'trigger', type, '--url', `${run.hooks}/`, '--key', 'k1', ...extra]);
/** The newest event's id (of a type). */
const newest = async (...filter: string[]) =>
  JSON.parse((await runCli(['hooks', 'events', '--log', log, '--json', '--limit', '1', ...filter])).out).id as string;
const opened = async (path = '', width = 1300) => {
  const page = await browser.page({ width, height: 900 });
  const errors: string[] = [];
  page.on('pageerror', (e) => errors.push(e.message));
  await page.goto(`${run.ui.replace(/\/$/, '')}/${path}`);
  await page.waitForSelector('#live:text("live")');
  return { page, errors };
};
const text = async (page: Page, sel: string) => ((await page.textContent(sel)) ?? '').trim();

describe('the inspector (issue 36)', () => {
  itWithBrowser('Copy as curl posts the body as recorded; the screen keeps the number masked', async () => {
    expect((await trigger('workflow.api_push')).code).toBe(0);
    const id = await newest('--type', 'workflow.api_push');
    const recorded = JSON.parse((await runCli(['hooks', 'show', id, '--log', log, '--json', '--show-numbers'])).out);
    const number = recorded.ids.callee as string;
    const { page, errors } = await opened(`?event=${id}`);
    await page.context().grantPermissions(['clipboard-read', 'clipboard-write'], { origin: new URL(run.ui).origin });
    await page.waitForSelector('#detail h2');
    expect(await text(page, '#curl')).not.toContain(number);
    await page.click('#copy-curl');
    await page.waitForSelector('#send-note:text("copied")');
    const copied = await page.evaluate<string>('navigator.clipboard.readText()');
    expect(copied).toContain(`--data-binary '${recorded.body}'`);
    expect(copied).toContain(number);
    // The screen is as it was: the number masked.
    expect(await text(page, '#detail')).not.toContain(number);
    expect(await page.getAttribute('#copy-curl', 'title')).toMatch(/exactly as recorded/);
    expect(errors).toEqual([]);
  });

  itWithBrowser(
    "a template status's person is its channel_id: shown in the list, masked until revealed, found by --callee",
    async () => {
      const channelId = '+15005550002';
      expect((await trigger('template.status', '--set', `channel_id=${channelId}`, '--set', 'callee=U-77')).code).toBe(
        0,
      );
      const id = await newest('--type', 'template.status');
      // hooks events --callee finds it, however the number is spelled; the line names it, masked.
      for (const spelling of [channelId, '+1 500-555-0002', '001 500 555 0002']) {
        const found = await runCli(['hooks', 'events', '--log', log, '--callee', spelling, '--json']);
        expect(found.code, found.err).toBe(0);
        expect(
          found.out
            .trim()
            .split('\n')
            .map((l) => JSON.parse(l).id),
          spelling,
        ).toContain(id);
      }
      const line = JSON.parse((await runCli(['hooks', 'events', '--log', log, '--callee', channelId, '--json'])).out);
      expect(line.callee).toBe('+15*****0002');
      // hooks show: masked in its ids and its body, unless --show-numbers.
      for (const json of [['--json'], []]) {
        const hidden = await runCli(['hooks', 'show', id, '--log', log, ...json]);
        expect(hidden.out).not.toContain(channelId);
        expect(hidden.out).toContain('+15*****0002');
        const full = await runCli(['hooks', 'show', id, '--log', log, '--show-numbers', ...json]);
        expect(full.out).toContain(channelId);
      }
      // The page: the list's callee column and the detail (ids, pretty and raw body) masked.
      const { page, errors } = await opened(`?callee=${encodeURIComponent(channelId)}&event=${id}`);
      await page.waitForSelector(`#list tr[data-id="${id}"]`);
      await page.waitForSelector('#detail h2');
      expect(await text(page, `#list tr[data-id="${id}"] td.callee`)).toBe('+15*****0002');
      await page.click('#detail summary:text("raw")');
      expect(await text(page, '#app')).not.toContain(channelId);
      expect(await text(page, '#body-raw')).toContain('"channel_id":"+15*****0002"');
      await page.check('#reveal');
      await expect.poll(() => text(page, '#detail')).toContain(channelId);
      expect(await text(page, `#list tr[data-id="${id}"] td.callee`)).toBe(channelId);
      expect(errors).toEqual([]);
    },
  );

  for (const width of [1400, 1024])
    itWithBrowser(`every column of the list stays on the screen beside the detail, at ${width} px`, async () => {
      expect((await trigger('workflow.api_push')).code).toBe(0);
      const id = await newest();
      const { page } = await opened(`?event=${id}`, width);
      await page.waitForSelector('#detail h2');
      await page.waitForSelector(`#list tr[data-id="${id}"]`);
      const box = (sel: string) => page.$eval(sel, (e) => e.getBoundingClientRect().toJSON() as DOMRectJSON);
      const list = await box('section.list');
      const detail = await box('#detail');
      const heads = await page.$$eval('#list thead th', (ths) =>
        ths.map((th) => ({ name: th.textContent, ...(th.getBoundingClientRect().toJSON() as DOMRectJSON) })),
      );
      expect(heads.map((h) => h.name)).toContain('verdict');
      for (const h of heads) {
        // Inside the list's own box (not scrolled away under the detail), and left of the detail.
        expect(h.left, `${h.name} at ${width} px`).toBeGreaterThanOrEqual(list.left - 0.5);
        expect(h.right, `${h.name} at ${width} px`).toBeLessThanOrEqual(Math.min(list.right, detail.left) + 0.5);
        expect(h.width, `${h.name} at ${width} px`).toBeGreaterThan(0);
      }
      expect(await page.$eval('section.list', (e) => e.scrollWidth - e.clientWidth)).toBeLessThanOrEqual(0);
    });
});

describe('--open', () => {
  itWithBrowser(
    'without a display, or when the opener fails: one line with the address, which opens by hand',
    async () => {
      const cases: Array<[Record<string, string>, RegExp]> = [
        [
          { DISPLAY: '', WAYLAND_DISPLAY: '' },
          /no display to open a browser on \(DISPLAY and WAYLAND_DISPLAY are unset\)/,
        ],
        // A display named, but no browser starts there: xdg-open fails, and says so (or, where
        // xdg-open is not installed, that it could not be started).
        [
          { DISPLAY: ':99', WAYLAND_DISPLAY: '', BROWSER: 'false' },
          hasProgram('xdg-open')
            ? /xdg-open could not open a browser \(exit \d+\)/
            : /could not start xdg-open \(ENOENT\)/,
        ],
      ];
      for (const [env, why] of cases) {
        const ui = await runUi(['hooks', 'ui', '--log', log, '--port', '0', '--open'], env);
        try {
          await until(() => /--open: /.test(ui.err()), 10_000);
          const lines = ui
            .err()
            .split('\n')
            .filter((l) => l.includes('--open: '));
          expect(lines).toHaveLength(1);
          expect(lines[0]).toMatch(why);
          expect(lines[0]).toContain(`open ${ui.ui} in a browser by hand`);
          const { page } = await (async () => {
            const p = await browser.page();
            await p.goto(ui.ui);
            return { page: p };
          })();
          await page.waitForSelector('#live:text("live")');
        } finally {
          ui.child.kill('SIGTERM');
        }
      }
    },
  );
});
