/**
 * A campaign day on the simulated clock: the contacts list updates bring are called in tasks of
 * their workflow, pushed callers are called, and every call brings the notifications the spec
 * describes (custom API push, template message status, chatbot session closed and transfer; the
 * task end and plan end come from the simulation), sent through the notifier, which retries them
 * as the spec says. The truth (truth.ts) records every call and every attempt.
 */
import { MINUTE, SECOND, isoSeconds } from './clock.js';
import type { Notifier } from './notifier.js';
import { chatbotNotification, taskHead } from './notify-bodies.js';
import type { Rng } from './random.js';
import type { ListEntry, CallRecord, WorkflowCallDetail } from './spec/shapes.js';
import type { ReceivedPush, SandboxState, TaskModel } from './state.js';
import type { Simulator } from './simulator.js';
import { callFacts, type Truth } from './truth.js';
import type { DayProgress, DayRun, SandboxEvents } from './types.js';
import type { DayScenario } from './day-scenario.js';

/** Template message states after a workflow call, in order (the spec does not give transitions). */
const TEMPLATE_STATES = ['wait', 'send', 'delivery', 'read'] as const;

export interface DayParts {
  state: SandboxState;
  simulate: Simulator;
  events: SandboxEvents;
  notifier: Notifier;
  truth: Truth;
  rng: Rng;
  /** Secret of the chatbot callbacks' X-Service-Sign. */
  chatbotSecret: string;
  /** Real ms from simulated ms. */
  toReal: (simMs: number) => number;
}

export class Day implements DayRun {
  private readonly cursor = new Map<string, number>();
  /** Contacts of each day task, in the order of its callees. */
  private readonly contacts = new Map<string, { wf: DayScenario['workflows'][number]; entries: ListEntry[] }>();
  private readonly open = new Set<string>();
  private readonly timers = new Set<NodeJS.Timeout>();
  private tasks = 0;
  private templatesUnderWay = 0;
  private closed = false;
  private readonly waitingSince = new Map<string, number>();

  constructor(
    private readonly scenario: DayScenario,
    private readonly p: DayParts,
  ) {}

  start(): void {
    const { state, simulate, events } = this.p;
    const now = simulate.now();
    for (const wf of this.scenario.workflows) {
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
      this.cursor.set(wf.id, 0);
    }
    // Listening first: a plan can come due, and end, inside createPlan (a loaded machine at a fast scale).
    events.on('workflow.updated', ({ workflowId }) => this.take(workflowId, false));
    events.on('task.finished', ({ task, planName }) => this.finished(task.TaskID, planName));
    events.on('push.received', (push) => this.pushed(push));
    for (const plan of this.scenario.plans)
      simulate.createPlan({
        name: plan.name,
        rounds: plan.rounds,
        calleeCount: plan.calleeCount,
        roundIntervalMinutes: plan.roundIntervalMinutes,
        startInMs: plan.startInMinutes * MINUTE,
        callSlotMs: plan.callSlotMs,
      });
    const every = Math.min(...this.scenario.workflows.map((w) => w.flushMinutes), 60) * MINUTE;
    const tick = setInterval(
      () => {
        for (const wf of this.scenario.workflows) this.take(wf.id, false);
      },
      Math.max(10, this.p.toReal(every / 2)),
    );
    tick.unref();
    this.timers.add(tick);
  }

  /** Calls every contact still waiting now, whatever its task's size. */
  flush(): void {
    for (const wf of this.scenario.workflows) this.take(wf.id, true);
  }

  progress(): DayProgress {
    let waiting = 0;
    for (const wf of this.scenario.workflows) {
      const received = this.p.state.received.updates.get(wf.id)?.entries.length ?? 0;
      waiting += received - (this.cursor.get(wf.id) ?? 0);
    }
    return { waiting, calling: this.open.size, notifying: this.p.notifier.pending() + this.templatesUnderWay };
  }

  close(): void {
    this.closed = true;
    for (const t of this.timers) clearTimeout(t);
    this.timers.clear();
  }

  /** Puts the contacts received since the last task into tasks of `taskSize` (or fewer when due). */
  private take(workflowId: string, all: boolean): void {
    const wf = this.scenario.workflows.find((w) => w.id === workflowId);
    if (!wf || this.closed) return;
    const entries = this.p.state.received.updates.get(workflowId)?.entries ?? [];
    let from = this.cursor.get(workflowId) ?? 0;
    const now = this.p.simulate.now();
    if (from < entries.length && !this.waitingSince.has(workflowId)) this.waitingSince.set(workflowId, now);
    const due = all || now - (this.waitingSince.get(workflowId) ?? now) >= wf.flushMinutes * MINUTE;
    while (entries.length - from >= wf.taskSize || (due && from < entries.length)) {
      const batch = entries.slice(from, from + wf.taskSize);
      from += batch.length;
      this.cursor.set(workflowId, from);
      this.waitingSince.delete(workflowId);
      const id = `T-DAY-${++this.tasks}`;
      this.contacts.set(id, { wf, entries: batch });
      this.open.add(id);
      this.p.simulate.createTask({
        id,
        name: `${wf.name ?? wf.id} #${this.tasks}`,
        scenario: wf.scenario,
        numbers: batch.map((e) => e.callee),
        startInMs: 0,
        callSlotMs: wf.callSlotMs,
      });
    }
  }

