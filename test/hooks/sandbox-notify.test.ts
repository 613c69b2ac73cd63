import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { defaultServiceSign } from '../../src/signing/sign.js';
import { SEED, startSandbox } from '../../src/sandbox/server.js';
import { sendSample } from '../helpers/sandbox-samples.js';
import { logEvents, post, until, startListener, type ListenerEvent } from './helpers.js';

const cleanup: Array<() => unknown> = [];
afterEach(async () => {
  while (cleanup.length) await cleanup.pop()!();
});

/** The sandbox sending to a listener that verifies with the same KEY (and the KEY as chatbot secret). */
async function setup() {
  const key = 'sbx-notify-key';
  const listener = await startListener({ port: 0, keys: ['old-key', key], chatbotSecret: key, store: logEvents() });
  cleanup.push(() => listener.close());
  const events: Array<Extract<ListenerEvent, { kind: 'event' }>> = [];
  listener.on((e) => e.kind === 'event' && events.push(e));
  const sb = await startSandbox({
    notifyUrl: `${listener.url}/hooks`,
    notifyKey: key,
    timeScale: 60_000,
    signKey: 'sk',
    signSecret: 'ss',
  });
  cleanup.push(() => sb.close());
  return { sb, events };
}

it('sends plan end after the last round, signed with the KEY, valid against the schema', async () => {
  const { sb, events } = await setup();
  sb.simulate.finishPlan(SEED.callingPlanName);
  await until(() => events.some((e) => e.record.type === 'plan.end' && e.summary.plan === SEED.callingPlanName));
  const plan = events.find((e) => e.record.type === 'plan.end' && e.summary.plan === SEED.callingPlanName)!;
  expect(plan.record).toMatchObject({ verdict: 'verified', by: 'key 2', status: 200 });
  expect(plan.record.warnings).toBeUndefined();
  expect(plan.summary.rounds).toBe(3);
  // Its rounds ended first, each with its own task end.
  expect(
    events.filter((e) => e.record.type === 'task.end' && e.summary.plan === SEED.callingPlanName).length,
  ).toBeGreaterThan(0);
});

it('sends template status as a received template message goes wait, send, delivery, read', async () => {
  const { sb, events } = await setup();
  const text = JSON.stringify({
    template_id: 1001,
    timestamp: 1736500000,
    channel: 'whatsapp',
    channel_id: 'wa-01',
    user_id: '+6281234567009',
    variable: { date: '2026-11-22', name: 'Budi' },
    custom: JSON.stringify({ reply_url: 'https://example.com/replies' }),
  });
  const res = await post(`${sb.url}/api/v1/template/unitcast`, text, {
    'content-type': 'application/json',
    'x-service-sign-key': 'sk',
    'x-service-sign': defaultServiceSign(text, 'ss'),
  });
  expect(res.status).toBe(200);
  const taskId = (JSON.parse(res.body) as { data: { task_id: string } }).data.task_id;
  const mine = () => events.filter((e) => e.record.type === 'template.status' && e.record.body?.includes(taskId));
  await until(() => mine().length === 4);
  expect(mine().map((e) => e.summary.status)).toEqual(['wait', 'send', 'delivery', 'read']);
  for (const e of mine()) expect(e.record).toMatchObject({ verdict: 'unsigned', duplicate: false, status: 200 });
  expect(mine().every((e) => e.record.warnings === undefined)).toBe(true);
});

it('sends the other types on demand: chatbot ones signed over the exact bytes, all schema-valid', async () => {
  const { sb, events } = await setup();
  const transfer = sendSample(sb, 'chatbot.transfer');
  const closed = sendSample(sb, 'chatbot.session_closed', { channel: 'telegram' });
  const push = sendSample(sb, 'workflow.api_push');
  const find = (type: string, body: Record<string, unknown>) => () =>
    events.find((e) => e.record.type === type && e.record.body === JSON.stringify(body));
  await until(
    () =>
      !!find('chatbot.transfer', transfer)() &&
      !!find('chatbot.session_closed', closed)() &&
      !!find('workflow.api_push', push)(),
  );
  expect(find('chatbot.transfer', transfer)()!.record).toMatchObject({ verdict: 'verified', by: 'secret' });
  expect(find('chatbot.session_closed', closed)()!.summary.channel).toBe('telegram');
  expect(find('workflow.api_push', push)()!.record).toMatchObject({ verdict: 'unsigned' });
  for (const e of events.filter((x) => x.record.type !== 'task.end' && x.record.type !== 'plan.end'))
    expect(e.record.warnings).toBeUndefined();
});

