import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { itWithBrowser, screenshot, useBrowser } from '../helpers/browser.js';
import { useSandbox } from '../helpers/sandbox.js';
import { tempDir } from '../helpers/temp.js';
import { fixtureServer } from './fixture-server.js';
import type { CallNumbers, PlanReportJson } from '../../src/schemas/report-output.js';

type Numbers = CallNumbers & Partial<Pick<PlanReportJson, 'rounds'>>;

const fx = useSandbox();
const browser = useBrowser();

const percent = (share: number | null) => (share === null ? '-' : `${(share * 100).toFixed(1)}%`);
type Share = { value: string; count: number; share: number | null };

/** A report's --json and its page, written with -o into a folder of the test's. */
async function both(argv: string[], env: Record<string, string> = fx.env) {
  const json = await runCli([...argv, '--json'], { env });
  expect(json.code, json.err).toBe(0);
  const file = join(tempDir('callctl-report-'), 'report.html');
  const page = await runCli([...argv, '--format', 'html', '-o', file], { env });
  expect(page.code, page.err).toBe(0);
  expect(page.out).toBe('');
  expect(page.err).toContain(`wrote ${file}`);
  return { n: JSON.parse(json.out) as Numbers, file };
}

/** Opens a page file, recording every request other than the file itself. */
async function open(file: string, options: { width?: number } = {}): Promise<{ page: Page; requests: string[] }> {
  const page = await browser.page(options);
  const url = pathToFileURL(file).href;
  const requests: string[] = [];
  page.on('request', (r) => {
    if (r.url() !== url) requests.push(r.url());
  });
  await page.goto(url);
  return { page, requests };
}

/** The rows of the table for a --json key: each row's cells as text. */
const rows = (page: Page, section: string) =>
  page.$$eval(`table[data-section="${section}"] tbody tr`, (trs) =>
    trs.map((tr) => [...tr.querySelectorAll('th,td')].map((c) => (c.textContent ?? '').replace(/\s+/g, ' ').trim())),
  );

async function expectShares(page: Page, section: string, shares: Share[]) {
  expect(await rows(page, section)).toEqual(
    shares.map((s) => [
      s.value,
      ...('descriptions' in s ? [(s.descriptions as string[]).join(' / ')] : []),
      String(s.count),
      percent(s.share),
    ]),
  );
}

/** What has the focus: a link's href, or the data-section of the table in a focused box (browser-side code). */
const FOCUSED =
  "(() => { const el = document.activeElement; return el.getAttribute('href') ?? el.querySelector('table')?.getAttribute('data-section') ?? el.tagName; })()";

/** Every number of the --json report, read back from the page's tables. */
async function expectSameNumbers(page: Page, n: Numbers) {
  const totals = await rows(page, 'totals');
  expect(totals.map((r) => r.slice(1))).toEqual(
    (Object.keys(n.totals) as Array<keyof Numbers['totals']>).map((k) => [String(n.totals[k]), percent(n.rates[k])]),
  );
  await expectShares(page, 'statuses', n.statuses);
  const anyDescription = n.intentions.some((i) => i.descriptions.length > 0);
  await expectShares(
    page,
    'intentions',
    anyDescription ? n.intentions : n.intentions.map(({ descriptions: _d, ...s }) => s),
  );
  await expectShares(page, 'labels', n.labels);
  await expectShares(page, 'ringTypes', n.ringTypes);
  await expectShares(page, 'hangupTypes', n.hangupTypes);
  await expectShares(page, 'durationRanges', n.durationRanges);
  expect(await rows(page, 'callsByHour')).toEqual(
    n.callsByHour.map((h) => [h.hour, String(h.called), String(h.connected)]),
  );
  if (n.redials.calls) {
    await expectShares(page, 'redials.ringTypes', n.redials.ringTypes);
    await expectShares(page, 'redials.labels', n.redials.labels);
  }
  const spread = async (label: string) =>
    (await page.textContent(`[data-spread="${label}"]`))?.replace(/\s+/g, ' ').trim();
  const d = n.durations;
  expect(await spread('call duration')).toBe(
    `call duration: median ${d.median ?? '-'} s, p90 ${d.p90 ?? '-'} s, max ${d.max ?? '-'} s (${d.count} calls)`,
  );
  expect(await spread('redials')).toBe(`${n.redials.calls} redial calls on ${n.totals.redialed} records.`);
}

