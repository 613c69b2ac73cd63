import type { Rng } from '../random.js';
import type { HangupType, ListEntry, RingType } from '../spec/shapes.js';
import { DAY, MINUTE, SECOND, elapsed, isoDate, isoSeconds, spaceSeconds } from '../clock.js';
import { firstName, type Callee, type Scenario } from './people.js';

/** How one call ended, per scenario: intention letter, description, final label, slots. */
interface Outcome {
  intention: string;
  description: string;
  labels: Record<string, string>;
  /** The callee's lines, in order; the robot's lines come from the scenario's script. */
  replies: string[];
  slots: (c: Callee, at: number) => Record<string, string>;
}

const NO_ANSWER: Outcome = {
  intention: 'F',
  description: 'no answer',
  labels: { final: 'NoAnswer' },
  replies: [],
  slots: () => ({}),
};

const OUTCOMES: Record<Scenario, Outcome[]> = {
  debt: [
    {
      intention: 'A',
      description: 'promise to pay in full',
      labels: { final: 'PTP', willingness: 'high' },
      replies: ['Yes, speaking.', 'I will pay the full amount tomorrow.', 'Okay, thank you.'],
      slots: (c, at) => ({ ptp_date: isoDate(at + DAY), ptp_amount: c.totalOwingAmount }),
    },
    {
      intention: 'B',
      description: 'partial payment promised',
      labels: { final: 'PartialPTP', willingness: 'medium' },
      replies: ['Yes.', 'I can pay half this Friday.', 'Yes, send it.'],
      slots: (c, at) => ({ ptp_date: isoDate(at + 3 * DAY), ptp_amount: (Number(c.totalOwingAmount) / 2).toFixed(2) }),
    },
    {
      intention: 'C',
      description: 'claims already paid',
      labels: { final: 'ClaimPaid', willingness: 'unknown' },
      replies: ['Yes, who is this?', 'I already paid yesterday.', 'Fine.'],
      slots: (_c, at) => ({ paid_date: isoDate(at - DAY) }),
    },
    {
      intention: 'D',
      description: 'unable to pay',
      labels: { final: 'RefuseToPay', reason: 'financial_hardship' },
      replies: ['Yes.', 'I have no money right now, I lost my job.', 'I do not know.'],
      slots: () => ({ reason: 'lost job' }),
    },
  ],
  telemarketing: [
    {
      intention: 'A',
      description: 'interested, asked for the link',
      labels: { final: 'Interested', channel: 'SMS' },
      replies: ['Oh really? Which items?', 'Yes, send me the link.', 'Thanks.'],
      slots: () => ({ product: 'wireless earbuds', channel: 'SMS' }),
    },
    {
      intention: 'B',
      description: 'asked to be called back',
      labels: { final: 'Callback' },
      replies: ['I am driving now.', 'Call me back tonight.', 'Bye.'],
      slots: (_c, at) => ({ callback_time: isoSeconds(at + 8 * 3600 * SECOND) }),
    },
    {
      intention: 'D',
      description: 'not interested',
      labels: { final: 'NotInterested' },
      replies: ['Who is this?', 'No, not interested.', 'Please do not call again.'],
      slots: () => ({}),
    },
  ],
  'info-check': [
    {
      intention: 'A',
      description: 'details verified',
      labels: { final: 'Verified' },
      replies: ['Yes, that is me.', 'March fourth, nineteen ninety.', 'Yes, still there.'],
      slots: () => ({ birth_date: '1990-03-04', employer: 'Acme Logistics' }),
    },
    {
      intention: 'C',
      description: 'details do not match',
      labels: { final: 'Mismatch', field: 'employer' },
      replies: ['Yes.', 'The fourth of March.', 'No, I changed jobs last month.'],
      slots: () => ({ birth_date: '1990-03-04', employer: 'unknown' }),
    },
  ],
};

function robotLines(scenario: Scenario, c: Callee): string[] {
  switch (scenario) {
    case 'debt':
      return [
        `Hello ${firstName(c)}, this is ${c.platform} calling about your loan of ${c.currency} ${c.borrowedAmount}, due on ${c.dueDate}.`,
        `Your total outstanding amount is ${c.currency} ${c.totalOwingAmount}. When can you make the payment?`,
        'Thank you. We will send you the payment link by SMS.',
      ];
    case 'telemarketing':
      return [
        `Hi ${firstName(c)}, this is ${c.platform}. The items saved in your cart are 30% off today.`,
        'The wireless earbuds in your cart. The offer ends at midnight. Shall I send you the link?',
        'Thank you for your time.',
      ];
    case 'info-check':
      return [
        `Hello, this is ${c.platform} verifying your application. Am I speaking with ${c.name}?`,
        'Please confirm your date of birth.',
        'Is your employer still Acme Logistics?',
      ];
  }
}

