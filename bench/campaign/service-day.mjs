// The service's side of a campaign day, run on a started sandbox: the contacts list updates bring
// are called in tasks of their workflow, pushed callers are called, and every call brings the
// notifications the spec describes (custom API push, template message status, chatbot session
// closed and transfer; the task end and plan end come from the sandbox's simulation), sent through
// the sandbox's notifier, which retries them as the spec says. The truth (truth.mjs) records every
// call and every attempt.
import { createHmac } from 'node:crypto';
import { z } from 'zod';
import { rngOf } from './faults.mjs';
import { callFacts, Truth } from './truth.mjs';

const SECOND = 1000;
const MINUTE = 60 * SECOND;
const isoSeconds = (ms) => new Date(ms).toISOString().slice(0, 19) + 'Z';
const share = z.number().min(0).max(1);

/** One workflow of the day: its contacts come by list updates and are called in tasks of `taskSize`. */
const dayWorkflow = z.strictObject({
  id: z.string().min(1),
  name: z.string().min(1).optional(),
  scenario: z.enum(['debt', 'telemarketing', 'info-check']).default('debt'),
  /** The custom API node that pushes each call's result. */
  nodeId: z.string().min(1).default('node-api-01'),
  /** Callees per calling task at most. */
  taskSize: z.number().int().min(1).default(500),
  /** Contacts waiting this long (simulated minutes) are called even when fewer than `taskSize`. */
  flushMinutes: z.number().positive().default(10),
  /** Simulated ms between two calls of a task (the task's lines work in parallel). */
  callSlotMs: z.number().int().min(1).default(1_000),
  /** Share of calls followed by a template message (its status callbacks: wait, send, delivery, read). */
  templateShare: share.default(0),
  /** Share of calls followed by a chatbot session closed; of transfers to an agent. */
  chatbotClosedShare: share.default(0),
  chatbotTransferShare: share.default(0),
});

/** The service's side of a day scenario (fixtures/campaign/*.json's `service`). */
export const dayScenario = z.object({
  name: z.string().min(1),
  workflows: z.array(dayWorkflow).default([]),
  plans: z
    .array(
      z.strictObject({
        name: z.string().min(1),
        rounds: z.number().int().min(1).max(20).default(2),
        calleeCount: z.number().int().min(1).default(20),
        roundIntervalMinutes: z.number().min(0).default(30),
        startInMinutes: z.number().min(0).default(2),
        callSlotMs: z.number().int().min(1).default(1_000),
      }),
    )
    .default([]),
  /** Pushed callers: each is called, and the call's result is pushed by this workflow's node. */
  pushes: z.strictObject({ workflowId: z.string().min(1), nodeId: z.string().min(1) }).optional(),
  /** Notification attempts under way at once at most (the sandbox's `notifyConcurrency`). */
  concurrency: z.number().int().min(1).default(64),
});

/** Template message states after a workflow call, in order (the spec does not give transitions). */
const TEMPLATE_STATES = ['wait', 'send', 'delivery', 'read'];

/**
 * Runs a day on a sandbox started with a `notifyUrl` (and `notifyConcurrency: scenario.concurrency`),
 * at once: call it right after startSandbox resolves. `chatbotSecret` is the sandbox's (default its
 * notifyKey). Returns `{ truth, flush(), progress(), close() }`.
 */
