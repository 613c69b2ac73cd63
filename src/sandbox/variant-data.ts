import type { Variants } from './variants.js';

/**
 * odd-values and optional-missing: what the read endpoints serve, bent on the way out (the model
 * itself is never changed). Items of a list are bent in turn (index mod 3: an odd value, an empty
 * string or absent, left as it is), so one odd record sits among ordinary ones.
 */

/** What a read endpoint serves. */
export type ServedKind =
  'robots' | 'task' | 'plan-status' | 'plan-detail' | 'instances' | 'workflow-task' | 'verify-push';

type Json = Record<string, unknown>;

/** Values outside the spec's lists (one per enumerated field). */
export const ODD_VALUES = {
  Tone: 'Cheerful',
  Voice: 'robotic',
  RobotMethod: 'cluster',
  TaskStatus: 'archived',
  PlanStatus: 'suspended',
  WorkflowStatus: 'running',
  RingType: 'ringback',
  HangupType: 'ByNetwork',
  QaStatus: 'Pending',
  QuestionType: 'choice',
  WhetherAnswer: 'Unclear',
} as const;

/** Serves `data` of `kind` as the variants in force want it. */
export function served<T>(v: Variants, kind: ServedKind, data: T): T {
  const odd = v.has('odd-values');
  const missing = v.has('optional-missing');
  if (!odd && !missing) return data;
  const out = structuredClone(data) as unknown;
  if (odd) oddValues(kind, out);
  if (missing) optionalMissing(kind, out);
  return out as T;
}

/** index mod 3: 0 an odd value, 1 an empty string, 2 unchanged. */
function pick(i: number, odd: string): string | undefined {
  return i % 3 === 0 ? odd : i % 3 === 1 ? '' : undefined;
}

function setEach(items: unknown, field: string, odd: string): void {
  if (!Array.isArray(items)) return;
  items.forEach((item: Json, i) => {
    const value = pick(i, odd);
    if (value !== undefined && item && typeof item === 'object') item[field] = value;
  });
}

function oddValues(kind: ServedKind, data: unknown): void {
  const d = data as Json;
  switch (kind) {
    case 'robots':
      setEach(data, 'Tone', ODD_VALUES.Tone);
      setEach(data, 'Voice', ODD_VALUES.Voice);
      return;
    case 'task':
      d.Status = ODD_VALUES.TaskStatus;
      setEach(d.detail, 'RingType', ODD_VALUES.RingType);
      setEach(d.detail, 'HangupType', ODD_VALUES.HangupType);
      for (const r of (d.detail as Json[] | undefined) ?? []) setEach(r.RedailCall, 'RingType', ODD_VALUES.RingType);
      return;
    case 'plan-status':
      d.PlanStatus = ODD_VALUES.PlanStatus;
      return;
    case 'plan-detail':
      setEach(d.PlanDetails, 'Status', ODD_VALUES.TaskStatus);
      return;
    case 'instances':
      setEach(d.lists, 'status', ODD_VALUES.WorkflowStatus);
      return;
    case 'workflow-task':
      d.status = ODD_VALUES.TaskStatus;
      setEach(d.details, 'ring_type', ODD_VALUES.RingType);
      setEach(d.details, 'hangup_type', ODD_VALUES.HangupType);
      for (const c of (d.details as Json[] | undefined) ?? []) {
        setEach(c.question_answer, 'status', ODD_VALUES.QaStatus);
        setEach(c.question_answer, 'question_type', ODD_VALUES.QuestionType);
        setEach(c.question_answer, 'whether_answer', ODD_VALUES.WhetherAnswer);
      }
      return;
    case 'verify-push': {
      const call = d.call as Json | undefined;
      if (call) {
        call.ring_type = ODD_VALUES.RingType;
        call.hangup_type = '';
      }
      return;
    }
  }
}

/** index mod 3: 0 absent, 1 null, 2 unchanged. */
function dropEach(items: unknown, fields: readonly string[]): void {
  if (!Array.isArray(items)) return;
  items.forEach((item: Json, i) => {
    if (!item || typeof item !== 'object' || i % 3 === 2) return;
    for (const f of fields) {
      if (i % 3 === 0) delete item[f];
      else item[f] = null;
    }
  });
}

/** Fields the spec marks optional (`Required: no`) or gives no required mark. */
function optionalMissing(kind: ServedKind, data: unknown): void {
  const d = data as Json;
  switch (kind) {
    case 'robots':
      dropEach(data, ['RobotName', 'RobotDescription', 'Link', 'Tone']);
      return;
    case 'task':
      dropEach(d.detail, [
        'CalleeName',
        'CalleeGender',
        'Comments',
        'AsrResult',
        'EventLabel',
        'RedailCall',
        'NerSlots',
        'call_notes',
        'ExtraA',
        'BorrowedDate',
        'RingTime',
      ]);
      return;
    case 'instances':
      for (const w of (d.lists as Json[] | undefined) ?? []) w.start_time = null;
      dropEach(d.lists, ['end_time']);
      return;
    case 'workflow-task':
      dropEach(d.details, [
        'result_label',
        'question_answer',
        'NerSlots',
        'redail_call',
        'EventLabel',
        'case_id',
        'duration',
      ]);
      return;
    case 'verify-push': {
      const call = d.call as Json | undefined;
      if (call) {
        delete call.task_id;
        call.call_id = null;
        delete call.asr_result;
        call.multi_label = null;
      }
      const callee = d.callee as Json | undefined;
      if (callee) {
        delete callee.extra;
        callee.extend = null;
      }
      return;
    }
    case 'plan-status':
    case 'plan-detail':
      return;
  }
}