const UNANSWERED_RING: readonly RingType[] = [
  'busy',
  'switchoff',
  'outofarea',
  'notmatch',
  'unregister',
  'wrongnum',
  'cantuse',
  'holdline',
  'null',
];

const hangupType = (answered: boolean, rng: Rng): HangupType =>
  answered ? (rng.next() < 0.5 ? 'ByCallee' : 'ByRobot') : 'Canceled';

/** One simulated call: answered or not, with its script, labels and redials. */
export function simulateCall(rng: Rng, scenario: Scenario, c: Callee, start: number, answerRate = 0.75) {
  const answered = rng.next() < answerRate;
  const outcome = answered ? rng.pick(OUTCOMES[scenario]) : NO_ANSWER;
  const ringTime = answered ? rng.int(3, 15) : rng.int(20, 45);
  const robot = robotLines(scenario, c);
  const asr: Array<{ time: string; robottext: string; text: string }> = [];
  let t = ringTime;
  if (answered) {
    robot.forEach((line, i) => {
      asr.push({ time: elapsed(t), robottext: line, text: outcome.replies[i] ?? '' });
      t += rng.int(6, 14);
    });
  }
  const redials = answered
    ? []
    : Array.from({ length: rng.int(0, 2) }, (_, i) => ({
        start: start + (i + 1) * 30 * 60 * SECOND,
        ringType: rng.pick(UNANSWERED_RING),
        ringTime: rng.int(20, 45),
      }));
  return {
    answered,
    outcome,
    ringType: answered ? 'normal' : rng.pick(UNANSWERED_RING),
    hangupType: hangupType(answered, rng),
    ringTime,
    talkSeconds: answered ? t - ringTime : 0,
    start,
    asr,
    redials,
  };
}

const callId = (rng: Rng) => `call-${rng.hex(12)}`;

export type CallRecord = ReturnType<typeof callRecord>;

/** A call record of a calling task (the 32 named fields of the spec). */
export function callRecord(
  rng: Rng,
  o: { id: number; robotId: string; scenario: Scenario; callee: Callee; start: number; callerNumber: string },
) {
  const call = simulateCall(rng, o.scenario, o.callee, o.start);
  const c = o.callee;
  const debt = o.scenario === 'debt';
  return {
    id: o.id,
    RobotID: o.robotId,
    CalleeName: c.name,
    CalleeGender: c.gender,
    CalleeNumber: c.number,
    CallStartTime: isoSeconds(call.start),
    CallEndTime: isoSeconds(call.start + (call.ringTime + call.talkSeconds) * SECOND),
    Status: call.answered ? 'answered' : 'unanswered',
    Intention: call.outcome.intention,
    intention_description: call.outcome.description,
    CallID: callId(rng),
    CallTimes: 1 + call.redials.length,
    Comments: call.answered ? '' : 'no answer after ringing',
    BorrowedDate: debt ? c.borrowedDate : '',
    DueDate: debt ? c.dueDate : '',
    BorrowedAmount: debt ? c.borrowedAmount : '',
    TotalOwingAmount: debt ? c.totalOwingAmount : '',
    CurrencyUnit: debt ? c.currency : '',
    PlatformName: c.platform,
    RingType: call.ringType,
    HangupType: call.hangupType,
    ExtraA: c.caseId,
    ExtraB: o.scenario,
    ExtraC: '',
    AsrResult: call.asr,
    EventLabel: call.outcome.labels,
    RingTime: call.ringTime,
    TalkRound: call.asr.length,
    RedailCall: call.redials.map((r) => ({
      CallID: callId(rng),
      CallStartTime: isoSeconds(r.start),
      RingType: r.ringType,
      RingTime: r.ringTime,
      HangupType: 'Canceled',
      ResultLabel: 'NoAnswer',
      caller_number: o.callerNumber,
      callee_number: c.number,
    })),
    NerSlots: call.outcome.slots(c, call.start),
    call_notes: call.answered ? `${call.outcome.description} (${call.asr.length} rounds)` : '',
    caller_number: o.callerNumber,
  };
}

