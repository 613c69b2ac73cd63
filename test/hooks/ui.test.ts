import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { freshDatabase } from '../helpers/postgres.js';
import { itWithBrowser, screenshot, useBrowser } from '../helpers/browser.js';
import { post, tempDir, until } from './helpers.js';
import { forwardTarget, runUi, type Running } from './ui-helpers.js';

// The inspector in a real browser, beside a real serve-hooks (serve-hooks --ui) that receives
// real signed notifications (hooks trigger), forwarding to a real listener.

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

const trigger = async (type: string, ...extra: string[]) => {
  const r = await runCli(['hooks', 'trigger', type, '--url', `${run.hooks}/`, '--key', 'k1', ...extra]);
  return r;
};
// What the functions run in the page use of it (the page forbids eval, so they are functions, not strings).
declare const document: {
  querySelectorAll(selector: string): { length: number };
  querySelector(selector: string): { textContent: string | null } | null;
};
declare const location: { search: string };
const rows = (page: Page, atLeast: number, timeout = 5_000) =>
  page.waitForFunction((n) => document.querySelectorAll('#list tbody tr').length >= n, atLeast, { timeout });
const ids = (page: Page) => page.$$eval('#list tbody tr', (trs) => trs.map((tr) => tr.getAttribute('data-id')));
const opened = async (path = '') => {
  const page = await browser.page({ width: 1300, height: 900 });
  const errors: string[] = [];
  page.on('pageerror', (e) => errors.push(e.message));
  await page.goto(`${run.ui.replace(/\/$/, '')}/${path}`);
  await page.waitForSelector('#live:text("live")');
  return { page, errors };
};
const shown = async (page: Page, sel: string) => ((await page.textContent(sel)) ?? '').trim();