export function startDay(sandbox, input, { seed = 1, chatbotSecret = sandbox.notifyKey } = {}) {
  const scenario = dayScenario.parse(input);
  if (!sandbox.notifier) throw new RangeError('a day needs notifyUrl: its notifications go there');
  const { state, simulate, events, notifier } = sandbox;
  const rng = rngOf(seed ^ 0xda7);
  const truth = new Truth(events);
  const cursor = new Map();
  const contacts = new Map(); // the contacts of each day task, in the order of its callees
  const open = new Set();
  const waitingSince = new Map();
  let tasks = 0;
  let templatesUnderWay = 0;
  let closed = false;

  /** Puts the contacts received since the last task into tasks of `taskSize` (or fewer when due). */
  const take = (workflowId, all) => {
    const wf = scenario.workflows.find((w) => w.id === workflowId);
    if (!wf || closed) return;
    const entries = state.received.updates.get(workflowId)?.entries ?? [];
    let from = cursor.get(workflowId) ?? 0;
    const now = simulate.now();
    if (from < entries.length && !waitingSince.has(workflowId)) waitingSince.set(workflowId, now);
    const due = all || now - (waitingSince.get(workflowId) ?? now) >= wf.flushMinutes * MINUTE;
    while (entries.length - from >= wf.taskSize || (due && from < entries.length)) {
      const batch = entries.slice(from, from + wf.taskSize);
      from += batch.length;
      cursor.set(workflowId, from);
      waitingSince.delete(workflowId);
      const id = `T-DAY-${++tasks}`;
      contacts.set(id, { wf, entries: batch });
      open.add(id);
      simulate.createTask({
        id,
        name: `${wf.name ?? wf.id} #${tasks}`,
        scenario: wf.scenario,
        numbers: batch.map((e) => e.callee),
        startInMs: 0,
        callSlotMs: wf.callSlotMs,
      });
    }
  };

  /** A task finished: its calls are the truth, and each day call brings its notifications. */
  const finished = (taskId, planName) => {
    const model = state.tasks.get(taskId);
    const day = contacts.get(taskId);
    open.delete(taskId);
    model.task.detail.forEach((record, i) => {
      const entry = day?.entries[i];
      truth.call({
        kind: day ? 'workflow' : 'task',
        callId: record.CallID,
        callee: record.CalleeNumber,
        taskId,
        facts: callFacts(record),
        ...(day ? { workflowId: day.wf.id, ...(entry?.caseid ? { caseId: entry.caseid } : {}) } : {}),
        ...(planName ? { planName } : {}),
      });
      if (day && entry) notifyCall(day.wf, taskId, record, entry);
    });
    if (day?.wf.scenario === 'info-check') state.workflowTasks.set(model.task.TaskID, workflowTask(day.wf, model, day));
    if (day) contacts.delete(taskId);
  };

  const pushed = (push) => {
    truth.call({ kind: 'push', callId: push.call_id, callee: push.caller_id });
    const to = scenario.pushes;
    if (!to) return;
    const at = simulate.now();
    notifier.send({
      kind: 'workflow.api_push',
      body: apiPushBody({
        workflowId: to.workflowId,
        nodeId: to.nodeId,
        taskId: 'PUSH',
        callId: push.call_id,
        callee: push.caller_id,
        name: push.client_name ?? '',
        start: at,
        end: at + 40 * SECOND,
        answered: true,
        variables: Object.fromEntries(Object.entries(push.variables).map(([k, v]) => [k, String(v)])),
      }),
    });
  };

  const notifyCall = (wf, taskId, r, entry) => {
    notifier.send({
      kind: 'workflow.api_push',
      body: apiPushBody({
        workflowId: wf.id,
        nodeId: wf.nodeId,
        taskId,
        callId: r.CallID,
        callee: entry.callee,
        caseId: entry.caseid ?? '',
        name: entry.variables.name ?? r.CalleeName,
        platform: entry.platform,
        start: Date.parse(r.CallStartTime),
        end: Date.parse(r.CallEndTime),
        answered: r.RingType === 'normal',
        intention: r.Intention,
        ringType: r.RingType,
        hangupType: r.HangupType,
        variables: entry.variables,
      }),
    });
    if (rng.next() < wf.templateShare) template(wf, taskId, r, entry);
    const chat = rng.next();
    if (chat < wf.chatbotClosedShare) chatbot('chatbot.session_closed', r, entry);
    else if (chat < wf.chatbotClosedShare + wf.chatbotTransferShare) chatbot('chatbot.transfer', r, entry);
  };

  /** A template message's states, each sent once the one before it is settled, so they arrive in order. */
  const template = (wf, taskId, r, entry) => {
    templatesUnderWay++;
    const next = (i) => {
      if (closed) return;
      notifier.send({
        kind: 'template.status',
        body: templateBody(wf, taskId, r, entry, TEMPLATE_STATES[i]),
        settled: () => {
          if (i + 1 < TEMPLATE_STATES.length) next(i + 1);
          else templatesUnderWay--;
        },
      });
    };
    next(0);
  };

  /** A chatbot callback: the body's exact bytes and their X-Service-Sign (HMAC-SHA256, hex). */
  const chatbot = (kind, r, entry) => {
    const body = chatbotBody(kind, r, entry);
    const raw = JSON.stringify(body);
    const sign = createHmac('sha256', chatbotSecret).update(raw).digest('hex');
    notifier.send({ kind, body, raw, headers: { 'x-service-sign': sign } });
  };

  const now = simulate.now();
  for (const wf of scenario.workflows) {
    if (!state.workflows.has(wf.id))
      state.workflows.set(wf.id, {
        instance: {
          workflow_id: wf.id,
          name: wf.name ?? wf.id,
          template_name: 'Campaign day',
          start_time: isoSeconds(now),
          end_time: isoSeconds(now + 24 * 60 * MINUTE),
          total: 0,
          status: 'running',
          create_time: isoSeconds(now),
        },
        contacts: [],
        apiNodeId: wf.nodeId,
      });
    cursor.set(wf.id, 0);
  }
  // Listening first: a plan can come due, and end, inside createPlan (a loaded machine at a fast scale).
  events.on('workflow.updated', ({ workflowId }) => take(workflowId, false));
  events.on('task.finished', ({ task, planName }) => finished(task.TaskID, planName));
  events.on('push.received', pushed);
  for (const plan of scenario.plans)
    simulate.createPlan({
      name: plan.name,
      rounds: plan.rounds,
      calleeCount: plan.calleeCount,
      roundIntervalMinutes: plan.roundIntervalMinutes,
      startInMs: plan.startInMinutes * MINUTE,
      callSlotMs: plan.callSlotMs,
    });
  const every = Math.min(...scenario.workflows.map((w) => w.flushMinutes), 60) * MINUTE;
  const tick = setInterval(
    () => {
      for (const wf of scenario.workflows) take(wf.id, false);
    },
    Math.max(10, every / 2 / sandbox.timeScale),
  );
  tick.unref();

  return {
    truth,
    /** Calls every contact still waiting now, whatever its task's size. */
    flush() {
      for (const wf of scenario.workflows) take(wf.id, true);
    },
    /** What the day is doing: contacts waiting, day tasks calling, notifications under way. */
    progress() {
      let waiting = 0;
      for (const wf of scenario.workflows)
        waiting += (state.received.updates.get(wf.id)?.entries.length ?? 0) - (cursor.get(wf.id) ?? 0);
      return { waiting, calling: open.size, notifying: notifier.pending() + templatesUnderWay };
    },
    close() {
      closed = true;
      clearInterval(tick);
    },
  };
}

