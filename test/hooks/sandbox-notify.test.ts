import { afterEach, expect, it } from 'vitest';
import { defaultServiceSign } from '../../src/signing/sign.js';
import { startListener, type ListenerEvent } from '../../src/hooks/listener.js';
import { notifierOf } from '../../src/sandbox/notifier.js';
import { SEED, startSandbox } from '../../src/sandbox/server.js';
import { post, until } from './helpers.js';

const cleanup: Array<() => unknown> = [];
afterEach(async () => {
  while (cleanup.length) await cleanup.pop()!();
});

/** The sandbox sending to a listener that verifies with the same KEY (and the KEY as chatbot secret). */
async function setup() {
  const key = 'sbx-notify-key';
  const listener = await startListener({ port: 0, keys: ['old-key', key], chatbotSecret: key });
  cleanup.push(() => listener.close());
  const events: Array<Extract<ListenerEvent, { kind: 'event' }>> = [];
  listener.on((e) => e.kind === 'event' && events.push(e));
  const sb = await startSandbox({ notifyUrl: `${listener.url}/hooks`, notifyKey: key, timeScale: 60_000, signKey: 'sk', signSecret: 'ss' });
  cleanup.push(() => sb.close());
  return { sb, events };
}

it('sends plan end after the last round, signed with the KEY, valid against the schema', async () => {
  const { sb, events } = await setup();
  sb.simulate.finishPlan(SEED.callingPlanName);
  await until(() => events.some((e) => e.record.type === 'plan.end' && e.summary.plan === SEED.callingPlanName));
  const plan = events.find((e) => e.record.type === 'plan.end' && e.summary.plan === SEED.callingPlanName)!;
  expect(plan.record).toMatchObject({ verdict: 'verified', by: 'key 2', answer: 200 });
  expect(plan.record.warnings).toBeUndefined();
  expect(plan.summary.rounds).toBe(3);
  // Its rounds ended first, each with its own task end.
  expect(events.filter((e) => e.record.type === 'task.end' && e.summary.plan === SEED.callingPlanName).length).toBeGreaterThan(0);
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
  for (const e of mine()) expect(e.record).toMatchObject({ verdict: 'unsigned', duplicate: false, answer: 200 });
  expect(mine().every((e) => e.record.warnings === undefined)).toBe(true);
});

it('sends the other types on demand: chatbot ones signed over the exact bytes, all schema-valid', async () => {
  const { sb, events } = await setup();
  const notifier = notifierOf(sb.events)!;
  const transfer = notifier.sendSample('chatbot.transfer');
  const closed = notifier.sendSample('chatbot.session_closed', ['channel=telegram']);
  const push = notifier.sendSample('workflow.api_push');
  const find = (type: string, body: Record<string, unknown>) => () =>
    events.find((e) => e.record.type === type && e.record.body === JSON.stringify(body));
  await until(() => !!find('chatbot.transfer', transfer)() && !!find('chatbot.session_closed', closed)() && !!find('workflow.api_push', push)());
  expect(find('chatbot.transfer', transfer)()!.record).toMatchObject({ verdict: 'verified', by: 'secret' });
  expect(find('chatbot.session_closed', closed)()!.summary.channel).toBe('telegram');
  expect(find('workflow.api_push', push)()!.record).toMatchObject({ verdict: 'unsigned' });
  for (const e of events.filter((x) => x.record.type !== 'task.end' && x.record.type !== 'plan.end')) expect(e.record.warnings).toBeUndefined();
});
