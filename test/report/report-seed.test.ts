import { describe, expect, it, beforeEach } from 'vitest';
import { SEED, type Sandbox } from '../../src/sandbox/server.js';
import { runCli } from '../helpers/cli.js';
import { useSandbox } from '../helpers/sandbox.js';

// The report numbers of the sandbox's seeded tasks, one per business scenario, against figures
// computed here from the raw answer (fetched with plain fetch, not through callctl), written
// out the long way from the README's definitions.

let sandbox: Sandbox;
let env: Record<string, string>;
const fixture = useSandbox();
beforeEach(() => ({ sandbox, env } = fixture));

type Raw = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

async function raw(method: 'GET' | 'POST', path: string, body?: unknown): Promise<Raw> {
  const res = await fetch(sandbox.url + path, {
    method,
    headers: { authorization: `Token ${env.CALLCTL_TOKEN}`, 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const json = (await res.json()) as Raw;
  expect(json.code).toBe(200);
  return json.data;
}

const report = async (argv: string[]) => {
  const r = await runCli([...argv, '--json'], { env });
  expect(r.err).toBe('');
  expect(r.code).toBe(0);
  return JSON.parse(r.out) as Raw;
};

const secondsBetween = (a: string, b: string) =>
  (Date.parse(b.replace(' ', 'T') + (b.endsWith('Z') ? '' : 'Z')) -
    Date.parse(a.replace(' ', 'T') + (a.endsWith('Z') ? '' : 'Z'))) /
  1000;

/** Median, p90, max by nearest rank, computed plainly. */
function spread(values: number[]) {
  const s = [...values].sort((a, b) => a - b);
  const rank = (p: number) => (s.length ? s[Math.ceil(p * s.length) - 1] : null);
  return { count: s.length, median: rank(0.5), p90: rank(0.9), max: s.length ? s[s.length - 1] : null };
}

function count<T>(items: T[], key: (x: T) => string) {
  const m: Record<string, number> = {};
  for (const x of items) m[key(x)] = (m[key(x)] ?? 0) + 1;
  return m;
}
const asMap = (shares: Array<{ value: string; count: number }>) =>
  Object.fromEntries(shares.map((s) => [s.value, s.count]));

/** Expected figures for a calling task's records, from the definitions. */
function expectedForRecords(records: Raw[]) {
  const called = records.filter((r) => r.CallStartTime || r.CallTimes > 0);
  const connected = records.filter((r) => r.RingType === 'normal' || r.TalkRound > 0);
  return {
    totals: {
      records: records.length,
      called: called.length,
      connected: connected.length,
      noAnswer: called.filter((r) => !connected.includes(r)).length,
      busy: called.filter((r) => r.RingType === 'busy').length,
      finished: connected.filter((r) => r.HangupType === 'ByRobot').length,
      hungUpByCallee: connected.filter((r) => r.HangupType === 'ByCallee').length,
      redialed: records.filter((r) => r.RedailCall?.length > 0).length,
    },
    intentions: count(records, (r) => r.Intention),
    ringTypes: count(records, (r) => r.RingType),
    hangupTypes: count(records, (r) => r.HangupType),
    talkRounds: spread(connected.map((r) => r.TalkRound)),
    durations: spread(connected.map((r) => secondsBetween(r.CallStartTime, r.CallEndTime))),
    redialCalls: records.reduce((n, r) => n + (r.RedailCall?.length ?? 0), 0),
  };
}

describe.each([
  ['debt collection', SEED.debtTaskId],
  ['telemarketing / e-commerce', SEED.telemarketingTaskId],
  ['information check', SEED.infoCheckTaskId],
])('task report of the seeded %s task', (_scenario, taskId) => {
  it('matches the figures computed from its records', async () => {
    const task = await raw('GET', `/service/cloud/detail?TaskID=${taskId}`);
    expect(task.detail.length).toBeGreaterThan(0);
    const want = expectedForRecords(task.detail);
    const got = await report(['task', 'report', taskId]);
    expect(got.totals).toEqual(want.totals);
    expect(got.rates.connected).toBe(Math.round((want.totals.connected / want.totals.called) * 10_000) / 10_000);
    expect(asMap(got.intentions)).toEqual(want.intentions);
    expect(asMap(got.ringTypes)).toEqual(want.ringTypes);
    expect(asMap(got.hangupTypes)).toEqual(want.hangupTypes);
    expect(got.talkRounds).toEqual(want.talkRounds);
    expect(got.durations).toEqual(want.durations);
    expect(got.redials.calls).toBe(want.redialCalls);
    // Each intention's descriptions are those its records carry.
    for (const i of got.intentions) {
      const seen = new Set(
        task.detail.filter((r: Raw) => r.Intention === i.value).map((r: Raw) => r.intention_description),
      );
      expect(new Set(i.descriptions)).toEqual(seen);
    }
  });
});

describe('plan report of the seeded finished plan', () => {
  it('each round matches its task; the whole matches all rounds together', async () => {
    const plan = await raw('GET', `/service/cloud/plandetail?PlanName=${SEED.planName}`);
    expect(plan.PlanDetails.length).toBe(3);
    const all: Raw[] = [];
    const got = await report(['plan', 'report', SEED.planName]);
    for (const [i, round] of plan.PlanDetails.entries()) {
      const task = await raw('GET', `/service/cloud/detail?TaskID=${round.TaskID}`);
      all.push(...task.detail);
      expect(got.rounds[i]).toMatchObject({
        Rounds: round.Rounds,
        TaskID: round.TaskID,
        Status: round.Status,
        totals: expectedForRecords(task.detail).totals,
      });
    }
    const want = expectedForRecords(all);
    expect(got.totals).toEqual(want.totals);
    expect(got.durations).toEqual(want.durations);
    expect(asMap(got.intentions)).toEqual(want.intentions);
  });
});

describe('workflow report of the seeded information-check task', () => {
  it('matches the figures computed from its details, question by question', async () => {
    const task = await raw('POST', '/service/cloud/workflow/taskdetail', { task_id: SEED.workflowTaskId });
    const details: Raw[] = task.details;
    expect(details.length).toBeGreaterThan(0);
    const got = await report(['workflow', 'report', SEED.workflowTaskId]);
    const called = details.filter((d) => d.call_start_time || d.call_times > 0);
    const connected = details.filter((d) => d.ring_type === 'normal' || d.talk_round > 0);
    expect(got.totals).toMatchObject({
      records: details.length,
      called: called.length,
      connected: connected.length,
      noAnswer: called.length - connected.length,
    });
    expect(got.durations).toEqual(spread(connected.map((d) => d.duration)));
    expect(asMap(got.labels)).toEqual(count(details, (d) => d.result_label));
    const answers = details.flatMap((d) => d.question_answer ?? []);
    const names = [...new Set(answers.map((a: Raw) => a.question_name))];
    expect(got.questions.map((q: Raw) => q.question)).toEqual(names);
    for (const q of got.questions) {
      const mine = answers.filter((a: Raw) => a.question_name === q.question);
      expect(q.count).toBe(mine.length);
      expect(asMap(q.answers)).toEqual(count(mine, (a: Raw) => a.answer || '(empty)'));
      expect(asMap(q.verification)).toEqual(count(mine, (a: Raw) => a.verification_results || '(empty)'));
      expect(asMap(q.whether)).toEqual(count(mine, (a: Raw) => a.whether_answer || '(empty)'));
    }
  });
});

describe.each(['odd-values', 'optional-missing'])('reports under the sandbox variant %s', (variant) => {
  // Values outside the spec's lists, empty strings, absent and null fields: counted as themselves,
  // (empty) and (none), never a crash.
  const label = (v: unknown) => (v === undefined || v === null ? '(none)' : v === '' ? '(empty)' : String(v));
  beforeEach(() => sandbox.setVariants([variant]));

  it('task report: ring and hangup types and redial ring types as served', async () => {
    const task = await raw('GET', `/service/cloud/detail?TaskID=${SEED.debtTaskId}`);
    const got = await report(['task', 'report', SEED.debtTaskId]);
    expect(got.totals.records).toBe(task.detail.length);
    expect(asMap(got.ringTypes)).toEqual(count(task.detail, (r: Raw) => label(r.RingType)));
    expect(asMap(got.hangupTypes)).toEqual(count(task.detail, (r: Raw) => label(r.HangupType)));
    const redials = task.detail.flatMap((r: Raw) => r.RedailCall ?? []);
    expect(asMap(got.redials.ringTypes)).toEqual(count(redials, (d: Raw) => label(d.RingType)));
    if (variant === 'odd-values') expect(got.ringTypes.map((s: Raw) => s.value)).toContain('ringback');
  });

  it('workflow report: question statuses, types and whether-answers as served', async () => {
    const task = await raw('POST', '/service/cloud/workflow/taskdetail', { task_id: SEED.workflowTaskId });
    const got = await report(['workflow', 'report', SEED.workflowTaskId]);
    expect(got.totals.records).toBe(task.details.length);
    expect(asMap(got.hangupTypes)).toEqual(count(task.details, (d: Raw) => label(d.hangup_type)));
    const answers = task.details.flatMap((d: Raw) => d.question_answer ?? []);
    for (const q of got.questions ?? []) {
      const mine = answers.filter((a: Raw) => label(a.question_name) === q.question);
      expect(asMap(q.whether)).toEqual(count(mine, (a: Raw) => label(a.whether_answer)));
      expect(asMap(q.statuses)).toEqual(count(mine, (a: Raw) => label(a.status)));
    }
    if (variant === 'odd-values') expect(JSON.stringify(got.questions)).toContain('Unclear');
  });

  it('plan report and the exports run through', async () => {
    expect((await report(['plan', 'report', SEED.planName])).rounds).toHaveLength(3);
    const csv = await runCli(['task', 'detail', SEED.debtTaskId, '--format', 'csv'], { env });
    expect(csv.code).toBe(0);
  });
});
