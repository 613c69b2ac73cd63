/**
 * The service's resources as the sandbox serves them, written from the spec
 * (../shared/spec/service-interface.md, "Resources and their fields"), not from the client.
 * These are the shapes the sandbox SENDS: the spec's value lists are used strictly here, and
 * variants (variants.ts) bend them on the way out.
 */

/** Ring type values (spec: "Ring type values"). */
export const RING_TYPES = [
  'busy',
  'cantuse',
  'holdline',
  'switchoff',
  'outofarea',
  'unregister',
  'wrongnum',
  'notmatch',
  'normal',
  'null',
] as const;
export type RingType = (typeof RING_TYPES)[number];

/** Hangup type values (spec: "Hangup type values"). */
export const HANGUP_TYPES = ['ByCallee', 'ByRobot', 'Canceled'] as const;
export type HangupType = (typeof HANGUP_TYPES)[number];

/** Calling task `Status` (spec: "States and transitions"). */
export const TASK_STATUSES = ['created', 'pending', 'finished', 'calling', 'canceled', 'paused'] as const;
export type TaskStatus = (typeof TASK_STATUSES)[number];

/** Plan `PlanStatus`. */
export const PLAN_STATUSES = ['planned', 'calling', 'finished', 'canceled'] as const;
export type PlanStatus = (typeof PLAN_STATUSES)[number];

/** Template message `status` in its callback. */
export const TEMPLATE_STATUSES = ['wait', 'send', 'delivery', 'read', 'replied', 'failed'] as const;
export type TemplateStatus = (typeof TEMPLATE_STATUSES)[number];

/** Robot `Tone` and `Voice` values. */
export const TONES = ['Polite', 'Natural', 'Pressing', 'Harsh', 'Fierce'] as const;
export const VOICES = ['male', 'female'] as const;

/** `YYYY-MM-DDTHH:MM:SSZ`, the spec's time format for most fields. */
export const ISO_TIME_RE = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/;

/** Item of the robot list's `data`. */
export interface Robot {
  RobotMethod: 'single' | 'group';
  RobotID: string;
  RobotName?: string | null;
  RobotDescription?: string | null;
  Link?: string | null;
  Tone?: (typeof TONES)[number] | null;
  /** "an empty value can occur" */
  Voice: (typeof VOICES)[number] | '';
}

/** Item of a call record's `AsrResult`. */
export interface AsrEntry {
  time: string;
  robottext: string;
  text: string;
}

/** Item of a call record's `RedailCall`. */
export interface RedialCall {
  CallID: string;
  CallStartTime: string;
  RingType: RingType;
  RingTime: number;
  HangupType: HangupType;
  ResultLabel: string;
  caller_number: string;
  callee_number: string;
}

/** One call record of a calling task's `detail` (the 32 fields the spec shows). */
export interface CallRecord {
  id: number;
  RobotID: string;
  CalleeName: string;
  CalleeGender: string;
  CalleeNumber: string;
  CallStartTime: string;
  CallEndTime: string;
  Status: string;
  Intention: string;
  intention_description: string;
  CallID: string;
  CallTimes: number;
  Comments: string;
  BorrowedDate: string;
  DueDate: string;
  BorrowedAmount: string;
  TotalOwingAmount: string;
  CurrencyUnit: string;
  PlatformName: string;
  RingType: RingType;
  HangupType: HangupType;
  ExtraA: string;
  ExtraB: string;
  ExtraC: string;
  AsrResult: AsrEntry[];
  EventLabel: Record<string, string>;
  RingTime: number;
  TalkRound: number;
  RedailCall: RedialCall[];
  NerSlots: Record<string, string>;
  call_notes: string;
  caller_number: string;
}

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

/** Item of the workflow instance list's `data.lists`. */
export interface WorkflowInstance {
  workflow_id: string;
  name: string;
  template_name: string;
  start_time: string | null;
  end_time: string;
  total: number;
  /** "values seen: cancelled, finished; other values unknown" */
  status: string;
  create_time: string;
}

/** A workflow list entry (contact), as the list update receives it. */
export interface ListEntry {
  callee: string;
  platform: string;
  caseid?: string;
  variables: Record<string, string>;
  pds_variables?: Record<string, unknown> | string;
}

/** Question-answer record of information-check calls: all strings. */
export interface QuestionAnswer {
  question_name: string;
  answer: string;
  answer_text: string;
  status: string;
  answer_text_slot: string;
  var: string;
  verification_results: string;
  question_content: string;
  question_type: string;
  whether_answer: string;
}

/** Entry of the workflow call-task detail's `details`. */
export interface WorkflowCallDetail {
  id: number;
  callee: string;
  result: string;
  result_label: string;
  duration: number;
  hangup_type: HangupType;
  ring_type: RingType;
  question_answer: QuestionAnswer[];
  NerSlots: Record<string, string>;
  robot_hash: string;
  call_id: string;
  call_times: number;
  call_start_time: string;
  /** `YYYY-MM-DD HH:MM:SS` */
  call_end_time: string;
  ring_time: number;
  talk_round: number;
  redail_call: Array<Record<string, unknown>>;
  intention_description: string;
  EventLabel: Record<string, string>;
  caller_number: string;
  case_id: string;
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

/** The custom API node data push body (Events), `call` with `robot_id` as verification serves it. */
export interface ApiPushData {
  workflow_id: string;
  workflow_name: string;
  node_id: string;
  node_name: string;
  callee: {
    case_id: string;
    callee_name: string;
    callee_gender: string;
    callee_number: string;
    platform_name: string;
    extra_a: string;
    extra_b: string;
    extra_c: string;
    comments: string;
    borrowed_date: string;
    due_date: string;
    borrowed_amount: string;
    total_owing_amount: string;
    currency_unit: string;
    extra: Array<{ Content: string; Question: string }>;
    extend: { variables: Record<string, string> };
    location?: string;
  };
  custom_attribute: Record<string, string>;
  call: {
    task_id: string;
    call_id: string;
    call_start_time: string;
    call_end_time: string;
    call_times: number;
    ring_type: RingType;
    hangup_type: HangupType;
    intention: string;
    slots: string;
    multi_label: Record<string, unknown>;
    asr_ptp: string;
    asr_result: AsrEntry[];
    robot_id?: string;
  };
}
