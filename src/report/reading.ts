import type { CallRecord } from '../schemas/task.js';
import type { QuestionAnswer, WorkflowCallDetail } from '../schemas/workflow.js';

/**
 * How a report reads the spec's call fields: the one place where the spec's gaps are filled for
 * campaign numbers (docs/reports.md, "How report numbers are computed", says the same in words, and
 * READINGS below on every report page).
 *
 * The spec lists ring types (`normal`, `busy`, `null`, ...) and hangup types (`ByCallee`,
 * `ByRobot`, `Canceled`) but not what they mean, and gives no values for a call record's
 * `Status`. The readings:
 * - called: the record has a call start time, or `CallTimes` (`call_times`) above 0.
 * - connected: `RingType` is `normal` (the only ring type that is not a failure to reach), or the
 *   call has at least one talk round (a conversation took place whatever the ring type says).
 * - no answer: called and not connected. busy: called with ring type `busy`.
 * - finished: connected and hung up by the robot (`ByRobot`: the robot reached the end of its
 *   script); hung up by the callee is counted apart.
 * - call duration: connected calls only; a task's record gives `CallEndTime - CallStartTime`
 *   (which includes the ring), a workflow detail gives `duration`, read as seconds.
 * - talk rounds: `TalkRound` (`talk_round`) of connected calls.
 * Values outside the spec's lists are counted as themselves; an empty value is `(empty)` and a
 * missing one `(none)`.
 */
export interface CallView {
  called: boolean;
  connected: boolean;
  status: string;
  intention: string;
  description?: string;
  /** The final label: `EventLabel.final` of a task's record, `result_label` of a workflow detail. */
  label: string;
  ringType: string;
  hangupType: string;
  talkRounds?: number;
  /** Seconds. */
  duration?: number;
  /** When the call started (ms since the epoch), when the record says. */
  start?: number;
  redials: Array<{ ringType: string; label: string }>;
  questions?: readonly QuestionAnswer[];
}

export const EMPTY = '(empty)';
export const NONE = '(none)';

/**
 * The readings above in a reader's words, printed on every report page (`--format html`): a page
 * mailed to someone who has no callctl must say how its numbers were made.
 */
export const READINGS: ReadonlyArray<readonly [term: string, reading: string]> = [
  ['records', 'every call record the service answered with'],
  ['called', 'a record with a call start time, or a call count above 0'],
  ['connected', 'ring type "normal", or at least one talk round (a conversation took place)'],
  ['no answer', 'called and not connected'],
  ['busy', 'called, with ring type "busy"'],
  ['finished', 'connected and hung up by the robot (ByRobot): it reached the end of its script'],
  ['redialed', 'a record with redial calls'],
  ['shares', 'of the calls made ("called" is of the records); a share of nothing is shown "-"'],
  ['call duration', 'end time minus start time of a connected call, in seconds (it includes the ring)'],
  ['median and p90', 'nearest rank: the smallest value with at least 50% (90%) of the values at or below it'],
  ['other values', `counted as themselves; an empty value as ${EMPTY}, a missing one as ${NONE}`],
];

/** A value to count: itself, `(empty)` or `(none)`. Objects (which the spec does not allow here) as JSON. */
export function valueOf(v: unknown): string {
  if (v === undefined || v === null) return NONE;
  if (typeof v === 'string') return v.trim() === '' ? EMPTY : v;
  return typeof v === 'object' ? JSON.stringify(v) : String(v);
}

const CONNECTED_RING = 'normal';

function connectedOf(ringType: unknown, talkRounds: number | undefined): boolean {
  return ringType === CONNECTED_RING || (talkRounds ?? 0) > 0;
}

function present(v: unknown): boolean {
  return typeof v === 'string' && v.trim() !== '';
}

const TIME_RE = /^(\d{4})-(\d{2})-(\d{2})[T ](\d{2}):(\d{2}):(\d{2})Z?$/;

/** `YYYY-MM-DDTHH:MM:SSZ` or `YYYY-MM-DD HH:MM:SS` (read as UTC) in ms; undefined when neither. */
export function timeOf(v: unknown): number | undefined {
  const m = typeof v === 'string' ? TIME_RE.exec(v.trim()) : null;
  if (!m) return undefined;
  const t = Date.UTC(+m[1]!, +m[2]! - 1, +m[3]!, +m[4]!, +m[5]!, +m[6]!);
  return Number.isNaN(t) ? undefined : t;
}

function int(v: unknown): number | undefined {
  return typeof v === 'number' && Number.isFinite(v) ? v : undefined;
}

/** A calling task's record (GET /service/cloud/detail). */
export function viewOfRecord(r: CallRecord): CallView {
  const talkRounds = int(r.TalkRound);
  const connected = connectedOf(r.RingType, talkRounds);
  const start = timeOf(r.CallStartTime);
  const end = timeOf(r.CallEndTime);
  return {
    called: present(r.CallStartTime) || (int(r.CallTimes) ?? 0) > 0,
    connected,
    status: valueOf(r.Status),
    intention: valueOf(r.Intention),
    description: typeof r.intention_description === 'string' ? r.intention_description : undefined,
    label: valueOf(r.EventLabel && typeof r.EventLabel === 'object' ? r.EventLabel.final : undefined),
    ringType: valueOf(r.RingType),
    hangupType: valueOf(r.HangupType),
    talkRounds: connected ? talkRounds : undefined,
    duration: connected && start !== undefined && end !== undefined && end >= start ? (end - start) / 1000 : undefined,
    start,
    redials: (Array.isArray(r.RedailCall) ? r.RedailCall : []).map((d) => ({
      ringType: valueOf(d?.RingType),
      label: valueOf(d?.ResultLabel),
    })),
  };
}

/** An information-check call of a workflow task (POST /service/cloud/workflow/taskdetail). */
export function viewOfWorkflowCall(d: WorkflowCallDetail): CallView {
  const talkRounds = int(d.talk_round);
  const connected = connectedOf(d.ring_type, talkRounds);
  const duration = int(d.duration);
  return {
    called: present(d.call_start_time) || (int(d.call_times) ?? 0) > 0,
    connected,
    status: valueOf(d.result),
    // A workflow call has no intention letter: its description stands for it.
    intention: valueOf(d.intention_description),
    label: valueOf(d.result_label),
    ringType: valueOf(d.ring_type),
    hangupType: valueOf(d.hangup_type),
    talkRounds: connected ? talkRounds : undefined,
    duration: connected && duration !== undefined && duration >= 0 ? duration : undefined,
    start: timeOf(d.call_start_time),
    redials: (Array.isArray(d.redail_call) ? d.redail_call : []).map((x) => {
      const r = x as Record<string, unknown>;
      return { ringType: valueOf(r.ring_type ?? r.RingType), label: valueOf(r.result_label ?? r.ResultLabel) };
    }),
    questions: Array.isArray(d.question_answer) ? d.question_answer : [],
  };
}

/** Hangup by the robot: the call ran to the end of its script. */
export const FINISHED_HANGUP = 'ByRobot';
export const CALLEE_HANGUP = 'ByCallee';
export const BUSY_RING = 'busy';