/** An information check's task as the workflow task detail serves it, from the same calls. */
function workflowTask(wf, { task: t, createdAt }, { entries }) {
  const space = (iso) => iso.replace('T', ' ').replace(/Z$/, '');
  return {
    task_id: t.TaskID,
    task_name: t.TaskName,
    status: t.Status,
    created_at: isoSeconds(createdAt),
    repeat_interval: t.RepeatInterval,
    repeat_number: t.RepeatNumber,
    robot_hash: t.RobotID,
    robot_method: t.RobotMethod,
    sip_line: t.SIPLine,
    schedule_start_time: t.ScheduleStartTime,
    schedule_end_time: t.ScheduleEndTime,
    workflow_id: wf.id,
    workflow_name: wf.name ?? wf.id,
    nodetask_id: `NT-${t.TaskID}`,
    nodetask_name: 'Information check call',
    details: t.detail.map((r, i) => ({
      id: r.id,
      callee: r.CalleeNumber,
      result: r.Status,
      result_label: r.EventLabel.final ?? '',
      duration: Math.max(0, (Date.parse(r.CallEndTime) - Date.parse(r.CallStartTime)) / SECOND - r.RingTime),
      hangup_type: r.HangupType,
      ring_type: r.RingType,
      question_answer: [],
      NerSlots: r.NerSlots,
      robot_hash: r.RobotID,
      call_id: r.CallID,
      call_times: r.CallTimes,
      call_start_time: space(r.CallStartTime),
      call_end_time: space(r.CallEndTime),
      ring_time: r.RingTime,
      talk_round: r.TalkRound,
      redail_call: r.RedailCall.map((d) => ({
        call_id: d.CallID,
        call_start_time: space(d.CallStartTime),
        ring_type: d.RingType,
        ring_time: d.RingTime,
        hangup_type: d.HangupType,
      })),
      intention_description: r.intention_description,
      EventLabel: r.EventLabel,
      caller_number: r.caller_number,
      case_id: entries[i]?.caseid ?? '',
    })),
  };
}

