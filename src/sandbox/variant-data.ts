import type { Variants } from './variants.js';

/**
 * odd-values and optional-missing: what the read endpoints serve, bent on the way out (the model
 * itself is never changed). Items of a list are bent in turn (index mod 3: an odd value, an empty
 * string or absent, left as it is), so one odd record sits among ordinary ones.
 */

type ServedKind = 'robots' | 'task' | 'plan-status' | 'plan-detail' | 'instances' | 'workflow-task' | 'verify-push';

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

/**
 * A bend: where (a path of fields from the served data, `[]` for each item of a list, '' the data
 * itself), which field, and what it gets. In a list, by the item's index mod 3: odd-values gives
 * 0 the value, 1 an empty string, 2 nothing; `drop` makes the field 0 absent, 1 null, 2 as it is.
 * Outside a list the value is given as is, and `delete` and `null` apply to every item.
 */
type Bend = [path: string, field: string, what: string];

const V = ODD_VALUES;
const ODD: Record<ServedKind, Bend[]> = {
  robots: [
    ['[]', 'Tone', V.Tone],
    ['[]', 'Voice', V.Voice],
  ],
  task: [
    ['', 'Status', V.TaskStatus],
    ['detail[]', 'RingType', V.RingType],
    ['detail[]', 'HangupType', V.HangupType],
    ['detail[].RedailCall[]', 'RingType', V.RingType],
  ],
  'plan-status': [['', 'PlanStatus', V.PlanStatus]],
  'plan-detail': [['PlanDetails[]', 'Status', V.TaskStatus]],
  instances: [['lists[]', 'status', V.WorkflowStatus]],
  'workflow-task': [
    ['', 'status', V.TaskStatus],
    ['details[]', 'ring_type', V.RingType],
    ['details[]', 'hangup_type', V.HangupType],
    ['details[].question_answer[]', 'status', V.QaStatus],
    ['details[].question_answer[]', 'question_type', V.QuestionType],
    ['details[].question_answer[]', 'whether_answer', V.WhetherAnswer],
  ],
  'verify-push': [
    ['call', 'ring_type', V.RingType],
    ['call', 'hangup_type', ''],
  ],
};

const drop = (path: string, fields: string[]): Bend[] => fields.map((f) => [path, f, 'drop']);

/** Fields the spec marks optional (`Required: no`) or gives no required mark. */
const MISSING: Record<ServedKind, Bend[]> = {
  robots: drop('[]', ['RobotName', 'RobotDescription', 'Link', 'Tone']),
  task: drop('detail[]', [
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
  ]),
  instances: [['lists[]', 'start_time', 'null'], ...drop('lists[]', ['end_time'])],
  'workflow-task': drop('details[]', [
    'result_label',
    'question_answer',
    'NerSlots',
    'redail_call',
    'EventLabel',
    'case_id',
    'duration',
  ]),
  'verify-push': [
    ['call', 'task_id', 'delete'],
    ['call', 'call_id', 'null'],
    ['call', 'asr_result', 'delete'],
    ['call', 'multi_label', 'null'],
    ['callee', 'extra', 'delete'],
    ['callee', 'extend', 'null'],
  ],
  'plan-status': [],
  'plan-detail': [],
};

/** Serves `data` of `kind` as the variants in force want it. */
export function served<T>(v: Variants, kind: ServedKind, data: T): T {
  const odd = v.has('odd-values');
  const missing = v.has('optional-missing');
  if (!odd && !missing) return data;
  const out = structuredClone(data) as unknown;
  for (const [path, field, what] of [...(odd ? ODD[kind] : []), ...(missing ? MISSING[kind] : [])]) {
    for (const [item, i] of objectsAt(out, path)) {
      const step = i === undefined || what === 'delete' || what === 'null' ? 0 : i % 3;
      if (step === 2) continue;
      if (what === 'drop' ? step === 0 : what === 'delete') delete item[field];
      else item[field] = what === 'drop' || what === 'null' ? null : step === 0 ? what : '';
    }
  }
  return out as T;
}

/** The objects a bend's path leads to, each with its index in the innermost list on the way. */
function objectsAt(data: unknown, path: string): Array<[Json, number | undefined]> {
  let at: Array<[unknown, number | undefined]> = [[data, undefined]];
  for (const step of path.split('.').filter(Boolean)) {
    const key = step.replace(/\[\]$/, '');
    at = at.flatMap(([value]): Array<[unknown, number | undefined]> => {
      const next = key ? (value as Json | null | undefined)?.[key] : value;
      if (!step.endsWith('[]')) return [[next, undefined]];
      return Array.isArray(next) ? next.map((item, i): [unknown, number] => [item, i]) : [];
    });
  }
  return at.filter((e): e is [Json, number | undefined] => typeof e[0] === 'object' && e[0] !== null);
}
