import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli, tempConfigDir } from '../helpers/cli.js';
import { fixtureServer } from './fixture-server.js';

// A task of six records written by hand, with the expected numbers worked out by hand below.
const rec = (o: Record<string, unknown>) => ({
  RobotID: 'rb-1',
  CalleeName: 'X',
  CalleeGender: 'female',
  CallID: `c-${o.id}`,
  CallTimes: 1,
  RedailCall: [],
  EventLabel: {},
  AsrResult: [],
  NerSlots: {},
  ...o,
});
const t = (hms: string) => `2026-11-20T${hms}Z`;
const records = [
  rec({
    id: 1,
    CalleeNumber: '+5511900000001',
    Status: 'answered',
    Intention: 'A',
    intention_description: 'promise to pay',
    RingType: 'normal',
    HangupType: 'ByRobot',
    TalkRound: 3,
    CallStartTime: t('10:00:00'),
    CallEndTime: t('10:01:00'),
    EventLabel: { final: 'PTP' },
  }),
  rec({
    id: 2,
    CalleeNumber: '+5511900000002',
    Status: 'answered',
    Intention: 'A',
    intention_description: 'promise to pay in full',
    RingType: 'normal',
    HangupType: 'ByCallee',
    TalkRound: 5,
    CallStartTime: t('10:05:00'),
    CallEndTime: t('10:07:30'),
    EventLabel: { final: 'PTP' },
  }),
  rec({
    id: 3,
    CalleeNumber: '+5511900000003',
    Status: 'answered',
    Intention: 'B',
    intention_description: 'callback',
    RingType: 'normal',
    HangupType: 'ByRobot',
    TalkRound: 1,
    CallStartTime: t('10:10:00'),
    CallEndTime: t('10:10:20'),
    EventLabel: { final: 'Callback' },
  }),
  rec({
    id: 4,
    CalleeNumber: '+5511900000004',
    Status: 'unanswered',
    Intention: 'F',
    intention_description: 'no answer',
    RingType: 'busy',
    HangupType: 'Canceled',
    TalkRound: 0,
    CallStartTime: t('10:15:00'),
    CallEndTime: t('10:15:30'),
    CallTimes: 3,
    EventLabel: { final: 'NoAnswer' },
    RedailCall: [
      { CallID: 'r1', RingType: 'busy', ResultLabel: 'NoAnswer' },
      { CallID: 'r2', RingType: 'switchoff', ResultLabel: 'NoAnswer' },
    ],
  }),
  // Values outside the spec's lists, an unreadable end time, no final label.
  rec({
    id: 5,
    CalleeNumber: '+5511900000005',
    Status: '',
    Intention: 'Z?',
    intention_description: '',
    RingType: 'ringing-forever',
    HangupType: 'ByAlien',
    TalkRound: 0,
    CallStartTime: t('10:20:00'),
    CallEndTime: 'soon',
    RedailCall: null,
  }),
  // Not called yet.
  rec({
    id: 6,
    CalleeNumber: '+5511900000006',
    Status: 'pending',
    Intention: '',
    RingType: '',
    HangupType: null,
    CallStartTime: '',
    CallTimes: 0,
    EventLabel: undefined,
  }),
];
const task = {
  TaskID: 'T-HAND',
  TaskName: 'Hand made',
  RobotMethod: 'single',
  RobotID: 'rb-1',
  SIPLine: 'sip-1',
  Status: 'finished',
  ScheduleStartTime: t('09:00:00'),
  ScheduleEndTime: t('18:00:00'),
  RepeatInterval: 30,
  RepeatNumber: 1,
  detail: records,
};

