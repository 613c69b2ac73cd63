// What the simulated service did on a campaign day, as it saw it: every call it made and every
// notification it sent, with what each attempt was answered. The checker holds callctl's records
// against it (checker.mjs); service-day.mjs writes it.

/** The fields of a call record that campaign numbers are made of, as the service made them. */
export function callFacts(r) {
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

/**
 * The record of the truth: `calls` (`{ kind: workflow | push | task, callId, callee, taskId?,
 * workflowId?, caseId?, planName?, facts? }`) and `notifications` (`{ seq, kind, id, attempts:
 * [status | 'error'], delivered, gaveUp }`), the attempts read from the sandbox's notify events.
 */
export class Truth {
  calls = [];
  notifications = [];
  #byId = new Map();

  /** Listens to a sandbox's notification attempts. */
  constructor(events) {
    events.on('notify.sent', (e) => this.#attempted(e, e.status, false));
    events.on('notify.failed', (e) => this.#attempted(e, e.status, e.willRetry));
  }

  call(c) {
    this.calls.push(c);
  }

  #attempted({ kind, id, attempt }, status, willRetry) {
    let t = this.#byId.get(id);
    if (!t || attempt === 1) {
      // A notification sent again later with the same id (a second plan end) is another one.
      t = { seq: this.notifications.length + 1, kind, id, attempts: [], delivered: false, gaveUp: false };
      this.notifications.push(t);
      this.#byId.set(id, t);
    }
    t.attempts.push(status ?? 'error');
    if (status === 200) t.delivered = true;
    else if (!willRetry) t.gaveUp = true;
  }

  summary() {
    const count = (items, key) => {
      const out = {};
      for (const t of items) out[key(t)] = (out[key(t)] ?? 0) + 1;
      return out;
    };
    const attempts = this.notifications.flatMap((n) => n.attempts);
    const delivered = this.notifications.filter((n) => n.delivered).length;
    const gaveUp = this.notifications.filter((n) => n.gaveUp).length;
    return {
      calls: this.calls.length,
      callsByKind: count(this.calls, (c) => c.kind),
      notifications: this.notifications.length,
      byKind: count(this.notifications, (n) => n.kind),
      attempts: attempts.length,
      delivered,
      gaveUp,
      pending: this.notifications.length - delivered - gaveUp,
      answers: count(attempts, String),
    };
  }
}
