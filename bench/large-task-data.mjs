// A generated calling task of N call records, shaped like the spec's sample (about 800 bytes a
// record): served by bench/large-task.mjs's loopback server. Deterministic for a given N.

const RING = ['normal', 'normal', 'normal', 'busy', 'switchoff', 'null', 'outofarea'];
const HANGUP = ['ByCallee', 'ByRobot', 'Canceled'];
const INTENT = [
  ['A', 'promise to pay in full'],
  ['B', 'partial payment promised'],
  ['C', 'claims already paid'],
  ['D', 'unable to pay'],
  ['F', 'no answer'],
];

const pad = (n, w) => String(n).padStart(w, '0');
const time = (s) =>
  `2026-11-20T${pad(8 + (Math.floor(s / 3600) % 12), 2)}:${pad(Math.floor(s / 60) % 60, 2)}:${pad(s % 60, 2)}Z`;

/** One call record as JSON text. */
export function recordJson(i) {
  const ring = RING[i % RING.length];
  const connected = ring === 'normal';
  const [intention, description] = connected ? INTENT[i % 4] : INTENT[4];
  const start = i * 7;
  const talk = connected ? 20 + (i % 90) : 0;
  const asr = connected
    ? [
        { time: '00:00:05', robottext: `Hello Budi ${i}, about your loan.`, text: 'Yes, speaking.' },
        { time: '00:00:15', robottext: 'When can you pay?', text: 'I will pay tomorrow.' },
      ]
    : [];
  const redial = connected
    ? []
    : [
        {
          CallID: `call-r${i}`,
          CallStartTime: time(start + 1800),
          RingType: 'busy',
          RingTime: 30,
          HangupType: 'Canceled',
          ResultLabel: 'NoAnswer',
          caller_number: '+622150001234',
          callee_number: `+62812${pad(i, 8)}`,
        },
      ];
  return JSON.stringify({
    id: i + 1,
    RobotID: 'rb-1001',
    CalleeName: `Budi Santoso ${i}`,
    CalleeGender: i % 2 ? 'male' : 'female',
    CalleeNumber: `+62812${pad(i, 8)}`,
    CallStartTime: time(start),
    CallEndTime: time(start + talk + 10),
    Status: connected ? 'answered' : 'unanswered',
    Intention: intention,
    intention_description: description,
    CallID: `call-${pad(i, 12)}`,
    CallTimes: 1 + redial.length,
    Comments: '',
    BorrowedDate: '2026-10-01',
    DueDate: '2026-11-01',
    BorrowedAmount: '1500000.00',
    TotalOwingAmount: '1725000.00',
    CurrencyUnit: 'IDR',
    PlatformName: 'Kredit Cepat',
    RingType: ring,
    HangupType: connected ? HANGUP[i % 2] : 'Canceled',
    ExtraA: `CASE-${i}`,
    ExtraB: 'debt',
    ExtraC: '',
    AsrResult: asr,
    EventLabel: { final: connected ? 'PTP' : 'NoAnswer' },
    RingTime: connected ? 5 : 30,
    TalkRound: asr.length,
    RedailCall: redial,
    NerSlots: connected ? { ptp_date: '2026-11-21', ptp_amount: '1725000.00' } : {},
    call_notes: '',
    caller_number: '+622150001234',
  });
}

