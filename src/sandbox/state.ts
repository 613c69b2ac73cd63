import type { Robot, TaskStatus, PlanStatus, ListEntry, WorkflowInstance } from './spec/shapes.js';
import type { ApiPushData, CallRecord, WorkflowCallDetail } from './seed/records.js';
import type { Callee, Scenario } from './seed/people.js';

/** The task detail endpoint's `data`. */
export interface CallingTask {
  TaskID: string;
  TaskName: string;
  RobotMethod: string;
  RobotID: string;
  SIPLine: string;
  Status: TaskStatus;
  ScheduleStartTime: string;
  ScheduleEndTime: string;
  RepeatInterval: number;
  RepeatNumber: number;
  detail: CallRecord[];
}

/** The workflow outbound task details endpoint's `data` (snake_case task fields plus workflow fields). */
export interface WorkflowTaskDetail {
  task_id: string;
  task_name: string;
  status: string;
  created_at: string;
  repeat_interval: number;
  repeat_number: number;
  robot_hash: string;
  robot_method: string;
  sip_line: string;
  schedule_start_time: string;
  schedule_end_time: string;
  workflow_id: string;
  workflow_name: string;
  nodetask_id: string;
  nodetask_name: string;
  details: WorkflowCallDetail[];
}

/** A calling task: what GET /service/cloud/detail serves, plus what the simulator needs. */
export interface TaskModel {
  /** Served as is (the spec's calling task). */
  task: CallingTask;
  scenario: Scenario;
  callees: Callee[];
  callerNumber: string;
  createdAt: number;
  planName?: string;
  round?: number;
  /** Simulated time the task started calling (default: its ScheduleStartTime). */
  callingSince?: number;
  /** Simulated time between two of its calls (default CALL_SLOT_MS, one line; less: several lines). */
  callSlotMs?: number;
  /** Simulated time (epoch ms) of the next status change, and that status; none when at rest. */
  next?: { at: number; status: CallingTask['Status'] };
}

/** A plan: rounds are tasks named by the plan name plus a round suffix (`PLAN-A-R1`). */
export interface PlanModel {
  PlanName: string;
  PlanStatus: PlanStatus;
  /** TaskIDs of the rounds, in order. */
  rounds: string[];
  /** Simulated minutes between a round's end and the next round's start. */
  roundIntervalMinutes: number;
}

/** A workflow: the served instance, its seeded contacts and node ids. */
export interface WorkflowModel {
  instance: WorkflowInstance;
  contacts: ListEntry[];
  apiNodeId?: string;
}

/** A seeded custom API push (for verify-push), with when it was pushed (simulated ms). */
export interface SeededApiPush {
  pushedAt: number;
  data: ApiPushData;
}

/** What updatedetails accepted for one workflow, in arrival order (duplicates kept). */
export interface ReceivedUpdates {
  entries: ListEntry[];
  /** Entries accepted so far (equals entries.length unless `keepEntries` is off). */
  count: number;
  batches: number;
  /** Keys of the contacts known so far, kept only while a count-matched/new variant needs them. */
  keys?: Set<string>;
  /** `count` when `keys` was last brought up to date. */
  keysAt?: number;
}

/** A direct call push the sandbox received. */
export interface ReceivedPush {
  id: number;
  environment: 'live' | 'test';
  caller_id: string;
  client_name?: string;
  variables: Record<string, unknown>;
  trace_id: string;
  call_id: string;
  receivedAt: number;
}

/** A template message the sandbox received (POST /api/v1/template/unitcast). */
export interface ReceivedTemplate {
  request_id: string;
  task_id: string;
  template_id: number;
  timestamp: number;
  channel: string;
  channel_id: string;
  user_id: string;
  variable: { date: string; name: string } & Record<string, unknown>;
  custom: string;
  reply_url: string;
  receivedAt: number;
}

/** Counts the tests can assert on. */
export interface Counters {
  /** Every non-admin request received, answered or not. */
  requests: number;
  /** Requests by `METHOD /path` (query excluded; push tokens replaced by `<token>`). */
  byRoute: Record<string, number>;
  faults: Record<string, number>;
  tokensIssued: number;
  batchesAccepted: number;
  entriesAccepted: number;
}

/** The sandbox's in-memory model: seeded resources and everything received. */
export interface SandboxState {
  robots: Robot[];
  tasks: Map<string, TaskModel>;
  plans: Map<string, PlanModel>;
  /** Workflow instances, newest first (the list's order). */
  workflows: Map<string, WorkflowModel>;
  workflowTasks: Map<string, WorkflowTaskDetail>;
  apiPushes: SeededApiPush[];
  received: {
    updates: Map<string, ReceivedUpdates>;
    pushes: ReceivedPush[];
    templates: ReceivedTemplate[];
  };
  counters: Counters;
  /** Sequences for ids the sandbox hands out (call records, created tasks, pushes). */
  ids: { record: number; task: number; push: number; template: number };
}

export function emptyState(): SandboxState {
  return {
    robots: [],
    tasks: new Map(),
    plans: new Map(),
    workflows: new Map(),
    workflowTasks: new Map(),
    apiPushes: [],
    received: { updates: new Map(), pushes: [], templates: [] },
    counters: { requests: 0, byRoute: {}, faults: {}, tokensIssued: 0, batchesAccepted: 0, entriesAccepted: 0 },
    ids: { record: 100_000, task: 0, push: 0, template: 0 },
  };
}

/** A plan as the plan endpoints show it. */
export function planView(state: SandboxState, plan: PlanModel) {
  return {
    PlanName: plan.PlanName,
    PlanStatus: plan.PlanStatus,
    PlanDetails: plan.rounds.map((id, i) => {
      const t = state.tasks.get(id)?.task;
      return { Rounds: String(i + 1), TaskName: t?.TaskName ?? '', TaskID: id, Status: t?.Status ?? 'created' };
    }),
  };
}
export type PlanView = ReturnType<typeof planView>;

export function planStatusOf(rounds: TaskStatus[]): PlanStatus {
  if (rounds.every((s) => s === 'finished' || s === 'canceled'))
    return rounds.every((s) => s === 'canceled') ? 'canceled' : 'finished';
  if (rounds.some((s) => s === 'calling' || s === 'finished' || s === 'paused')) return 'calling';
  return 'planned';
}
