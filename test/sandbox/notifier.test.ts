import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { EventEmitter } from 'node:events';
import { afterEach, describe, expect, test } from 'vitest';
import type { Sandbox, SandboxEventMap } from '../../src/sandbox/server.js';
import { SEED, startSandbox } from '../../src/sandbox/server.js';
import { createNotifier } from '../../src/sandbox/notifier.js';
import { planSign, taskSign } from '../../src/signing/sign.js';
import { NOTIFY_MAX_RETRIES } from '../../src/limits.js';

interface Received {
  at: number;
  headers: IncomingMessage['headers'];
  body: Record<string, unknown>;
}

/** A receiver answering with the statuses given, in order, then 200; or as `answer` decides. */
async function receiver(
  statuses: number[] = [],
  answer: (body: Record<string, unknown>) => number = () => statuses.shift() ?? 200,
): Promise<{ url: string; got: Received[]; server: Server; close: () => Promise<void> }> {
  const got: Received[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
      got.push({ at: performance.now(), headers: req.headers, body });
      res.writeHead(answer(body), { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const close = () =>
    new Promise<void>((res) => {
      server.close(() => res());
      server.closeAllConnections();
    });
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`, got, server, close };
}

const cleanup: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  while (cleanup.length) await cleanup.pop()!();
});

const until = async (cond: () => boolean, ms = 3000) => {
  const end = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > end) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 5));
  }
};

describe('sandbox notifications', () => {
  async function setup(answer?: (body: Record<string, unknown>) => number): Promise<{ sb: Sandbox; got: Received[] }> {
    const r = await receiver([], answer ?? (() => 200));
    // 1 minute / 60,000: retries 1 ms apart.
    const sb = await startSandbox({ notifyUrl: r.url, notifyKey: 'k-1', timeScale: 60_000 });
    cleanup.push(r.close, () => sb.close());
    return { sb, got: r.got };
  }

  test('task end: TaskID, TaskName, Sign = md5(TaskID + KEY)', async () => {
    const { sb, got } = await setup();
    const task = sb.simulate.createTask({ id: 'T-N1', calleeCount: 1 });
    sb.simulate.finishTask('T-N1');
    await until(() => got.some((g) => g.body.TaskID === 'T-N1'));
    const n = got.find((g) => g.body.TaskID === 'T-N1')!;
    expect(n.body).toEqual({ TaskID: 'T-N1', TaskName: task.TaskName, Sign: taskSign('T-N1', 'k-1') });
    expect(n.headers['content-type']).toBe('application/json');
  });

  test('plan end: PlanName, Timestamp (real, seconds, text), Sign = md5(Timestamp + KEY), PlanDetails; rounds carry PlanName', async () => {
    const { sb, got } = await setup();
    sb.simulate.finishPlan(SEED.callingPlanName);
    await until(() => got.some((g) => g.body.PlanName === SEED.callingPlanName && 'Timestamp' in g.body));
    const plan = got.find((g) => 'Timestamp' in g.body && g.body.PlanName === SEED.callingPlanName)!.body;
    expect(plan.Timestamp).toMatch(/^\d{10}$/);
    expect(Math.abs(Number(plan.Timestamp) - Date.now() / 1000)).toBeLessThan(5);
    expect(plan.Sign).toBe(planSign(plan.Timestamp as string, 'k-1'));
    expect((plan.PlanDetails as Array<{ Status: string }>).map((r) => r.Status)).toEqual([
      'finished',
      'finished',
      'finished',
    ]);
    const rounds = got
      .filter((g) => g.body.PlanName === SEED.callingPlanName && 'TaskID' in g.body)
      .map((g) => g.body.TaskName);
    expect(rounds).toEqual(['PLAN-B-R2', 'PLAN-B-R3']);
  });

  test('an abnormal answer is retried with the same body until it is accepted', async () => {
    const failures = [500, 503, 404];
    const { sb, got } = await setup((body) => (body.TaskID === 'T-N2' ? (failures.shift() ?? 200) : 200));
    const sent: SandboxEventMap['notify.sent'][0][] = [];
    sb.events.on('notify.sent', (e) => sent.push(e));
    sb.simulate.createTask({ id: 'T-N2', calleeCount: 1 });
    sb.simulate.finishTask('T-N2');
    await until(() => got.filter((g) => g.body.TaskID === 'T-N2').length === 4);
    const mine = got.filter((g) => g.body.TaskID === 'T-N2');
    expect(mine).toHaveLength(4);
    expect(new Set(mine.map((m) => JSON.stringify(m.body))).size).toBe(1);
    await until(() => sent.some((s) => s.attempt === 4));
    expect(sent.find((s) => s.attempt === 4)).toMatchObject({ kind: 'task.end', status: 200 });
  });
});

describe('createNotifier', () => {
  test(`retries at the interval, at most ${NOTIFY_MAX_RETRIES} times, then gives up`, async () => {
    const r = await receiver(Array(20).fill(500));
    cleanup.push(r.close);
    const events = new EventEmitter<SandboxEventMap>();
    const failed: SandboxEventMap['notify.failed'][0][] = [];
    events.on('notify.failed', (e) => failed.push(e));
    // 1 minute at timeScale 1200: 50 ms.
    const n = createNotifier({ url: r.url, key: 'k', events, timeScale: 1200 });
    cleanup.push(() => n.close());
    n.send({ kind: 'task.end', body: { TaskID: 'X' } });
    expect(n.pending()).toBe(1);
    await n.idle();
    expect(r.got).toHaveLength(1 + NOTIFY_MAX_RETRIES);
    expect(failed.map((f) => f.willRetry)).toEqual([true, true, true, true, true, false]);
    expect(failed[0]!.error).toBe('HTTP 500');
    const gaps = r.got.slice(1).map((g, i) => g.at - r.got[i]!.at);
    for (const gap of gaps) expect(gap).toBeGreaterThanOrEqual(45);
    expect(n.pending()).toBe(0);
  });

  test('a refused connection is retried too', async () => {
    const events = new EventEmitter<SandboxEventMap>();
    const failed: SandboxEventMap['notify.failed'][0][] = [];
    events.on('notify.failed', (e) => failed.push(e));
    const n = createNotifier({
      url: 'http://127.0.0.1:9/none',
      key: 'k',
      events,
      timeScale: 1,
      retryIntervalMs: 1,
      maxRetries: 2,
    });
    cleanup.push(() => n.close());
    n.send({ kind: 'plan.end', body: {} });
    await n.idle();
    expect(failed).toHaveLength(3);
    expect(failed.at(-1)!.willRetry).toBe(false);
  });

  test('close stops pending retries', async () => {
    const r = await receiver(Array(20).fill(500));
    cleanup.push(r.close);
    const n = createNotifier({
      url: r.url,
      key: 'k',
      events: new EventEmitter<SandboxEventMap>(),
      timeScale: 1,
      retryIntervalMs: 30,
    });
    n.send({ kind: 'task.end', body: {} });
    await until(() => r.got.length === 1);
    await n.close();
    await new Promise((res) => setTimeout(res, 100));
    expect(r.got).toHaveLength(1);
    await n.idle();
  });
});
