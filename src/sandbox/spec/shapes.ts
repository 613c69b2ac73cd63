/**
 * The service's resources as the sandbox serves them, written from the spec
 * (../shared/spec/service-interface.md, "Resources and their fields"), not from the client.
 * These are the shapes the sandbox SENDS: the spec's value lists are used strictly here, and
 * variants (variants.ts) bend them on the way out. The records with many fields (call records,
 * workflow call details, API pushes) take their types from their builders, seed/records.ts.
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