describe('serve-hooks --ui: the inspector beside the receiver', () => {
  itWithBrowser('the list fills live as signed notifications arrive, newest first', async () => {
    const { page, errors } = await opened();
    const before = await ids(page);
    for (const type of ['task.end', 'plan.end', 'workflow.api_push']) expect((await trigger(type)).code).toBe(0);
    await rows(page, before.length + 3, 10_000);
    const now = (await ids(page)).map(Number);
    expect(now).toEqual([...now].sort((a, b) => b - a));
    expect(
      await page.$$eval('#list tbody tr td:nth-child(3)', (tds) => tds.slice(0, 3).map((t) => t.textContent)),
    ).toEqual(['workflow.api_push', 'plan.end', 'task.end']);
    expect(errors).toEqual([]);
  });

  itWithBrowser('filters are kept in the address: a link opens the same list, and Clear shows all again', async () => {
    expect((await trigger('task.end', '--tamper', 'sign')).code).toBe(1);
    const { page } = await opened();
    await page.selectOption('select[name="verdict"]', 'rejected');
    await page.click('button[type="submit"]');
    await page.waitForFunction(() => location.search.includes('verdict=rejected'));
    // The address changes before the list is read again: the filtered rows come a moment later.
    await expect
      .poll(() => page.$$eval('#list tbody tr td:nth-child(8)', (tds) => [...new Set(tds.map((t) => t.textContent))]))
      .toEqual(['rejected']);
    const link = page.url();
    const { page: other } = await opened(link.slice(link.indexOf('?')));
    await rows(other, 1);
    expect(await ids(other)).toEqual(await ids(page));
    expect(await other.inputValue('select[name="verdict"]')).toBe('rejected');
    const cli = await runCli(['hooks', 'events', '--log', log, '--verdict', 'rejected', '--json']);
    expect((await ids(other)).reverse()).toEqual(
      cli.out
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l).id),
    );
    await other.click('#clear');
    await other.waitForFunction(() => !location.search.includes('verdict'));
    await rows(other, 2);
  });

  itWithBrowser('the detail view shows what hooks show shows; callee numbers masked until revealed', async () => {
    expect((await trigger('workflow.api_push')).code).toBe(0);
    const cli = await runCli([
      'hooks',
      'events',
      '--log',
      log,
      '--type',
      'workflow.api_push',
      '--json',
      '--limit',
      '1',
    ]);
    const id = JSON.parse(cli.out).id as string;
    const { page } = await opened();
    await page.click(`#list a[data-id="${id}"]`);
    await page.waitForSelector('#detail h2');
    await screenshot(page, 'inspector');
    expect(page.url()).toContain(`event=${id}`);
    const show = JSON.parse((await runCli(['hooks', 'show', id, '--log', log, '--json'])).out);
    const facts = await page.$$eval('#detail dl dt', (dts) =>
      Object.fromEntries(dts.map((dt) => [dt.textContent, dt.nextElementSibling?.textContent])),
    );
    expect(facts).toMatchObject({
      time: show.time,
      type: show.type,
      verdict: show.verdict,
      identity: show.key,
      'http status': String(show.status),
      callee: show.ids.callee,
      arrivals: String(show.arrivals || 1),
    });
    expect(show.ids.callee).toMatch(/\*{4}/);
    const headers = await page.$$eval('#detail table.headers tr', (trs) =>
      Object.fromEntries(trs.map((tr) => [tr.querySelector('th')?.textContent, tr.querySelector('td')?.textContent])),
    );
    expect(headers).toEqual(show.headers);
    await page.click('#detail summary:text("raw")');
    expect(await shown(page, '#body-raw')).toBe(show.body);
    expect(await shown(page, '#body-pretty')).toBe(JSON.stringify(JSON.parse(show.body), null, 2));
    // Revealed: the number in full, as hooks show --show-numbers gives it.
    const full = JSON.parse((await runCli(['hooks', 'show', id, '--log', log, '--json', '--show-numbers'])).out);
    await page.check('#reveal');
    await expect.poll(() => page.textContent('#detail')).toContain(full.ids.callee);
    expect(await shown(page, `#list tr[data-id="${id}"] td.callee`)).toBe(full.ids.callee);
  });

  itWithBrowser('send again reaches the forward target once, with the same bytes', async () => {
    expect((await trigger('task.end', '--set', 'TaskName=sent again')).code).toBe(0);
    const cli = await runCli(['hooks', 'events', '--log', log, '--json', '--limit', '1']);
    const id = JSON.parse(cli.out).id as string;
    const body = JSON.parse((await runCli(['hooks', 'show', id, '--log', log, '--json', '--show-numbers'])).out).body;
    await until(() => target.bodies.filter((b) => b === body).length === 1);
    const { page } = await opened(`?event=${id}`);
    await page.waitForSelector('#send:not([disabled])');
    await page.click('#send');
    await page.waitForSelector('#send-note:text("sent: the target answered 200")');
    await new Promise((r) => setTimeout(r, 300));
    expect(target.bodies.filter((b) => b === body)).toHaveLength(2);
  });

  itWithBrowser(
    'bodies carrying <script>, <img onerror> and javascript: links are shown as text and do nothing',
    async () => {
      const hostile = [
        ['TaskName=<script>window.__ran=1</script>', 'PlanName=<img src=x onerror="window.__ran=2">'],
        ['TaskName=<a href="javascript:window.__ran=3">pay</a>', 'PlanName=javascript:window.__ran=4'],
      ];
      for (const sets of hostile)
        expect((await trigger('task.end', ...sets.flatMap((s) => ['--set', s]))).code).toBe(0);
      const refused = await fetch(`${run.hooks}/`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: '<script>window.__ran=5</script><img src=x onerror="window.__ran=6">',
      });
      expect(refused.status).toBe(400);
      const { page, errors } = await opened();
      await rows(page, 3);
      const top = await ids(page);
      for (const id of top.slice(0, 3)) {
        await page.click(`#list a[data-id="${id}"]`);
        await page.waitForSelector(`#detail h2:text("Event #${id}")`);
        await page.click('#detail summary:text("raw")');
      }
      expect(await page.evaluate<unknown>('window.__ran')).toBeUndefined();
      expect(await page.$$('#app script, #app img, #app a[href^="javascript"]')).toHaveLength(0);
      expect(await page.textContent('#list')).toContain('<img src=x onerror="window.__ran=2">');
      expect(errors).toEqual([]);
    },
  );

  itWithBrowser('keyboard alone reaches every control', async () => {
    const id = JSON.parse((await runCli(['hooks', 'events', '--log', log, '--json', '--limit', '1'])).out).id;
    const { page } = await opened(`?event=${id}`);
    await page.waitForSelector('#detail h2');
    // Every control gets a name, then the ones a person can use now are the ones to reach.
    await page.evaluate<void>(
      "document.querySelectorAll('#app button, #app input, #app select, #app a[href], #app summary').forEach((e, i) => e.setAttribute('data-k', e.id || e.tagName + ':' + (e.getAttribute('name') ?? e.textContent) + ':' + i))",
    );
    const wanted = await page.$$eval(
      '#app button:not([disabled]):not([hidden]), #app input, #app select, #app a[href], #app summary',
      (els) => els.map((e) => e.getAttribute('data-k')!),
    );
    const reached = new Set<string>();
    // Scrolling boxes (the bodies) take a stop of their own too.
    for (let i = 0; i < wanted.length * 2 + 10; i++) {
      await page.keyboard.press('Tab');
      reached.add(await page.evaluate<string>("document.activeElement?.getAttribute('data-k') ?? ''"));
    }
    expect(wanted.filter((w) => !reached.has(w))).toEqual([]);
    // And a link followed from the keyboard opens its event.
    await page.focus('#list a[data-id]');
    await page.keyboard.press('Enter');
    await page.waitForSelector('#detail h2');
  });

  itWithBrowser('export: the filtered list as hooks events --format csv gives it', async () => {
    const { page } = await opened('?type=task.end');
    await rows(page, 1);
    const href = await page.getAttribute('#export-csv', 'href');
    const csv = await (await page.request.get(new URL(href!, page.url()).href)).text();
    const cli = await runCli(['hooks', 'events', '--log', log, '--type', 'task.end', '--format', 'csv']);
    expect(csv).toBe(cli.out);
    const nd = await (
      await page.request.get(new URL((await page.getAttribute('#export-ndjson', 'href'))!, page.url()).href)
    ).text();
    expect(nd).toBe((await runCli(['hooks', 'events', '--log', log, '--type', 'task.end', '--json'])).out);
  });
});