describe('notification variants: retries (new Timestamp and Sign) stay one event', () => {
  it.each([
    [[]],
    [['plan-end-int-timestamp']],
    [['plan-end-task-fields']],
    [['no-user-agent']],
    [['plan-end-int-timestamp', 'plan-end-task-fields', 'no-user-agent']],
  ])(
    'retry-new-sign with %j: every first arrival is new, every retry counted against it, all verified',
    async (extra: string[]) => {
      const key = 'sbx-variant-key';
      const listener = await startListener({ port: 0, keys: [key], store: logEvents() });
      cleanup.push(() => listener.close());
      const events: Array<Extract<ListenerEvent, { kind: 'event' }>> = [];
      listener.on((e) => e.kind === 'event' && events.push(e));
      // In front of the listener: every request reaches it, but the sandbox is told 500 the first
      // time it sends each event, so it retries (made again: a new Timestamp and Sign).
      const firsts = new Set<string>();
      const front = createServer((req, res) => {
        let body = '';
        req
          .on('data', (c: Buffer) => (body += c.toString()))
          .on('end', async () => {
            const headers: Record<string, string> = { 'content-type': 'application/json' };
            if (req.headers['user-agent']) headers['user-agent'] = req.headers['user-agent'];
            await post(`${listener.url}/hooks`, body, headers).catch(() => undefined);
            const parsed = JSON.parse(body) as { TaskID?: string; PlanName?: string };
            const id = parsed.TaskID ?? `plan:${parsed.PlanName}`;
            const first = !firsts.has(id);
            firsts.add(id);
            res.writeHead(first ? 500 : 200, { 'content-type': 'application/json' }).end('{}');
          });
      });
      await new Promise<void>((r) => front.listen(0, '127.0.0.1', r));
      cleanup.push(() => front.close());
      const sb = await startSandbox({
        notifyUrl: `http://127.0.0.1:${(front.address() as AddressInfo).port}/hooks`,
        notifyKey: key,
        timeScale: 60_000,
        variants: ['retry-new-sign', ...extra] as never,
      });
      cleanup.push(() => sb.close());
      sb.simulate.finishPlan(SEED.callingPlanName);
      const plans = () => events.filter((e) => e.record.type === 'plan.end');
      const signedNow = () => events.filter((e) => e.record.type === 'plan.end' || e.record.type === 'task.end');
      const arrivals = () => {
        const n = new Map<string, number>();
        for (const e of signedNow()) n.set(e.record.key!, (n.get(e.record.key!) ?? 0) + 1);
        return [...n.values()];
      };
      // Every event sent, and sent again once (the front answered 500 to its first delivery).
      await until(() => plans().length >= 2 && arrivals().every((c) => c >= 2), 10_000);
      const signed = signedNow();
      expect(
        signed.every((e) => e.record.verdict === 'verified' && e.record.status === 200),
        JSON.stringify(signed.map((e) => e.record.reason)),
      ).toBe(true);
      const byEvent = new Map<string, boolean[]>();
      for (const e of signed) byEvent.set(e.record.key!, [...(byEvent.get(e.record.key!) ?? []), e.record.duplicate]);
      // Each event: its first arrival new, each retry a duplicate (one event, a retry count).
      for (const [k, dups] of byEvent)
        expect([k, dups[0], dups.slice(1).every(Boolean), dups.length >= 2]).toEqual([k, false, true, true]);
      if (extra.includes('plan-end-int-timestamp'))
        expect(typeof (JSON.parse(plans()[0]!.record.body!) as { Timestamp: unknown }).Timestamp).toBe('number');
      if (extra.includes('no-user-agent'))
        expect(signed.every((e) => e.record.headers['user-agent'] === undefined)).toBe(true);
    },
  );
});
