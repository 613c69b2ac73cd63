import { describe, expect, test } from 'vitest';
import { check, notificationOf } from '../../bench/campaign/checker.mjs';
import { notificationId, planEndBody, taskEndBody } from '../../src/sandbox/notify-bodies.js';
import { sampleBody } from '../../src/hooks/samples.js';

/** A small history that holds every invariant: two notifications, two rows, one person, one report. */
function history() {
  return {
    seed: 7,
    truth: {
      notifications: [
        { id: 'task.end|T-1|', kind: 'task.end', attempts: [502, 200], delivered: true },
        { id: 'workflow.api_push|W|N|c-1', kind: 'workflow.api_push', attempts: [200], delivered: true },
        { id: 'workflow.api_push|W|N|c-2', kind: 'workflow.api_push', attempts: [503, 503], delivered: false },
      ],
      calls: [{ kind: 'workflow', callId: 'c-1', callee: '+6281000000001' }],
    },
    stored: [
      { nid: 'task.end|T-1|', kind: 'task.end', type: 'task.end', retry: 0, status: 200 },
      { nid: 'task.end|T-1|', kind: 'task.end', type: 'task.end', retry: 1, status: 200 },
      { nid: 'workflow.api_push|W|N|c-1', kind: 'workflow.api_push', type: 'workflow.api_push', retry: 0, status: 200 },
    ],
    forwards: [
      { nid: 'task.end|T-1|', eventId: '1@t', status: 503 },
      { nid: 'task.end|T-1|', eventId: '1@t', status: 200 },
      { nid: 'task.end|T-1|', eventId: '1@t', status: 200 },
      { nid: 'workflow.api_push|W|N|c-1', eventId: '3@t', status: 200 },
    ],
    rows: {
      sent: [
        { callee: '+6281000000001', file: 'a.csv', line: 2, caseid: false },
        { callee: '+6281000000002', file: 'a.csv', line: 3, caseid: false },
      ],
      received: ['+6281000000001'],
      uncertain: new Set(['+6281000000002']),
    },
    pushes: {
      people: ['+15551000001'],
      received: ['+1 555 100 0001'],
      uncertain: new Set<string>(),
      unfinished: new Set<string>(),
    },
    reports: [
      {
        what: 'task report T-1',
        got: { totals: { called: 1 }, intentions: { A: 1 } },
        want: { totals: { called: 1 }, intentions: { A: 1 } },
      },
    ],
    secrets: [] as Array<{ where: string; secret: string }>,
    faults: [{ kind: 'postgres-restart' }],
  };
}

type History = ReturnType<typeof history>;

describe('the campaign day checker', () => {
  test('reads which notification a body is as the sandbox names it, for every kind', () => {
    const plan = { PlanName: 'P', PlanStatus: 'finished', PlanDetails: [] } as never;
    const bodies: Array<[string, Record<string, unknown>]> = [
      ['task.end', taskEndBody({ TaskID: 'T-1', TaskName: 'x' } as never, 'k', 'P')],
      ['plan.end', planEndBody(plan, 'k')],
      ...(['workflow.api_push', 'template.status', 'chatbot.session_closed', 'chatbot.transfer'] as const).map(
        (t): [string, Record<string, unknown>] => [t, sampleBody(t)],
      ),
    ];
    for (const [kind, body] of bodies) expect(notificationOf(body)).toBe(notificationId(kind, body));
    expect(new Set(bodies.map(([, b]) => notificationOf(b))).size).toBe(6);
  });

  test('a history that keeps every invariant passes, and its table counts it', () => {
    const v = check(history());
    expect(v.problems).toEqual([]);
    expect(v.ok).toBe(true);
    expect(v.counts).toMatchObject({
      notificationsSent: 3,
      answered200: 2,
      stored: 2,
      storedRetries: 1,
      forwarded: 2,
      forwardRepeatsDropped: 1,
      duplicates: 0,
      lost: 0,
      rowsSent: 2,
      rowsReceived: 1,
      rowsUncertain: 1,
      peoplePushed: 1,
    });
    expect(v.table).toMatch(/campaign day, seed 7/);
  });

  test('a person of a file no run got past its start (each exited 2, and said so) is not sent, and counted', () => {
    const h = history();
    h.pushes.received.splice(0);
    h.pushes.unfinished.add('15551000001');
    const v = check(h);
    expect(v.problems).toEqual([]);
    expect(v.counts).toMatchObject({ peoplePushed: 0, peopleUnfinished: 1 });
  });

  // Each invariant, with the fault it guards against planted in an otherwise good history.
  const plants: Array<[string, (h: History) => void, RegExp]> = [
    [
      'an event dropped from the store',
      (h) => h.stored.splice(2, 1),
      /answered 200 but not in the store: 1 \(workflow.api_push\|W\|N\|c-1\)/,
    ],
    ['a retry stored as a new event', (h) => (h.stored[1]!.retry = 0), /stored more than once as a new event/],
    [
      'a forward sent twice under two event ids',
      (h) => h.forwards.push({ nid: 'task.end|T-1|', eventId: '9@t', status: 200 }),
      /forwarded to the app under two event ids .*: 1 \(task.end\|T-1\| as 1@t,9@t\)/,
    ],
    ['a forward never made', (h) => h.forwards.splice(3, 1), /never forwarded to the app: 1/],
    [
      'a forward without an event id',
      (h) => (h.forwards[3]!.eventId = undefined as unknown as string),
      /forwards without an event id/,
    ],
    [
      'a row uploaded twice',
      (h) => h.rows.received.push('+6281000000001'),
      /contact rows without caseid in the service more than once: 1 \(a.csv:2 x2\)/,
    ],
    [
      'a row lost without a word',
      (h) => h.rows.uncertain.clear(),
      /not in the service and not named uncertain: 1 \(a.csv:3\)/,
    ],
    ['a person pushed twice', (h) => h.pushes.received.push('+15551000001'), /people pushed more than once: 1/],
    [
      'a person never pushed, named nowhere',
      (h) => h.pushes.received.splice(0),
      /people never pushed and not named uncertain or failed: 1 \(\+15551000001\)/,
    ],
    [
      'a report number changed',
      (h) => (h.reports[0]!.got.totals.called = 2),
      /report numbers other than the truth: 1 \(task report T-1 totals/,
    ],
    [
      'a secret in a file',
      (h) => h.secrets.push({ where: '/day/receiver-a.err', secret: 'app...' }),
      /secrets found: 1/,
    ],
    [
      'an event stored that was never sent',
      (h) => h.stored.push({ ...h.stored[2]!, nid: 'workflow.api_push|W|N|c-9' }),
      /in the store but never sent/,
    ],
  ];
  test.each(plants)('%s is reported', (_what, plant, problem) => {
    const h = history();
    plant(h);
    const v = check(h);
    expect(v.ok).toBe(false);
    expect(v.problems.join('\n')).toMatch(problem);
  });
});