describe('safe by default', () => {
  const get = (url: string, headers: Record<string, string> = {}) => post(url, '', headers, 'GET');

  it('on loopback: answers only under a loopback host name; a POST needs the page CSRF token', async () => {
    expect((await trigger('task.end')).code).toBe(0);
    expect((await get(`${run.ui}api/events`)).status).toBe(200);
    const rebound = await get(`${run.ui}api/events`, { host: 'attacker.example' });
    expect(rebound.status).toBe(403);
    const page = await get(run.ui);
    expect(page.headers['content-security-policy']).toContain("script-src 'self'");
    const csrf = /name="csrf-token" content="([^"]+)"/.exec(page.body)![1]!;
    const id = JSON.parse((await get(`${run.ui}api/events?limit=1`)).body).events[0].id;
    const send = (headers: Record<string, string>) =>
      post(`${run.ui}api/events/${id}/send`, '{}', { 'content-type': 'application/json', ...headers });
    expect((await send({})).status).toBe(403);
    expect((await send({ 'x-csrf-token': 'nope' })).status).toBe(403);
    expect((await send({ 'x-csrf-token': csrf, origin: 'http://attacker.example' })).status).toBe(403);
    expect([200, 422]).toContain((await send({ 'x-csrf-token': csrf })).status);
  });

  it('elsewhere: a token made at random, printed once in the address, carried by every request', async () => {
    const other = await runUi(['hooks', 'ui', '--log', log, '--host', '0.0.0.0', '--port', '0']);
    try {
      const printed = new URL(other.ui);
      const token = printed.searchParams.get('token')!;
      expect(token.length).toBeGreaterThanOrEqual(32);
      await until(() => other.err().includes('printed only now'));
      const base = `http://127.0.0.1:${printed.port}/`;
      expect((await get(base)).status).toBe(401);
      expect((await get(`${base}api/events`)).status).toBe(401);
      expect((await get(`${base}inspector.js`)).status).toBe(401);
      expect((await get(`${base}api/events`, { authorization: 'Bearer wrong-token-of-the-same-size-x' })).status).toBe(
        401,
      );
      expect((await get(`${base}api/events`, { authorization: `Bearer ${token}` })).status).toBe(200);
      const first = await get(`${base}?token=${token}`);
      expect(first.status).toBe(303);
      expect(first.headers.location).toBe('/');
      const cookie = String(first.headers['set-cookie']).split(';')[0]!;
      expect(String(first.headers['set-cookie'])).toMatch(/HttpOnly; SameSite=Strict/);
      expect((await get(base, { cookie })).status).toBe(200);
      expect((await get(`${base}api/events`, { cookie })).status).toBe(200);
    } finally {
      other.child.kill('SIGTERM');
    }
  });

  it('serve-hooks --ui elsewhere prints its address with the token, once, on stderr', async () => {
    const other = await runUi([
      'serve-hooks',
      '--port',
      '0',
      '--key',
      'k1',
      '--log',
      join(tempDir('callctl-ui-'), 'e.ndjson'),
      '--ui',
      '--ui-host',
      '0.0.0.0',
      '--ui-port',
      '0',
    ]);
    try {
      const printed = new URL(other.ui);
      const token = printed.searchParams.get('token')!;
      expect(token).toMatch(/^[\w-]{32}$/);
      const base = `http://127.0.0.1:${printed.port}/`;
      expect((await get(`${base}api/events`)).status).toBe(401);
      expect((await get(`${base}api/events`, { authorization: `Bearer ${token}` })).status).toBe(200);
      expect(other.err().match(new RegExp(token, 'g'))).toHaveLength(1);
    } finally {
      other.child.kill('SIGTERM');
    }
  });

  it('--token-file: the token comes from the file and is not printed', async () => {
    const file = join(tempDir('callctl-ui-'), 'token');
    writeFileSync(file, 'a-token-from-a-file-0123456789\n');
    const other = await runUi(['hooks', 'ui', '--log', log, '--port', '0', '--token-file', file]);
    try {
      expect(other.ui).not.toContain('a-token-from-a-file');
      expect(other.out() + other.err()).not.toContain('a-token-from-a-file');
      expect((await get(`${other.ui}api/events`)).status).toBe(401);
      expect(
        (await get(`${other.ui}api/events`, { authorization: 'Bearer a-token-from-a-file-0123456789' })).status,
      ).toBe(200);
    } finally {
      other.child.kill('SIGTERM');
    }
  });
});