describe('reports as a page (--format html)', () => {
  itWithBrowser(
    'task report: the page shows the numbers of --json, makes no request, and draws a chart per table',
    async () => {
      const { n, file } = await both(['task', 'report', 'T-DEBT-0001']);
      const { page, requests } = await open(file);
      await expectSameNumbers(page, n);
      expect(await page.title()).toBe('Task T-DEBT-0001');
      // Each chart is an image with a title, and each is followed by its table.
      const charts = await page.$$eval('figure svg[role="img"]', (s) =>
        s.map((x) => x.querySelector('title')?.textContent),
      );
      expect(charts.length).toBeGreaterThanOrEqual(8);
      expect(charts.every(Boolean)).toBe(true);
      expect(requests).toEqual([]);
      // Nothing outside the file: no src or href but the page's own anchors.
      const html = readFileSync(file, 'utf8');
      expect(html).not.toMatch(/\b(src|href)="(?!#)/);
      expect(html).not.toMatch(/<script/i);
    },
  );

  itWithBrowser('plan report: rounds, then all rounds together, as --json gives them', async () => {
    const { n, file } = await both(['plan', 'report', 'PLAN-A']);
    const { page, requests } = await open(file, { width: 900 });
    await expectSameNumbers(page, n);
    await screenshot(page, 'report');
    expect(await rows(page, 'rounds')).toEqual(
      n.rounds!.map((r) => [
        r.Rounds,
        r.TaskID,
        r.Status,
        String(r.totals.records),
        String(r.totals.called),
        String(r.totals.connected),
        percent(r.rates.connected),
      ]),
    );
    expect(requests).toEqual([]);
  });

  itWithBrowser('workflow report: the questions too', async () => {
    const { n, file } = await both(['workflow', 'report', 'WT-IC-0001']);
    const { page } = await open(file);
    await expectSameNumbers(page, n);
    for (const [i, q] of (n.questions ?? []).entries()) {
      await expectShares(page, `questions.${i}.answers`, q.answers);
      await expectShares(page, `questions.${i}.verification`, q.verification);
    }
    expect(n.questions?.length).toBeGreaterThan(0);
  });

  itWithBrowser(
    'keyboard alone reaches every link and every table; printed, the navigation goes; on a phone nothing overflows',
    async () => {
      const { file } = await both(['plan', 'report', 'PLAN-A']);
      const { page } = await open(file, { width: 390 });
      const focusable = await page.$$eval('a[href], [tabindex="0"]', (els) => els.length);
      const reached = new Set<string>();
      for (let i = 0; i < focusable + 2; i++) {
        await page.keyboard.press('Tab');
        reached.add(await page.evaluate<string>(FOCUSED));
      }
      const wanted = await page.$$eval('a[href], [tabindex="0"]', (els) =>
        els.map((el) => el.getAttribute('href') ?? el.querySelector('table')?.getAttribute('data-section')),
      );
      for (const w of wanted) expect(reached).toContain(w);
      // Its own style applies (the Content-Security-Policy allows it by its hash, and nothing else).
      expect(await page.evaluate<number>('document.styleSheets.length')).toBe(1);
      // A phone's width: the page itself never scrolls sideways (wide tables scroll in their own box).
      expect(await page.evaluate<number>('document.documentElement.scrollWidth')).toBeLessThanOrEqual(390);
      // A link moves to its section.
      await page.click('nav a[href="#ring-types"]');
      expect(await page.evaluate<string>('location.hash')).toBe('#ring-types');
      await page.emulateMedia({ media: 'print' });
      expect(await page.evaluate<string>("getComputedStyle(document.querySelector('nav')).display")).toBe('none');
      const pdf = await page.pdf({ format: 'A4' });
      expect(pdf.subarray(0, 5).toString()).toBe('%PDF-');
    },
  );
});

describe('--format html flags', () => {
  it('-o without --format, and --format html with --json, are usage errors, before anything is asked of the service', async () => {
    const before = fx.sandbox.requests.length;
    const alone = await runCli(['task', 'report', 'T-DEBT-0001', '-o', 'x.html'], { env: fx.env });
    expect(alone.code).toBe(2);
    expect(alone.err).toContain('-o/--output goes with --format csv or --format html');
    const both = await runCli(['task', 'report', 'T-DEBT-0001', '--format', 'html', '--json'], { env: fx.env });
    expect(both.code).toBe(2);
    expect(fx.sandbox.requests.length).toBe(before);
  });
});

describe('a mailed report page explains itself to a reader who has no callctl', () => {
  it('says what callctl is, and how its numbers are computed, on the page itself', async () => {
    const file = join(tempDir('callctl-report-'), 'report.html');
    const r = await runCli(['task', 'report', 'T-DEBT-0001', '--format', 'html', '-o', file], {
      env: fx.env,
    });
    expect(r.code, r.err).toBe(0);
    const text = readFileSync(file, 'utf8')
      .replace(/<[^>]+>/g, ' ')
      .replace(/\s+/g, ' ');
    expect(text).not.toMatch(/README/);
    expect(text).toMatch(/callctl \S+, a command-line tool for robot outbound-calling campaigns/);
    expect(text).toContain('How these numbers are computed');
    for (const term of ['called', 'connected', 'no answer', 'busy', 'finished', 'redialed', 'median and p90'])
      expect(text, term).toMatch(new RegExp(` ${term} `, 'i'));
    expect(text).toContain('docs/reports.md');
  });
});

describe('a report page shows what the service sent as text', () => {
  const hostile = [
    '<script>window.__ran=1</script>',
    '<img src=x onerror="window.__ran=2">',
    '"><svg onload="window.__ran=3">',
  ];
  let server: Awaited<ReturnType<typeof fixtureServer>>;
  const record = (i: number, text: string) => ({
    id: i + 1,
    RobotID: 'rb-1',
    CalleeName: 'X',
    CalleeGender: 'female',
    CalleeNumber: `+551190000000${i}`,
    CallID: `c-${i}`,
    CallTimes: 1,
    RedailCall: [],
    EventLabel: { final: text },
    AsrResult: [],
    NerSlots: {},
    Status: text,
    Intention: text,
    intention_description: `<a href="javascript:window.__ran=4">pay</a>`,
    RingType: text,
    HangupType: text,
    TalkRound: 2,
    CallStartTime: '2026-11-20T10:00:00Z',
    CallEndTime: '2026-11-20T10:00:30Z',
  });
  beforeAll(async () => {
    const task = {
      TaskID: 'T-<b>HOSTILE</b>',
      TaskName: '<script>window.__ran=5</script>',
      RobotMethod: 'single',
      RobotID: 'rb-1',
      SIPLine: 'sip-1',
      Status: 'finished',
      ScheduleStartTime: '2026-11-20T09:00:00Z',
      ScheduleEndTime: '2026-11-20T18:00:00Z',
      RepeatInterval: 30,
      RepeatNumber: 1,
      detail: hostile.map((h, i) => record(i, h)),
    };
    server = await fixtureServer({
      '/service/cloud/detail': () => JSON.stringify({ data: task, status: 'OK', code: 200 }),
    });
  });
  afterAll(() => server.close());

  itWithBrowser('tags, handlers and javascript: links in the records do nothing and read as they came', async () => {
    const env = { CALLCTL_BASE_URL: server.url, CALLCTL_TOKEN: 'tok', CALLCTL_CONFIG_DIR: tempDir('callctl-config-') };
    const { n, file } = await both(['task', 'report', 'T-HOSTILE'], env);
    const { page, requests } = await open(file);
    const errors: string[] = [];
    page.on('pageerror', (e) => errors.push(e.message));
    await expectSameNumbers(page, n);
    await page.click('nav a[href="#intentions"]');
    expect(await page.evaluate<unknown>('window.__ran')).toBeUndefined();
    expect(await page.$$('main script, main img, a[href^="javascript"]')).toHaveLength(0);
    expect(await page.textContent('h1')).toBe('Task T-<b>HOSTILE</b>');
    expect(requests).toEqual([]);
    expect(errors).toEqual([]);
  });
});