  /** A task finished: its calls are the truth, and each day call brings its notifications. */
  private finished(taskId: string, planName?: string): void {
    const model = this.p.state.tasks.get(taskId) as TaskModel;
    const day = this.contacts.get(taskId);
    this.open.delete(taskId);
    model.task.detail.forEach((record, i) => {
      const entry = day?.entries[i];
      this.p.truth.call({
        kind: day ? 'workflow' : 'task',
        callId: record.CallID,
        callee: record.CalleeNumber,
        taskId,
        facts: callFacts(record),
        ...(day ? { workflowId: day.wf.id, ...(entry?.caseid ? { caseId: entry.caseid } : {}) } : {}),
        ...(planName ? { planName } : {}),
      });
      if (day && entry) this.notifyCall(day.wf, taskId, record, entry);
    });
    if (day?.wf.scenario === 'info-check') this.workflowTask(day.wf, model, day.entries);
    if (day) this.contacts.delete(taskId);
  }

  /** An information check's task as the workflow task detail serves it, from the same calls. */
  private workflowTask(wf: DayScenario['workflows'][number], model: TaskModel, entries: ListEntry[]): void {
    const t = model.task;
    const space = (iso: string) => iso.replace('T', ' ').replace(/Z$/, '');
    this.p.state.workflowTasks.set(t.TaskID, {
      ...taskHead(t, isoSeconds(model.createdAt)),
      workflow_id: wf.id,
      workflow_name: wf.name ?? wf.id,
      nodetask_id: `NT-${t.TaskID}`,
      nodetask_name: 'Information check call',
      details: t.detail.map((r, i): WorkflowCallDetail => ({
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
    });
  }

  private pushed(push: ReceivedPush): void {
    this.p.truth.call({ kind: 'push', callId: push.call_id, callee: push.caller_id });
    const to = this.scenario.pushes;
    if (!to) return;
    const at = this.p.simulate.now();
    this.p.notifier.send({
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
  }

  private notifyCall(wf: DayScenario['workflows'][number], taskId: string, r: CallRecord, entry: ListEntry): void {
    const { notifier, rng } = this.p;
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
    if (rng.next() < wf.templateShare) this.template(wf, taskId, r, entry);
    const chat = rng.next();
    if (chat < wf.chatbotClosedShare) this.chatbot('chatbot.session_closed', r, entry);
    else if (chat < wf.chatbotClosedShare + wf.chatbotTransferShare) this.chatbot('chatbot.transfer', r, entry);
  }

  /** A template message's states, each sent once the one before it is settled, so they arrive in order. */
  private template(wf: DayScenario['workflows'][number], taskId: string, r: CallRecord, entry: ListEntry): void {
    this.templatesUnderWay++;
    const next = (i: number) => {
      if (this.closed) return;
      const status = TEMPLATE_STATES[i] as string;
      const body = {
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
      this.p.notifier.send({
        kind: 'template.status',
        body,
        settled: () => {
          if (i + 1 < TEMPLATE_STATES.length) next(i + 1);
          else this.templatesUnderWay--;
        },
      });
    };
    next(0);
  }

  private chatbot(kind: 'chatbot.session_closed' | 'chatbot.transfer', r: CallRecord, entry: ListEntry): void {
    const user = { id: `U-${entry.callee.slice(1)}`, name: entry.variables.name ?? r.CalleeName };
    const at = Math.floor(Date.parse(r.CallEndTime) / 1000);
    const body =
      kind === 'chatbot.session_closed'
        ? {
            event: 'session.closed',
            call_id: `S-${r.CallID}`,
            channel: 'whatsapp',
            channel_id: 'CH-DAY',
            user,
            messages: [
              {
                msg_id: `m-${r.CallID}`,
                timestamp: at,
                sender: 'robot',
                content: { type: 'text', text: 'Thank you.' },
              },
            ],
          }
        : {
            event: 'session.transfer',
            channel: 'whatsapp',
            channel_id: 'CH-DAY',
            user,
            call_id: `S-${r.CallID}`,
            company: 'Campaign day',
            conclusion: { record_slots: { reason: 'asked for an agent' }, output_label: 'transfer' },
          };
    this.p.notifier.send(chatbotNotification(kind, body, this.p.chatbotSecret));
  }
}

interface ApiPushCall {
  workflowId: string;
  nodeId: string;
  taskId: string;
  callId: string;
  callee: string;
  caseId?: string;
  name: string;
  platform?: string;
  start: number;
  end: number;
  answered: boolean;
  intention?: string;
  ringType?: string;
  hangupType?: string;
  variables: Record<string, string>;
}

/** A custom API node data push for one call (the spec's Events section). */
function apiPushBody(c: ApiPushCall): Record<string, unknown> {
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