/** The question-answer records of an information-check call. */
export function questionAnswers(c: Callee, call: ReturnType<typeof simulateCall>) {
  if (!call.answered) return [];
  const verified = call.outcome.labels.final === 'Verified';
  return [
    {
      question_name: 'identity',
      answer: 'yes',
      answer_text: call.outcome.replies[0] ?? '',
      status: 'Completed',
      answer_text_slot: '',
      var: 'name_confirmed',
      verification_results: 'pass',
      question_content: `Am I speaking with ${c.name}?`,
      question_type: 'whether',
      whether_answer: 'Answered',
    },
    {
      question_name: 'birth_date',
      answer: '1990-03-04',
      answer_text: call.outcome.replies[1] ?? '',
      status: 'Completed',
      answer_text_slot: '1990-03-04',
      var: 'birth_date',
      verification_results: 'pass',
      question_content: 'Please confirm your date of birth.',
      question_type: 'open',
      whether_answer: 'Answered',
    },
    {
      question_name: 'employer',
      answer: verified ? 'yes' : 'no',
      answer_text: call.outcome.replies[2] ?? '',
      status: 'Completed',
      answer_text_slot: '',
      var: 'employer_confirmed',
      verification_results: verified ? 'pass' : 'fail',
      question_content: 'Is your employer still Acme Logistics?',
      question_type: 'whether',
      whether_answer: verified ? 'Answered' : 'Invalid',
    },
    {
      question_name: 'monthly_income',
      answer: '',
      answer_text: '',
      status: 'Skip',
      answer_text_slot: '',
      var: 'monthly_income',
      verification_results: '',
      question_content: 'What is your monthly income?',
      question_type: 'open',
      whether_answer: 'Skip',
    },
  ];
}

export type WorkflowCallDetail = ReturnType<typeof workflowCallDetail>;

/** An entry of a workflow call-task's `details` (information check). */
export function workflowCallDetail(
  rng: Rng,
  o: { id: number; robotHash: string; callee: Callee; start: number; callerNumber: string },
) {
  const call = simulateCall(rng, 'info-check', o.callee, o.start);
  const end = call.start + (call.ringTime + call.talkSeconds) * SECOND;
  return {
    id: o.id,
    callee: o.callee.number,
    result: call.answered ? 'answered' : 'unanswered',
    result_label: call.outcome.labels.final ?? '',
    duration: call.talkSeconds,
    hangup_type: call.hangupType,
    ring_type: call.ringType,
    question_answer: questionAnswers(o.callee, call),
    NerSlots: call.outcome.slots(o.callee, call.start),
    robot_hash: o.robotHash,
    call_id: callId(rng),
    call_times: 1 + call.redials.length,
    call_start_time: spaceSeconds(call.start),
    call_end_time: spaceSeconds(end),
    ring_time: call.ringTime,
    talk_round: call.asr.length,
    redail_call: call.redials.map((r) => ({
      call_id: callId(rng),
      call_start_time: spaceSeconds(r.start),
      ring_type: r.ringType,
      ring_time: r.ringTime,
      hangup_type: 'Canceled',
    })),
    intention_description: call.outcome.description,
    EventLabel: call.outcome.labels,
    caller_number: o.callerNumber,
    case_id: o.callee.caseId,
  };
}

/** The custom API node data push body (Events), `call` with `robot_id` as verification serves it. */
export type ApiPushData = ReturnType<typeof apiPushData>;

/** A custom API node push of a workflow's information check of `c`, pushed at `at`. */
export function apiPushData(
  rng: Rng,
  wf: { workflow_id: string; name: string },
  entry: ListEntry,
  c: Callee,
  at: number,
) {
  const call = simulateCall(rng, 'info-check', c, at - 10 * MINUTE, 1);
  return {
    workflow_id: wf.workflow_id,
    workflow_name: wf.name,
    node_id: 'node-api-01',
    node_name: 'Push result to CRM',
    callee: {
      case_id: c.caseId,
      callee_name: c.name,
      callee_gender: c.gender,
      callee_number: c.number,
      platform_name: c.platform,
      extra_a: '',
      extra_b: '',
      extra_c: '',
      comments: '',
      borrowed_date: c.borrowedDate,
      due_date: c.dueDate,
      borrowed_amount: c.borrowedAmount,
      total_owing_amount: c.totalOwingAmount,
      currency_unit: c.currency,
      extra: call.asr.map((a) => ({ Question: a.robottext, Content: a.text })),
      extend: { variables: entry.variables },
      location: 'Jakarta',
    },
    custom_attribute: { crm_stage: 'kyc', source: 'workflow' },
    call: {
      task_id: 'WT-IC-0001',
      call_id: callId(rng),
      call_start_time: isoSeconds(call.start),
      call_end_time: isoSeconds(call.start + (call.ringTime + call.talkSeconds) * SECOND),
      call_times: 1,
      ring_type: call.ringType,
      hangup_type: call.hangupType,
      intention: call.outcome.intention,
      slots: JSON.stringify(call.outcome.slots(c, call.start)),
      multi_label: call.outcome.labels,
      asr_ptp: '',
      asr_result: call.asr,
      robot_id: 'rb-1004',
    },
  };
}