/** One generated entry of a workflow call-task's `details` as JSON text (about 700 bytes). */
export function workflowCallJson(i) {
  const ring = RING[i % RING.length];
  const connected = ring === 'normal';
  const start = i * 7;
  const answers = connected
    ? [
        {
          question_name: 'identity',
          answer: 'yes',
          answer_text: 'Yes, speaking.',
          status: 'Completed',
          question_type: 'whether',
          whether_answer: 'Answered',
        },
        {
          question_name: 'pay date',
          answer: 'tomorrow',
          answer_text: `I will pay on the ${1 + (i % 28)}th.`,
          status: 'Completed',
          question_type: 'open',
          whether_answer: 'Answered',
        },
      ]
    : [];
  return JSON.stringify({
    id: i + 1,
    callee: `+62812${pad(i, 8)}`,
    result: connected ? 'answered' : 'unanswered',
    result_label: connected ? 'PTP' : 'NoAnswer',
    duration: connected ? 20 + (i % 90) : 0,
    hangup_type: connected ? HANGUP[i % 2] : 'Canceled',
    ring_type: ring,
    question_answer: answers,
    NerSlots: connected ? { ptp_date: '2026-11-21' } : {},
    robot_hash: 'rb-1001',
    call_id: `call-${pad(i, 12)}`,
    call_times: 1,
    call_start_time: time(start).replace('T', ' ').replace('Z', ''),
    call_end_time: time(start + 40)
      .replace('T', ' ')
      .replace('Z', ''),
    ring_time: connected ? 5 : 30,
    talk_round: answers.length,
    redail_call: [],
    intention_description: connected ? 'promise to pay' : 'no answer',
    EventLabel: { final: connected ? 'PTP' : 'NoAnswer' },
    caller_number: '+622150001234',
    case_id: `CASE-${i}`,
  });
}

/** An envelope whose data is `head` then an array of `n` elements, as one Buffer. */
function envelope(head, n, element) {
  const parts = [Buffer.from(head)];
  let chunk = [];
  for (let i = 0; i < n; i++) {
    chunk.push(element(i));
    if (chunk.length === 1000) {
      parts.push(Buffer.from((parts.length > 1 ? ',' : '') + chunk.join(',')));
      chunk = [];
    }
  }
  if (chunk.length) parts.push(Buffer.from((parts.length > 1 ? ',' : '') + chunk.join(',')));
  parts.push(Buffer.from(']},"status":"OK","code":200}'));
  return Buffer.concat(parts);
}

/** The whole envelope of GET /service/cloud/detail for a task of `n` records, as one Buffer. */
export function taskEnvelope(n, taskId = 'T-LARGE') {
  const head = `{"data":{"TaskID":"${taskId}","TaskName":"Large task","RobotMethod":"single","RobotID":"rb-1001","SIPLine":"sip-id-col-01","Status":"finished","ScheduleStartTime":"2026-11-20T08:00:00Z","ScheduleEndTime":"2026-11-20T20:00:00Z","RepeatInterval":30,"RepeatNumber":1,"detail":[`;
  return envelope(head, n, recordJson);
}

/**
 * The whole envelope of GET /service/cloud/detail for a task of `n` records whose Comments are each
 * about `bytes` of JSON text, most of it escapes (backslashes, line breaks, tabs, control
 * characters) and no quote: a reading whose cost grows with the escapes shows here.
 */
export function escapedTaskEnvelope(n, bytes, taskId = 'T-ESCAPED') {
  const piece = JSON.stringify('C:\\dir\\file\n\ttab\u0001 é\r\n').slice(1, -1);
  const head = `{"data":{"TaskID":"${taskId}","TaskName":"Escaped task","RobotMethod":"single","RobotID":"rb-1001","SIPLine":"sip-id-col-01","Status":"finished","ScheduleStartTime":"2026-11-20T08:00:00Z","ScheduleEndTime":"2026-11-20T20:00:00Z","RepeatInterval":30,"RepeatNumber":1,"detail":[`;
  const comments = piece.repeat(Math.ceil(bytes / Buffer.byteLength(piece)));
  return envelope(head, n, (i) => recordJson(i).replace('"Comments":""', `"Comments":"${comments}"`));
}

/** The whole envelope of POST /service/cloud/workflow/taskdetail for a task of `n` calls, as one Buffer. */
export function workflowTaskEnvelope(n, taskId = 'WT-LARGE') {
  const head = `{"data":{"task_id":"${taskId}","task_name":"Large workflow task","status":"finished","created_at":"2026-11-20 08:00:00","repeat_interval":30,"repeat_number":1,"robot_hash":"rb-1001","robot_method":"single","sip_line":"sip-id-col-01","schedule_start_time":"2026-11-20 08:00:00","schedule_end_time":"2026-11-20 20:00:00","workflow_id":"W-LARGE","workflow_name":"Collections","nodetask_id":"N-1","nodetask_name":"first call","details":[`;
  return envelope(head, n, workflowCallJson);
}
