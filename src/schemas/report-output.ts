/*
 * The `--json` of the report commands (task, plan and workflow report): callctl's own numbers, not
 * the service's, and the types src/report/stats.ts computes. Their zod schemas (the help pages'
 * shapes, and what the tests parse the output with) are in test/helpers/output-schemas/report.ts;
 * test/help/json-output-types.test-d.ts keeps both the same. Counts are integers.
 */

/** One value of a distribution: how many calls had it and their share of the distribution's total. */
export interface Share {
  value: string;
  count: number;
  /** count / total, rounded to 4 decimals; null when the total is 0. */
  share: number | null;
}

/** An intention, with the descriptions seen with it, most frequent first. */
export interface IntentionShare extends Share {
  descriptions: string[];
}

/** Median, 90th percentile and maximum (nearest rank: each is a value that occurred). */
export interface Spread {
  count: number;
  median: number | null;
  p90: number | null;
  max: number | null;
}

/** Calls counted, by what happened to them. */
export interface Totals {
  records: number;
  called: number;
  connected: number;
  noAnswer: number;
  busy: number;
  finished: number;
  hungUpByCallee: number;
  redialed: number;
}

/** Each total over `called` (records for `called` itself); null when there is nothing to divide by. */
type Rates = Record<keyof Totals, number | null>;

/** One question of an information-check task. */
export interface QuestionStats {
  question: string;
  type: string;
  /** Calls that carried this question. */
  count: number;
  answers: Share[];
  verification: Share[];
  whether: Share[];
  statuses: Share[];
}

/** The numbers of a report, the same with `--json` as on a terminal. */
interface ReportNumbers {
  totals: Totals;
  rates: Rates;
  statuses: Share[];
  intentions: IntentionShare[];
  labels: Share[];
  ringTypes: Share[];
  hangupTypes: Share[];
  talkRounds: Spread;
  /** Seconds. */
  durations: Spread;
  /** Connected calls by duration range (DURATION_RANGES, in that order, empty ranges included). */
  durationRanges: Share[];
  /** Called records by the hour (UTC) their call started, earliest first; those without a start time are not in it. */
  callsByHour: Array<{ hour: string; called: number; connected: number }>;
  redials: { calls: number; ringTypes: Share[]; labels: Share[] };
}

/** What src/report/stats.ts counts: a report's numbers, with its questions for a workflow's. */
export interface CallNumbers extends ReportNumbers {
  /** Information-check calls only (their question_answer records). */
  questions?: QuestionStats[];
}

/** `task report --json`. */
export interface TaskReportJson extends ReportNumbers {
  task: { TaskID: string; TaskName: string; Status: string; ScheduleStartTime: string; ScheduleEndTime: string };
}

/** A plan's round in `plan report --json`. */
export interface RoundReport {
  Rounds: string;
  TaskName: string;
  TaskID: string;
  Status: string;
  totals: Totals;
  rates: Rates;
}

/** `plan report --json`: the rounds, then every round's calls together. */
export interface PlanReportJson extends ReportNumbers {
  plan: { PlanName: string };
  rounds: RoundReport[];
}

/** `workflow report --json`. */
export interface WorkflowReportJson extends CallNumbers {
  task: {
    task_id: string;
    task_name: string;
    status: string;
    workflow_id: string;
    workflow_name: string;
    nodetask_id: string;
    nodetask_name: string;
  };
}