const qa = (
  question_name: string,
  answer: string,
  verification_results: string,
  whether_answer: string,
  question_type = 'whether',
) => ({
  question_name,
  answer,
  verification_results,
  whether_answer,
  question_type,
  status: 'Completed',
  answer_text: '',
  question_content: '',
  var: '',
  answer_text_slot: '',
});
const wfDetails = [
  {
    id: 1,
    callee: '+628100000001',
    result: 'answered',
    result_label: 'Verified',
    duration: 40,
    ring_type: 'normal',
    hangup_type: 'ByRobot',
    talk_round: 3,
    call_times: 1,
    call_start_time: '2026-11-20 10:00:00',
    call_end_time: '2026-11-20 10:00:50',
    intention_description: 'details verified',
    redail_call: [],
    question_answer: [qa('identity', 'yes', 'pass', 'Answered'), qa('employer', 'yes', 'pass', 'Answered')],
  },
  {
    id: 2,
    callee: '+628100000002',
    result: 'answered',
    result_label: 'Mismatch',
    duration: 55,
    ring_type: 'normal',
    hangup_type: 'ByCallee',
    talk_round: 3,
    call_times: 1,
    call_start_time: '2026-11-20 10:05:00',
    call_end_time: '2026-11-20 10:06:05',
    intention_description: 'details do not match',
    redail_call: [],
    question_answer: [qa('identity', 'yes', 'pass', 'Answered'), qa('employer', 'no', 'fail', 'Invalid')],
  },
  {
    id: 3,
    callee: '+628100000003',
    result: 'unanswered',
    result_label: 'NoAnswer',
    duration: 0,
    ring_type: 'switchoff',
    hangup_type: 'Canceled',
    talk_round: 0,
    call_times: 2,
    call_start_time: '2026-11-20 10:10:00',
    call_end_time: '2026-11-20 10:10:30',
    intention_description: 'no answer',
    redail_call: [{ ring_type: 'busy', result_label: 'NoAnswer' }],
    question_answer: [],
  },
];
const wfTask = {
  task_id: 'WT-HAND',
  task_name: 'Hand KYC',
  status: 'finished',
  workflow_id: 'wf-1',
  workflow_name: 'KYC',
  nodetask_id: 'nt-1',
  nodetask_name: 'KYC call',
  details: wfDetails,
};

const ok = (data: unknown) => JSON.stringify({ data, status: 'OK', code: 200 });
let server: Awaited<ReturnType<typeof fixtureServer>>;
let env: Record<string, string>;
beforeAll(async () => {
  server = await fixtureServer({
    '/service/cloud/detail?TaskID=T-HAND': () => ok(task),
    '/service/cloud/detail?TaskID=T-EMPTY': () => ok({ ...task, TaskID: 'T-EMPTY', detail: [] }),
    '/service/cloud/detail?TaskID=T-REFUSED': () => JSON.stringify({ data: null, status: 'task not found', code: 404 }),
    '/service/cloud/plandetail': () =>
      ok({
        PlanName: 'P',
        PlanDetails: [
          { Rounds: '1', TaskName: 'P-R1', TaskID: 'T-HAND', Status: 'finished' },
          { Rounds: '2', TaskName: 'P-R2', TaskID: 'T-EMPTY', Status: 'created' },
        ],
      }),
    '/service/cloud/workflow/taskdetail': () => ok(wfTask),
    '/service/cloud/detail?TaskID=T-ODD': () =>
      ok({ ...task, TaskID: 'T-ODD', detail: [records[0], { ...records[1], id: 'two' }, records[2]] }),
  });
  env = { CALLCTL_BASE_URL: server.url, CALLCTL_TOKEN: 'tok-hand', CALLCTL_CONFIG_DIR: tempConfigDir() };
});
afterAll(() => server.close());

const cli = (argv: string[], tty = false) => runCli(argv, { env, tty });
const share = (value: string, count: number, total: number) => ({
  value,
  count,
  share: Math.round((count / total) * 10_000) / 10_000,
});

