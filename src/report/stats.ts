import type { CallNumbers, Share, Spread, Totals } from '../schemas/report-output.js';
import { BUSY_RING, CALLEE_HANGUP, FINISHED_HANGUP, NONE, valueOf, type CallView } from './reading.js';

// The report's types are its --json's (src/schemas/report-output.ts): one source for both (the
// tests' zod schema of the output is checked against them).

class Tally {
  readonly counts = new Map<string, number>();
  total = 0;
  add(value: string): void {
    this.counts.set(value, (this.counts.get(value) ?? 0) + 1);
    this.total++;
  }
  merge(other: Tally): void {
    for (const [v, n] of other.counts) this.counts.set(v, (this.counts.get(v) ?? 0) + n);
    this.total += other.total;
  }
  shares(): Share[] {
    return [...this.counts]
      .sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0))
      .map(([value, count]) => ({ value, count, share: ratio(count, this.total) }));
  }
}

export function ratio(n: number, d: number): number | null {
  return d === 0 ? null : Math.round((n / d) * 10_000) / 10_000;
}

/** Nearest-rank percentile of sorted values: the smallest value with at least p of them at or below it. */
export function percentile(sorted: readonly number[], p: number): number | null {
  if (sorted.length === 0) return null;
  return sorted[Math.max(0, Math.ceil(p * sorted.length) - 1)]!;
}

function spread(values: number[]): Spread {
  const sorted = Float64Array.from(values).sort();
  const list = Array.from(sorted);
  return {
    count: list.length,
    median: percentile(list, 0.5),
    p90: percentile(list, 0.9),
    max: list.length ? list[list.length - 1]! : null,
  };
}

/** The duration ranges of `durationRanges`: a label and its upper bound in seconds (exclusive). */
export const DURATION_RANGES: ReadonlyArray<readonly [string, number]> = [
  ['under 10 s', 10],
  ['10-30 s', 30],
  ['30-60 s', 60],
  ['1-2 min', 120],
  ['2-5 min', 300],
  ['5 min or more', Infinity],
];

/** The hour a time falls in, as `YYYY-MM-DDTHH:00:00Z`. */
function hourOf(ms: number): string {
  return `${new Date(ms - (ms % 3_600_000)).toISOString().slice(0, 13)}:00:00Z`;
}

/** The value of `key` in `map`, made first when there is none. */
function entry<K, V>(map: Map<K, V>, key: K, make: () => V): V {
  let value = map.get(key);
  if (value === undefined) map.set(key, (value = make()));
  return value;
}

class QuestionTally {
  count = 0;
  type = new Tally();
  answers = new Tally();
  verification = new Tally();
  whether = new Tally();
  statuses = new Tally();
}

/**
 * Adds up calls as they stream by: only counters and two arrays of numbers (talk rounds and
 * durations, for their percentiles) are kept, never the records.
 */
export class CallStats {
  private readonly totals: Totals = {
    records: 0,
    called: 0,
    connected: 0,
    noAnswer: 0,
    busy: 0,
    finished: 0,
    hungUpByCallee: 0,
    redialed: 0,
  };
  private readonly statuses = new Tally();
  private readonly intentions = new Tally();
  private readonly descriptions = new Map<string, Tally>();
  private readonly labels = new Tally();
  private readonly ringTypes = new Tally();
  private readonly hangupTypes = new Tally();
  private readonly redialRing = new Tally();
  private readonly redialLabel = new Tally();
  private readonly talkRounds: number[] = [];
  private readonly durations: number[] = [];
  private readonly ranges = new Array<number>(DURATION_RANGES.length).fill(0);
  /** Called and connected calls by hour (a campaign of a year has under 9,000). */
  private readonly hours = new Map<string, [called: number, connected: number]>();
  private readonly questions = new Map<string, QuestionTally>();
  private sawQuestions = false;

