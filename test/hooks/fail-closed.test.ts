import { execFileSync } from 'node:child_process';
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { Chalk } from 'chalk';
import { afterEach, describe, expect, it } from 'vitest';
import { render } from '../../src/commands/serve-hooks/render.js';
import { EventLog } from '../../src/store/files/event-log.js';
import { signNotification } from '../../src/hooks/outgoing.js';
import { sampleBody, type SampleType } from '../../src/hooks/samples.js';
import { notificationTransport } from '../../src/hooks/send.js';
import { planSign } from '../../src/signing/sign.js';
import {
  post,
  readRecords,
  tempDir,
  until,
  logEvents,
  reopenedLog,
  startListener,
  type Listener,
  type ListenerEvent,
  type ListenerOptions,
} from './helpers.js';

const KEY = 'fail-closed-key';
const SECRET = 'fail-closed-secret';
const open: Array<{ close(): unknown }> = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((l) => l.close()));
});

/** A local app behind serve-hooks: records what it gets, answers the given statuses in turn. */
async function app(statuses: number[] = []) {
  const got: Array<{ body: string; headers: IncomingHttpHeaders }> = [];
  const server = createServer((req, res) => {
    let body = '';
    req
      .on('data', (c: Buffer) => (body += c.toString()))
      .on('end', () => {
        got.push({ body, headers: req.headers });
        res.writeHead(statuses.shift() ?? 200, { 'content-type': 'application/json' }).end('{}');
      });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  open.push(server);
  return { got, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/app` };
}

async function listen(options: Partial<ListenerOptions> = {}) {
  const logPath = join(tempDir(), 'events.ndjson');
  const listener: Listener = await startListener({
    port: 0,
    keys: [KEY],
    store: logEvents(EventLog.open(logPath)),
    ...options,
  });
  open.push(listener);
  const events: ListenerEvent[] = [];
  listener.on((e) => events.push(e));
  return { listener, url: listener.url, logPath, events };
}

async function signed(type: SampleType, extra: Parameters<typeof signNotification>[2] = {}, body = sampleBody(type)) {
  return signNotification(type, body, { key: KEY, ...extra });
}

describe('fail closed: a verification method that cannot answer', () => {
  it.each([
    // Only the slow case has a short limit: a loaded machine may take longer than 0.3 s to start a shell.
    ['exits non-zero', 'exit 3', 5_000, /exited with 3/],
    ['prints nothing', 'true', 5_000, /printed nothing/],
    ['is too slow', 'sleep 5', 300, /took over 0.3 s|no answer within/],
  ])(
    'sign command that %s: 503 (the service retries), recorded, never forwarded',
    async (_what, command, limitMs, reason) => {
      const local = await app();
      const { url, logPath, listener } = await listen({
        signCommand: command,
        signCommandTimeoutMs: limitMs,
        forwardTo: local.url,
      });
      // A forged chatbot event: whatever signature it carries, it must not get through.
      const forged = await signed('chatbot.transfer', { chatbot: { signature: 'f'.repeat(64) } });
      const answer = await post(url, forged.body, forged.headers);
      expect(answer.status).toBe(503);
      expect(JSON.parse(answer.body).error).toMatch(reason);
      await listener.close();
      expect(local.got).toEqual([]);
      expect(readRecords(logPath)).toMatchObject([{ verdict: 'unavailable', status: 503 }]);
    },
  );

  it('a sign command too slow is killed with all it started, and no more than signConcurrency run at once', async () => {
    // A duration nobody else uses marks this test's processes in `ps`.
    const marker = `sleep 41.${process.pid % 1000}${Date.now() % 1000}`;
    const running = () =>
      execFileSync('ps', ['-eo', 'args'], { encoding: 'utf8' })
        .split('\n')
        .filter((l) => l.trim() === marker).length;
    const { url, listener } = await listen({
      signCommand: `${marker}; echo never`,
      // Long enough that all five requests arrive before the first two time out, on a loaded machine too.
      signCommandTimeoutMs: 2_000,
      signConcurrency: 2,
    });
    const forged = await signed('chatbot.transfer', { chatbot: { signature: 'f'.repeat(64) } });
    const answers = await Promise.all(Array.from({ length: 5 }, () => post(url, forged.body, forged.headers)));
    expect(answers.map((a) => a.status)).toEqual([503, 503, 503, 503, 503]);
    const reasons = answers.map((a) => JSON.parse(a.body).error as string);
    expect(reasons.filter((r) => /already running/.test(r))).toHaveLength(3);
    expect(reasons.filter((r) => /took over 2 s/.test(r))).toHaveLength(2);
    // Killing only the shell left its `sleep` behind, one more per request.
    await until(() => running() === 0, 3_000);
    await listener.close();
  });

  it('tells the app behind what was found (X-Callctl-Verdict), and a sender cannot claim a verdict', async () => {
    const local = await app();
    const { url, listener } = await listen({ forwardTo: local.url, chatbotSecret: SECRET });
    const good = await signed('chatbot.transfer', { chatbot: { secret: SECRET } });
    expect((await post(url, good.body, good.headers)).status).toBe(200);
    const push = await signed('workflow.api_push');
    expect((await post(url, push.body, { ...push.headers, 'x-callctl-verdict': 'verified' })).status).toBe(200);
    await until(() => local.got.length === 2);
    await listener.close();
    expect(local.got.map((g) => g.headers['x-callctl-verdict'])).toEqual(['verified', 'unsigned']);
  });

  it('--strict refuses unsigned, unverified and unknown events outright, and forwards none of them', async () => {
    const local = await app();
    const { url, listener } = await listen({ strict: true, forwardTo: local.url });
    const push = await signed('workflow.api_push');
    expect((await post(url, push.body, push.headers)).status).toBe(401);
    const chat = await signed('chatbot.transfer', { chatbot: { signature: 'a'.repeat(64) } }); // no secret configured: unverified
    expect((await post(url, chat.body, chat.headers)).status).toBe(401);
    expect((await post(url, '{"what":"ever"}')).status).toBe(400);
    const task = await signed('task.end');
    expect((await post(url, task.body, task.headers)).status).toBe(200);
    await until(() => local.got.length === 1);
    await listener.close();
    expect(JSON.parse(local.got[0]!.body)).toHaveProperty('TaskID');
  });

  it('a forward retry says how long the attempt took and how long it waits (not "undefined ms")', async () => {
    const local = await app([502]);
    const { url, listener, events } = await listen({
      forwardTo: local.url,
      forwardTransport: notificationTransport({ sleep: async () => undefined }),
    });
    const task = await signed('task.end');
    await post(url, task.body, task.headers);
    await until(() => events.some((e) => e.kind === 'forward' && e.final));
    await listener.close();
    const c = { out: new Chalk({ level: 0 }), err: new Chalk({ level: 0 }) };
    const lines = events
      .filter((e) => e.kind === 'forward')
      .map((e) => render(e, { json: false, showNumbers: false, skipVerify: false }, c).err);
    expect(lines[0]).toMatch(/^↻ forward #1 attempt 1: 502 in \d+ ms; retrying in \d+ ms\n$/);
    expect(lines.join('')).not.toMatch(/undefined/);
  });
});

describe('plan end: freshness and replays', () => {
  const NOW = Date.now();
  const DETAILS = [{ Rounds: '1', TaskName: 'PLAN-A_1', TaskID: 'T-PLAN-A-1', Status: 'finished' }];
  const plan = (timestamp: string | number, name = 'PLAN-A', details: unknown = DETAILS) =>
    JSON.stringify({
      PlanName: name,
      Timestamp: timestamp,
      Sign: planSign(String(timestamp), KEY),
      PlanDetails: details,
    });
  const seconds = (ms: number) => String(Math.floor(ms / 1000));

  it.each([
    ['0', 0],
    ['the year 3000', '32503680000'],
    ['not-a-time', 'not-a-time'],
    ['empty', ''],
    ['20 minutes old', seconds(NOW - 20 * 60_000)],
    ['20 minutes ahead', seconds(NOW + 20 * 60_000)],
  ])('refuses a correctly signed Timestamp that is %s (401, not forwarded)', async (_what, timestamp) => {
    const local = await app();
    const { url, listener, logPath } = await listen({ forwardTo: local.url });
    const answer = await post(url, plan(timestamp));
    expect(answer.status).toBe(401);
    expect(JSON.parse(answer.body).error).toMatch(/Timestamp/);
    await listener.close();
    expect(local.got).toEqual([]);
    expect(readRecords(logPath)[0]).toMatchObject({ verdict: 'rejected' });
  });

  it('accepts a fresh Timestamp as text or as an integer, and honours --max-age', async () => {
    const { url } = await listen({ maxAgeMs: 30 * 60_000 });
    const old = await post(url, plan(seconds(NOW - 20 * 60_000), 'P-OLD-BUT-ALLOWED'));
    expect(old.status, old.body).toBe(200);
    expect((await post(url, plan(Number(seconds(NOW)), 'P-INT'))).status).toBe(200);
    expect((await post(url, plan(seconds(NOW - 1_000), 'P-TEXT'))).status).toBe(200);
  });

  it('refuses a Timestamp+Sign pair seen before with another PlanName or other details, also after a restart', async () => {
    const local = await app();
    let clock = NOW;
    const first = await listen({ forwardTo: local.url, now: () => clock });
    const ts = seconds(NOW);
    expect((await post(first.url, plan(ts, 'PLAN-A'))).status).toBe(200);
    // Within 10 s another plan may share the pair: two plans ending in the same second do.
    expect((await post(first.url, plan(ts, 'PLAN-SAME-SECOND'))).status).toBe(200);
    clock += 11_000;
    const forged = await post(first.url, plan(ts, 'PLAN-FORGED'));
    expect(forged.status).toBe(401);
    expect(JSON.parse(forged.body).error).toMatch(/replay/);
    const otherDetails = await post(
      first.url,
      plan(ts, 'PLAN-A', [{ Rounds: '9', TaskName: 'x', TaskID: 'T-X', Status: 'done' }]),
    );
    expect(otherDetails.status).toBe(401);
    // The same event again with the same pair is the service's retry, not a replay.
    expect((await post(first.url, plan(ts, 'PLAN-A'))).status).toBe(200);
    await first.listener.close();
    expect(local.got.map((g) => JSON.parse(g.body).PlanName)).toEqual(['PLAN-A', 'PLAN-SAME-SECOND']);
    // A restart reading the log remembers the pair.
    const second = await startListener({
      port: 0,
      keys: [KEY],
      now: () => clock,
      store: reopenedLog(first.logPath, 30 * 60_000, () => NOW),
    });
    open.push(second);
    expect((await post(second.url, plan(ts, 'PLAN-FORGED'))).status).toBe(401);
  });

  it('a retry with a new Timestamp and Sign is the same event: answered 200, counted as retry 1, forwarded once', async () => {
    const local = await app();
    const { url, listener, logPath } = await listen({ forwardTo: local.url });
    expect((await post(url, plan(seconds(NOW - 60_000)))).status).toBe(200);
    expect((await post(url, plan(seconds(NOW)))).status).toBe(200);
    await listener.close();
    expect(readRecords(logPath).map((r) => [r.duplicate, r.retry])).toEqual([
      [false, 0],
      [true, 1],
    ]);
    expect(local.got).toHaveLength(1);
  });
});
