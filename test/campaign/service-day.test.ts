import { createHmac } from 'node:crypto';
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, test, vi } from 'vitest';
import { startSandbox } from '../../src/sandbox/server.js';
import { notificationId } from '../../src/sandbox/notify-bodies.js';
import { NOTIFY_MAX_RETRIES } from '../../src/limits.js';
import { startDay, type Day } from '../../bench/campaign/service-day.mjs';
import { call, entries } from '../sandbox/helpers.js';

interface Got {
  kind: string;
  id: string;
  headers: IncomingMessage['headers'];
  raw: string;
  status: number;
}

/** The sandbox's own reading of a body's kind (as the day sends them). */
function kindOf(b: Record<string, unknown>): string {
  if ('TaskID' in b) return 'task.end';
  if ('PlanDetails' in b) return 'plan.end';
  if ('node_id' in b) return 'workflow.api_push';
  if ('msg_id' in b) return 'template.status';
  return b.event === 'session.closed' ? 'chatbot.session_closed' : 'chatbot.transfer';
}

/** A receiver answering as `answer` decides for each arrival of a notification (1 for its first). */
async function receiver(answer: (id: string, arrival: number) => number) {
  const got: Got[] = [];
  const arrivals = new Map<string, number>();
  const server = createServer((req, res) => {
    let raw = '';
    req.setEncoding('utf8').on('data', (c: string) => (raw += c));
    req.on('end', () => {
      const body = JSON.parse(raw) as Record<string, unknown>;
      const kind = kindOf(body);
      const id = notificationId(kind, body);
      const n = (arrivals.get(id) ?? 0) + 1;
      arrivals.set(id, n);
      const status = answer(id, n);
      got.push({ kind, id, headers: req.headers, raw, status });
      res.writeHead(status, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const close = () =>
    new Promise<void>((r) => {
      server.close(() => r());
      server.closeAllConnections();
    });
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`, got, close };
}

const cleanup: Array<() => Promise<void>> = [];
afterEach(async () => {
  while (cleanup.length) await cleanup.pop()!();
});

async function dayEnd(day: Day, ms = 20_000): Promise<void> {
  const end = Date.now() + ms;
  for (;;) {
    day.flush();
    const p = day.progress();
    if (p.waiting === 0 && p.calling === 0 && p.notifying === 0) return;
    if (Date.now() > end) throw new Error(`the day did not end: ${JSON.stringify(p)}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

const scenario = {
  name: 'small day',
  workflows: [
    {
      id: 'WF-DAY-1',
      taskSize: 5,
      flushMinutes: 5,
      callSlotMs: 1000,
      templateShare: 0.5,
      chatbotClosedShare: 0.3,
      chatbotTransferShare: 0.3,
    },
  ],
  plans: [{ name: 'PLAN-DAY-1', rounds: 2, calleeCount: 3, roundIntervalMinutes: 1 }],
  pushes: { workflowId: 'WF-DAY-1', nodeId: 'node-push' },
  concurrency: 4,
};

/** A sandbox running the scenario's day (the bench's way: the day starts as soon as the sandbox listens). */
async function dayOn(
  options: Parameters<typeof startSandbox>[0] & { chatbotSecret?: string } = {},
  input: Record<string, unknown> = scenario,
) {
  const { chatbotSecret, ...sandboxOptions } = options;
  const sb = await startSandbox({ ...sandboxOptions, notifyConcurrency: 4 });
  cleanup.push(() => sb.close());
  const day = startDay(sb, input, { seed: 1, ...(chatbotSecret ? { chatbotSecret } : {}) });
  cleanup.push(async () => day.close());
  return { sb, day };
}

describe('a campaign day in the sandbox', () => {
  test('calls what list updates and pushes bring, notifies every call, retries as the spec says, and records the truth', async () => {
    // Every third notification fails its first attempt; one fails every attempt.
    let hopeless = '';
    const r = await receiver((id, arrival) => {
      if (!hopeless && id.startsWith('workflow.api_push')) hopeless = id;
      if (id === hopeless) return 503;
      return id.length % 3 === 0 && arrival === 1 ? 500 : 200;
    });
    cleanup.push(r.close);
    const { sb, day } = await dayOn({
      notifyUrl: r.url,
      notifyKey: 'day-key',
      chatbotSecret: 'day-chat-secret',
      timeScale: 60_000,
    });
    const token = sb.issueToken();
    const contacts = entries(12);
    for (const batch of [contacts.slice(0, 7), contacts.slice(7)]) {
      const a = await call(sb.url, 'POST', '/service/cloud/workflow/updatedetails', {
        token,
        body: { workflow_id: 'WF-DAY-1', details: batch },
      });
      expect(a.json.code).toBe(200);
    }
    for (const caller of ['+15550001', '+15550002'])
      await call(sb.flexUrl, 'POST', `/api/push/${sb.pushToken}`, { body: { caller_id: caller, variables: {} } });
    await dayEnd(day);

    const truth = day.truth;
    const workflowCalls = truth.calls.filter((c) => c.kind === 'workflow');
    // Every contact called once, with its case id, in tasks of at most 5.
    expect(workflowCalls.map((c) => c.caseId).sort()).toEqual(contacts.map((c) => c.caseid).sort());
    expect(new Set(workflowCalls.map((c) => c.taskId)).size).toBe(3);
    expect(truth.calls.filter((c) => c.kind === 'push').map((c) => c.callee)).toEqual(['+15550001', '+15550002']);
    expect(truth.calls.filter((c) => c.planName === 'PLAN-DAY-1')).toHaveLength(6);

    // What the receiver got is what the truth says was sent, attempt for attempt.
    const sent = new Map(truth.notifications.map((n) => [n.id, n]));
    expect(truth.notifications.reduce((a, n) => a + n.attempts.length, 0)).toBe(r.got.length);
    for (const g of r.got) expect(sent.get(g.id)?.attempts).toContain(g.status);
    const kinds = truth.summary().byKind;
    expect(kinds['workflow.api_push']).toBe(14);
    expect(kinds['task.end']).toBeGreaterThanOrEqual(5); // 3 day tasks and 2 plan rounds (and seeded tasks)
    expect(kinds['plan.end']).toBeGreaterThanOrEqual(1);
    expect(kinds['template.status']! % 4).toBe(0);
    expect(kinds['template.status']).toBeGreaterThan(0);
    expect((kinds['chatbot.session_closed'] ?? 0) + (kinds['chatbot.transfer'] ?? 0)).toBeGreaterThan(0);
    // The hopeless one: the first attempt and 5 retries, then given up.
    const given = sent.get(hopeless)!;
    expect(given.attempts).toEqual(Array(1 + NOTIFY_MAX_RETRIES).fill(503));
    expect(given.gaveUp).toBe(true);
    expect(truth.summary().gaveUp).toBe(1);
    // A first attempt answered 500 was retried, with the same bytes, and delivered.
    const retried = truth.notifications.filter((n) => n.attempts[0] === 500);
    expect(retried.length).toBeGreaterThan(0);
    for (const n of retried) expect(n.attempts).toEqual([500, 200]);
    for (const n of retried) {
      const bytes = r.got.filter((g) => g.id === n.id).map((g) => g.raw);
      expect(new Set(bytes).size).toBe(1);
    }
    // Template states in order; chatbot callbacks signed.
    const msg = r.got.find((g) => g.kind === 'template.status')!.id.split('|')[1];
    const states = r.got.filter((g) => g.kind === 'template.status' && g.id.split('|')[1] === msg && g.status === 200);
    expect(states.map((g) => g.id.split('|')[2])).toEqual(['wait', 'send', 'delivery', 'read']);
    for (const g of r.got.filter((x) => x.kind.startsWith('chatbot.')))
      expect(g.headers['x-service-sign']).toBe(createHmac('sha256', 'day-chat-secret').update(g.raw).digest('hex'));
  });

  test('a plan that comes due while the day starts is in the truth (the day listens before it creates the plans)', async () => {
    // A loaded machine: each look at the clock finds a millisecond gone, a simulated minute at
    // this scale, so the plan's rounds end inside createPlan itself.
    const r = await receiver(() => 200);
    const realNow = Date.now.bind(Date);
    let skew = 0;
    const spy = vi.spyOn(Date, 'now').mockImplementation(() => realNow() + ++skew);
    cleanup.push(r.close);
    let day: Day;
    try {
      ({ day } = await dayOn({ notifyUrl: r.url, notifyKey: 'day-key', timeScale: 60_000 }));
    } finally {
      spy.mockRestore();
    }
    await dayEnd(day);
    expect(day.truth.calls.filter((c) => c.planName === 'PLAN-DAY-1')).toHaveLength(6);
  });

  test('a scenario is checked: an unknown field is refused, and a day needs a notify URL', async () => {
    await expect(
      dayOn({ notifyUrl: 'http://127.0.0.1:9/' }, { name: 'x', workflows: [{ id: 'W', lines: 3 }] }),
    ).rejects.toThrow(/lines/);
    await expect(dayOn({}, { name: 'x' })).rejects.toThrow(/notifyUrl/);
  });
});