describe('hooks ui over the shared PostgreSQL store', () => {
  it('lists what serve-hooks stored, newest first, and the live stream tells of each new event', async () => {
    const store = await freshDatabase('ui');
    const hooks = await runUi(['serve-hooks', '--port', '0', '--key', 'k1', '--ui', '--ui-port', '0'], {
      CALLCTL_STORE: store,
    });
    const ui = await runUi(['hooks', 'ui', '--port', '0'], { CALLCTL_STORE: store });
    try {
      for (const type of ['task.end', 'plan.end'])
        expect((await runCli(['hooks', 'trigger', type, '--url', `${hooks.hooks}/`, '--key', 'k1'])).code).toBe(0);
      for (const base of [ui.ui, hooks.ui]) {
        const page = JSON.parse((await post(`${base}api/events`, '', {}, 'GET')).body);
        expect(page.events.map((e: { type: string }) => e.type)).toEqual(['plan.end', 'task.end']);
        expect(page.newest).toBe(page.events[0].id);
      }
      // The live stream: its first message says where the store is, the next one the new event.
      const messages: string[] = [];
      const stream = await fetch(`${ui.ui}api/stream`);
      const reader = stream.body!.getReader();
      const read = (async () => {
        for (;;) {
          const { value, done } = await reader.read();
          if (done) return;
          messages.push(
            ...(Buffer.from(value)
              .toString()
              .match(/^data: .*$/gm) ?? []),
          );
        }
      })();
      await until(() => messages.length === 1);
      expect((await runCli(['hooks', 'trigger', 'task.end', '--url', `${hooks.hooks}/`, '--key', 'k1'])).code).toBe(0);
      await until(() => messages.length >= 2, 10_000);
      const newest = JSON.parse(messages.at(-1)!.slice(6)).newest;
      const after = JSON.parse(
        (await post(`${ui.ui}api/events?after=${JSON.parse(messages[0]!.slice(6)).newest}`, '', {}, 'GET')).body,
      );
      expect(after.events.map((e: { id: string }) => e.id)).toEqual([newest]);
      await reader.cancel();
      await read.catch(() => undefined);
    } finally {
      ui.child.kill('SIGTERM');
      hooks.child.kill('SIGTERM');
    }
  });
});