function templateBody(wf, taskId, r, entry, status) {
  return {
    workflow_id: wf.id,
    workflow_name: wf.name ?? wf.id,
    nodetask_id: `NT-${taskId}`,
    nodetask_name: 'Send template',
    waba_task_id: `WABA-${taskId}`,
    wfdetail_uuid: `WD-${r.CallID}`,
    timestamp: Math.floor(Date.now() / 1000),
    status,
    msg_id: `msg-${r.CallID}`,
    send_time: r.CallEndTime,
    waba_template_name: 'payment_reminder',
    waba_template_id: 2001,
    channel_id: 'CH-DAY',
    callee: entry.callee,
    variables: { name: entry.variables.name ?? '' },
  };
}

function chatbotBody(kind, r, entry) {
  const user = { id: `U-${entry.callee.slice(1)}`, name: entry.variables.name ?? r.CalleeName };
  const call_id = `S-${r.CallID}`;
  if (kind === 'chatbot.transfer')
    return {
      event: 'session.transfer',
      channel: 'whatsapp',
      channel_id: 'CH-DAY',
      user,
      call_id,
      company: 'Campaign day',
      conclusion: { record_slots: { reason: 'asked for an agent' }, output_label: 'transfer' },
    };
  const timestamp = Math.floor(Date.parse(r.CallEndTime) / 1000);
  const content = { type: 'text', text: 'Thank you.' };
  return {
    event: 'session.closed',
    call_id,
    channel: 'whatsapp',
    channel_id: 'CH-DAY',
    user,
    messages: [{ msg_id: `m-${r.CallID}`, timestamp, sender: 'robot', content }],
  };
}

/** A custom API node data push for one call (the spec's Events section). */
function apiPushBody(c) {
  return {
    workflow_id: c.workflowId,
    workflow_name: c.workflowId,
    node_id: c.nodeId,
    node_name: 'Push result to CRM',
    callee: {
      case_id: c.caseId ?? '',
      callee_name: c.name,
      callee_gender: '',
      callee_number: c.callee,
      platform_name: c.platform ?? '',
      extra_a: '',
      extra_b: '',
      extra_c: '',
      comments: '',
      borrowed_date: '',
      due_date: '',
      borrowed_amount: '',
      total_owing_amount: '',
      currency_unit: '',
      extra: [],
      extend: { variables: c.variables },
    },
    custom_attribute: { source: 'campaign-day' },
    call: {
      task_id: c.taskId,
      call_id: c.callId,
      call_start_time: isoSeconds(c.start),
      call_end_time: isoSeconds(c.end),
      call_times: 1,
      ring_type: c.ringType ?? (c.answered ? 'normal' : 'busy'),
      hangup_type: c.hangupType ?? (c.answered ? 'ByRobot' : 'Canceled'),
      intention: c.intention ?? (c.answered ? 'A' : 'F'),
      slots: '{}',
      multi_label: {},
      asr_ptp: '',
      asr_result: [],
    },
  };
}