  add(call: CallView): void {
    const t = this.totals;
    t.records++;
    if (call.called) t.called++;
    if (call.connected) t.connected++;
    if (call.called && !call.connected) t.noAnswer++;
    if (call.called && call.ringType === BUSY_RING) t.busy++;
    if (call.connected && call.hangupType === FINISHED_HANGUP) t.finished++;
    if (call.connected && call.hangupType === CALLEE_HANGUP) t.hungUpByCallee++;
    if (call.redials.length > 0) t.redialed++;
    this.statuses.add(call.status);
    this.intentions.add(call.intention);
    if (call.description !== undefined && call.description.trim() !== '') {
      entry(this.descriptions, call.intention, () => new Tally()).add(call.description);
    }
    this.labels.add(call.label);
    this.ringTypes.add(call.ringType);
    this.hangupTypes.add(call.hangupType);
    for (const r of call.redials) {
      this.redialRing.add(r.ringType);
      this.redialLabel.add(r.label);
    }
    if (call.talkRounds !== undefined) this.talkRounds.push(call.talkRounds);
    if (call.duration !== undefined) {
      this.durations.push(call.duration);
      this.ranges[DURATION_RANGES.findIndex(([, below]) => call.duration! < below)]! += 1;
    }
    if (call.called && call.start !== undefined) {
      const h = entry(this.hours, hourOf(call.start), (): [number, number] => [0, 0]);
      h[0] += 1;
      if (call.connected) h[1] += 1;
    }
    if (call.questions) {
      this.sawQuestions = true;
      for (const qa of call.questions) {
        const q = entry(this.questions, valueOf(qa?.question_name), () => new QuestionTally());
        q.count++;
        q.type.add(valueOf(qa?.question_type));
        q.answers.add(valueOf(qa?.answer));
        q.verification.add(valueOf(qa?.verification_results));
        q.whether.add(valueOf(qa?.whether_answer));
        q.statuses.add(valueOf(qa?.status));
      }
    }
  }

  /** Adds another set of calls (a plan's round into the plan's whole). */
  merge(o: CallStats): void {
    for (const k of Object.keys(this.totals) as Array<keyof Totals>) this.totals[k] += o.totals[k];
    for (const k of [
      'statuses',
      'intentions',
      'labels',
      'ringTypes',
      'hangupTypes',
      'redialRing',
      'redialLabel',
    ] as const)
      this[k].merge(o[k]);
    for (const [intention, d] of o.descriptions) entry(this.descriptions, intention, () => new Tally()).merge(d);
    for (const v of o.talkRounds) this.talkRounds.push(v);
    for (const v of o.durations) this.durations.push(v);
    o.ranges.forEach((n, i) => (this.ranges[i]! += n));
    for (const [hour, [called, connected]] of o.hours) {
      const h = entry(this.hours, hour, (): [number, number] => [0, 0]);
      h[0] += called;
      h[1] += connected;
    }
    for (const [name, q] of o.questions) {
      const mine = entry(this.questions, name, () => new QuestionTally());
      mine.count += q.count;
      for (const k of ['type', 'answers', 'verification', 'whether', 'statuses'] as const) mine[k].merge(q[k]);
    }
    this.sawQuestions ||= o.sawQuestions;
  }

  get records(): number {
    return this.totals.records;
  }

  numbers(): CallNumbers {
    const t = this.totals;
    const rates = Object.fromEntries(
      (Object.keys(t) as Array<keyof Totals>).map((k) => [
        k,
        k === 'records' ? null : k === 'called' ? ratio(t.called, t.records) : ratio(t[k], t.called),
      ]),
    ) as Record<keyof Totals, number | null>;
    const numbers: CallNumbers = {
      totals: { ...t },
      rates,
      statuses: this.statuses.shares(),
      intentions: this.intentions.shares().map((s) => ({
        ...s,
        descriptions: (this.descriptions.get(s.value)?.shares() ?? []).map((d) => d.value),
      })),
      labels: this.labels.shares(),
      ringTypes: this.ringTypes.shares(),
      hangupTypes: this.hangupTypes.shares(),
      talkRounds: spread(this.talkRounds),
      durations: spread(this.durations),
      durationRanges: DURATION_RANGES.map(([value], i) => ({
        value,
        count: this.ranges[i]!,
        share: ratio(this.ranges[i]!, this.durations.length),
      })),
      callsByHour: [...this.hours]
        .sort((a, b) => (a[0] < b[0] ? -1 : 1))
        .map(([hour, [called, connected]]) => ({ hour, called, connected })),
      redials: { calls: this.redialRing.total, ringTypes: this.redialRing.shares(), labels: this.redialLabel.shares() },
    };
    if (this.sawQuestions) {
      numbers.questions = [...this.questions].map(([question, q]) => ({
        question,
        type: q.type.shares()[0]?.value ?? NONE,
        count: q.count,
        answers: q.answers.shares(),
        verification: q.verification.shares(),
        whether: q.whether.shares(),
        statuses: q.statuses.shares(),
      }));
    }
    return numbers;
  }
}
