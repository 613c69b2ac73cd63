/**
 * What the simulated service did, as it saw it: every call it made and every notification it
 * sent, with what each attempt was answered. A checker holds a client's records against it.
 */
import type { CallRecord } from './spec/shapes.js';

/** One attempt at delivering a notification, as the sender saw it. */
export interface Attempt {
  /** 1 for the first, 2 for the first retry... */
  number: number;
  /** The HTTP status answered; absent when none came (connection refused or cut, timeout). */
  status?: number;
  error?: string;
  /** Whether another attempt follows. */
  willRetry: boolean;
}

/** One call the service made: a contact of a workflow, a pushed caller, or a plan's or task's callee. */
export interface TruthCall {
  /** `workflow` (a contact received by a list update), `push` (a direct call push) or `task` (any other task's callee). */
  kind: 'workflow' | 'push' | 'task';
  callId: string;
  callee: string;
  taskId?: string;
  workflowId?: string;
  /** The contact's `caseid` (workflow calls). */
  caseId?: string;
  planName?: string;
  /** What the call record said when the call was made (absent for a pushed call); a copy. */
  facts?: CallFacts;
}

/** The fields of a call record that campaign numbers are made of, as the service made them. */
export interface CallFacts {
  startTime: string;
  callTimes: number;
  ringType: string;
  hangupType: string;
  talkRound: number;
  redials: number;
  intention: string;
  description: string;
  label: string;
}

export function callFacts(r: CallRecord): CallFacts {
  return {
    startTime: r.CallStartTime,
    callTimes: r.CallTimes,
    ringType: r.RingType,
    hangupType: r.HangupType,
    talkRound: r.TalkRound,
    redials: r.RedailCall.length,
    intention: r.Intention,
    description: r.intention_description,
    label: r.EventLabel.final ?? '',
  };
}

/** One notification and its attempts: answer statuses (a number) or failures (`error`). */
export interface TruthNotification {
  seq: number;
  kind: string;
  /** Which notification this is (notificationId): the same on every attempt. */
  id: string;
  attempts: Array<number | 'error'>;
  /** Whether an attempt was answered HTTP 200. */
  delivered: boolean;
  /** Whether it was given up (no 200 after the spec's retries). */
  gaveUp: boolean;
}

export interface TruthSummary {
  calls: number;
  callsByKind: Record<string, number>;
  notifications: number;
  byKind: Record<string, number>;
  attempts: number;
  delivered: number;
  gaveUp: number;
  pending: number;
  /** Attempts by answer: `200`, `503`, `error`... */
  answers: Record<string, number>;
}

/** The record of the truth; the day and the notifier write it, a checker reads it. */
export class Truth {
  readonly calls: TruthCall[] = [];
  readonly notifications: TruthNotification[] = [];
  private readonly byId = new Map<string, TruthNotification>();

  call(c: TruthCall): void {
    this.calls.push(c);
  }

  /** Records an attempt (the notifier's `onAttempt`). */
  readonly attempted = (n: { kind: string; id: string }, a: Attempt): void => {
    let t = this.byId.get(n.id);
    if (!t || a.number === 1) {
      // A notification sent again later with the same id (a second plan end) is another one.
      t = { seq: this.notifications.length + 1, kind: n.kind, id: n.id, attempts: [], delivered: false, gaveUp: false };
      this.notifications.push(t);
      this.byId.set(n.id, t);
    }
    t.attempts.push(a.status ?? 'error');
    if (a.status === 200) t.delivered = true;
    else if (!a.willRetry) t.gaveUp = true;
  };

  summary(): TruthSummary {
    const count = <T>(items: readonly T[], key: (t: T) => string) => {
      const out: Record<string, number> = {};
      for (const t of items) out[key(t)] = (out[key(t)] ?? 0) + 1;
      return out;
    };
    const answers: Record<string, number> = {};
    let attempts = 0;
    for (const n of this.notifications)
      for (const a of n.attempts) {
        attempts++;
        answers[String(a)] = (answers[String(a)] ?? 0) + 1;
      }
    const delivered = this.notifications.filter((n) => n.delivered).length;
    const gaveUp = this.notifications.filter((n) => n.gaveUp).length;
    return {
      calls: this.calls.length,
      callsByKind: count(this.calls, (c) => c.kind),
      notifications: this.notifications.length,
      byKind: count(this.notifications, (n) => n.kind),
      attempts,
      delivered,
      gaveUp,
      pending: this.notifications.length - delivered - gaveUp,
      answers,
    };
  }
}