describe('task report, by hand', () => {
  it('counts, rates, distributions and spreads of six hand-made records', async () => {
    const r = await cli(['task', 'report', 'T-HAND', '--json']);
    expect(r.err).toBe('');
    expect(r.code).toBe(0);
    const n = JSON.parse(r.out);
    expect(n.task).toEqual({
      TaskID: 'T-HAND',
      TaskName: 'Hand made',
      Status: 'finished',
      ScheduleStartTime: t('09:00:00'),
      ScheduleEndTime: t('18:00:00'),
    });
    // called: 1-5 (6 has no start time and CallTimes 0); connected: 1-3 (ring "normal");
    // no answer: 4 and 5; busy: 4; finished (ByRobot, connected): 1 and 3; by callee: 2; redialed: 4.
    expect(n.totals).toEqual({
      records: 6,
      called: 5,
      connected: 3,
      noAnswer: 2,
      busy: 1,
      finished: 2,
      hungUpByCallee: 1,
      redialed: 1,
    });
    expect(n.rates).toEqual({
      records: null,
      called: 0.8333,
      connected: 0.6,
      noAnswer: 0.4,
      busy: 0.2,
      finished: 0.4,
      hungUpByCallee: 0.2,
      redialed: 0.2,
    });
    expect(n.statuses).toEqual([
      share('answered', 3, 6),
      share('(empty)', 1, 6),
      share('pending', 1, 6),
      share('unanswered', 1, 6),
    ]);
    expect(n.intentions).toEqual([
      { ...share('A', 2, 6), descriptions: ['promise to pay', 'promise to pay in full'] },
      { ...share('(empty)', 1, 6), descriptions: [] },
      { ...share('B', 1, 6), descriptions: ['callback'] },
      { ...share('F', 1, 6), descriptions: ['no answer'] },
      { ...share('Z?', 1, 6), descriptions: [] },
    ]);
    expect(n.labels).toEqual([
      share('(none)', 2, 6),
      share('PTP', 2, 6),
      share('Callback', 1, 6),
      share('NoAnswer', 1, 6),
    ]);
    expect(n.ringTypes).toEqual([
      share('normal', 3, 6),
      share('(empty)', 1, 6),
      share('busy', 1, 6),
      share('ringing-forever', 1, 6),
    ]);
    expect(n.hangupTypes).toEqual([
      share('ByRobot', 2, 6),
      share('(none)', 1, 6),
      share('ByAlien', 1, 6),
      share('ByCallee', 1, 6),
      share('Canceled', 1, 6),
    ]);
    // Talk rounds of connected calls: 3, 5, 1 -> sorted 1, 3, 5: median (rank 2) 3, p90 (rank 3) 5.
    expect(n.talkRounds).toEqual({ count: 3, median: 3, p90: 5, max: 5 });
    // Durations of connected calls: 60, 150, 20 s -> 20, 60, 150.
    expect(n.durations).toEqual({ count: 3, median: 60, p90: 150, max: 150 });
    // By range (each range's upper bound excluded): 20 in 10-30 s, 60 in 1-2 min, 150 in 2-5 min.
    expect(n.durationRanges).toEqual([
      share('under 10 s', 0, 3),
      share('10-30 s', 1, 3),
      share('30-60 s', 0, 3),
      share('1-2 min', 1, 3),
      share('2-5 min', 1, 3),
      share('5 min or more', 0, 3),
    ]);
    // Records 1-5 called between 10:00 and 10:20 (6 has no start time): one hour, 3 of them connected.
    expect(n.callsByHour).toEqual([{ hour: '2026-11-20T10:00:00Z', called: 5, connected: 3 }]);
    expect(n.redials).toEqual({
      calls: 2,
      ringTypes: [share('busy', 1, 2), share('switchoff', 1, 2)],
      labels: [share('NoAnswer', 2, 2)],
    });
    expect(n.questions).toBeUndefined();
  });

  it('on a terminal: the same numbers with bars of blocks; piped: section lines; --format csv: a table', async () => {
    const tty = await cli(['task', 'report', 'T-HAND'], true);
    expect(tty.code).toBe(0);
    tty.out = tty.out.replace(/\u001b\[\d+m/g, '');
    expect(tty.out).toMatch(/connected\S*\s+3\s+60\.0%\s+████████████░░░░░░░░/);
    expect(tty.out).toContain('median 60 s, p90 150 s, max 150 s  (3 calls)');
    expect(tty.out).toContain('ringing-forever');
    // The redials as --json, TSV and --csv give them: under their heading, the ring types and the labels.
    const redials = tty.out.slice(tty.out.indexOf('Redials: 2 calls on 1 record'));
    expect(redials).toMatch(/^Redials: 2 calls on 1 record\n/);
    expect(redials).toMatch(/│ RING TYPE +│ COUNT │ SHARE │/);
    expect(redials).toMatch(/│ switchoff +│ 1 +│ 50\.0% │/);
    expect(redials).toMatch(/│ LABEL +│ COUNT │ SHARE +│/);
    expect(redials).toMatch(/│ NoAnswer +│ 2 +│ 100\.0% │ █{20} │/);
    const piped = await cli(['task', 'report', 'T-HAND']);
    expect(piped.out).toContain('totals\tconnected\t3\t0.6\t\n');
    expect(piped.out).toContain('intention\tA\t2\t0.3333\tpromise to pay / promise to pay in full\n');
    expect(piped.out).toContain('duration_seconds\tp90\t150\t\t\n');
    expect(piped.out).not.toContain('█');
    expect(piped.out).toContain('redial_label\tNoAnswer\t2\t1\t\n');
    const csv = await cli(['task', 'report', 'T-HAND', '--format', 'csv']);
    expect(csv.err).toBe('');
    const lines = csv.out.split('\r\n');
    expect(lines[0]).toBe('section,value,count,share,detail');
    expect(lines).toContain('ring_type,ringing-forever,1,0.1667,');
    expect(lines).toContain('talk_rounds,median,3,,');
  });

  it('the spellings of pre-release builds (report --csv, workflow report --task-id, callctl state) are usage errors that name them', async () => {
    for (const [argv, named] of [
      [['task', 'report', 'T-HAND', '--csv'], /unknown option '--csv'/],
      [['plan', 'report', 'P', '--csv'], /unknown option '--csv'/],
      [['workflow', 'report', 'WT-HAND', '--task-id', 'WT-HAND'], /unknown option '--task-id'/],
      [['state', 'list'], /unknown command 'state'/],
    ] as const) {
      const r = await cli([...argv]);
      expect(r.code, argv.join(' ')).toBe(2);
      expect(r.out).toBe('');
      expect(r.err).toMatch(named);
    }
  });

  it('an export format with --json is a usage error, not one of them silently dropped', async () => {
    for (const argv of [
      ['task', 'report', 'T-HAND', '--format', 'csv', '--json'],
      ['task', 'detail', 'T-HAND', '--format', 'csv', '--json'],
    ]) {
      const r = await cli(argv);
      expect(r.code, argv.join(' ')).toBe(2);
      expect(r.out).toBe('');
      expect(r.err).toMatch(/^error: --format and --json both choose what is printed: give one of them\n/);
    }
  });

  it('a refusal is the same one line as `task detail` gives, naming the endpoint, the code and the service status text (exit 1)', async () => {
    const r = await cli(['task', 'report', 'T-REFUSED']);
    expect(r.code).toBe(1);
    expect(r.err.trim().split('\n')).toHaveLength(1);
    expect(r.err).toContain('GET /service/cloud/detail');
    expect(r.err).toContain('404');
    expect(r.err).toContain('task not found');
    const detail = await cli(['task', 'detail', 'T-REFUSED']);
    expect(r.err).toBe(detail.err);
    const exported = await cli(['task', 'detail', 'T-REFUSED', '--format', 'csv']);
    expect(exported.err).toBe(detail.err);
    expect(exported.code).toBe(1);
    expect(exported.out).toBe('');
  });
});

describe('an odd record', () => {
  it('is left out with the same warning `task detail` gives; the others are counted', async () => {
    const r = await cli(['task', 'report', 'T-ODD', '--json']);
    expect(r.code).toBe(0);
    expect(JSON.parse(r.out).totals).toMatchObject({ records: 2, connected: 2, finished: 2 });
    const detail = await cli(['task', 'detail', 'T-ODD', '--json']);
    expect(JSON.parse(detail.out).detail).toHaveLength(2);
    expect(r.err).toContain('data.detail.1.id');
    expect(r.err).toBe(detail.err);
    const csv = await cli(['task', 'detail', 'T-ODD', '--format', 'csv']);
    expect(csv.err).toBe(detail.err);
    expect(csv.out.trimEnd().split('\r\n')).toHaveLength(3);
  });
});

describe('plan report, by hand', () => {
  it('walks plandetail and each round; the whole is the sum of the rounds', async () => {
    const r = await cli(['plan', 'report', 'P', '--json']);
    expect(r.code).toBe(0);
    const n = JSON.parse(r.out);
    expect(n.plan).toEqual({ PlanName: 'P' });
    expect(
      n.rounds.map((x: { TaskID: string; totals: { records: number; connected: number } }) => [
        x.TaskID,
        x.totals.records,
        x.totals.connected,
      ]),
    ).toEqual([
      ['T-HAND', 6, 3],
      ['T-EMPTY', 0, 0],
    ]);
    expect(n.rounds[1].rates.connected).toBeNull();
    expect(n.totals).toEqual({
      records: 6,
      called: 5,
      connected: 3,
      noAnswer: 2,
      busy: 1,
      finished: 2,
      hungUpByCallee: 1,
      redialed: 1,
    });
    expect(n.durations).toEqual({ count: 3, median: 60, p90: 150, max: 150 });
  });
});

describe('workflow report, by hand', () => {
  it('per question: answers, verification and whether-answers', async () => {
    const r = await cli(['workflow', 'report', 'WT-HAND', '--json']);
    expect(r.code).toBe(0);
    const n = JSON.parse(r.out);
    expect(n.task.task_id).toBe('WT-HAND');
    expect(n.totals).toEqual({
      records: 3,
      called: 3,
      connected: 2,
      noAnswer: 1,
      busy: 0,
      finished: 1,
      hungUpByCallee: 1,
      redialed: 1,
    });
    expect(n.statuses).toEqual([share('answered', 2, 3), share('unanswered', 1, 3)]);
    expect(n.labels).toEqual([share('Mismatch', 1, 3), share('NoAnswer', 1, 3), share('Verified', 1, 3)]);
    // Durations of the two connected calls: 40 and 55 s.
    expect(n.durations).toEqual({ count: 2, median: 40, p90: 55, max: 55 });
    expect(n.redials.ringTypes).toEqual([share('busy', 1, 1)]);
    expect(n.questions).toEqual([
      {
        question: 'identity',
        type: 'whether',
        count: 2,
        answers: [share('yes', 2, 2)],
        verification: [share('pass', 2, 2)],
        whether: [share('Answered', 2, 2)],
        statuses: [share('Completed', 2, 2)],
      },
      {
        question: 'employer',
        type: 'whether',
        count: 2,
        answers: [share('no', 1, 2), share('yes', 1, 2)],
        verification: [share('fail', 1, 2), share('pass', 1, 2)],
        whether: [share('Answered', 1, 2), share('Invalid', 1, 2)],
        statuses: [share('Completed', 2, 2)],
      },
    ]);
    const tty = await cli(['workflow', 'report', 'WT-HAND'], true);
    expect(tty.out).toContain('Question employer (whether, 2 calls)');
  });
});
