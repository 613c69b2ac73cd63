import { z } from 'zod';

/*
 * The `--json` of the report commands (task, plan and workflow report): callctl's own numbers, not
 * the service's. src/report/stats.ts takes its types from here; the help pages show the shapes
 * (src/help/json-shapes.ts) and test/help/json-shapes.test.ts checks each command against them.
 */

/** One value of a distribution: how many calls had it and their share of the distribution's total. */
export const shareSchema = z.strictObject({
  value: z.string(),
  count: z.number().int(),
  /** count / total, rounded to 4 decimals; null when the total is 0. */
  share: z.number().nullable(),
});

/** An intention, with the descriptions seen with it, most frequent first. */
export const intentionShareSchema = shareSchema.extend({ descriptions: z.array(z.string()) });

/** Median, 90th percentile and maximum (nearest rank: each is a value that occurred). */
export const spreadSchema = z.strictObject({
  count: z.number().int(),
  median: z.number().nullable(),
  p90: z.number().nullable(),
  max: z.number().nullable(),
});

const count = z.number().int();
/** Calls counted, by what happened to them. */
export const totalsSchema = z.strictObject({
  records: count,
  called: count,
  connected: count,
  noAnswer: count,
  busy: count,
  finished: count,
  hungUpByCallee: count,
  redialed: count,
});

const rate = z.number().nullable();
/** Each total over `called` (records for `called` itself); null when there is nothing to divide by. */
export const ratesSchema = z.strictObject({
  records: rate,
  called: rate,
  connected: rate,
  noAnswer: rate,
  busy: rate,
  finished: rate,
  hungUpByCallee: rate,
  redialed: rate,
});

/** One question of an information-check task. */
export const questionStatsSchema = z.strictObject({
  question: z.string(),
  type: z.string(),
  /** Calls that carried this question. */
  count: count,
  answers: z.array(shareSchema),
  verification: z.array(shareSchema),
  whether: z.array(shareSchema),
  statuses: z.array(shareSchema),
});

/** The numbers of a report, the same with `--json` as on a terminal. */
const callNumbersShape = {
  totals: totalsSchema,
  rates: ratesSchema,
  statuses: z.array(shareSchema),
  intentions: z.array(intentionShareSchema),
  labels: z.array(shareSchema),
  ringTypes: z.array(shareSchema),
  hangupTypes: z.array(shareSchema),
  talkRounds: spreadSchema,
  /** Seconds. */
  durations: spreadSchema,
  /** Connected calls by duration range (DURATION_RANGES, in that order, empty ranges included). */
  durationRanges: z.array(shareSchema),
  /** Called records by the hour (UTC) their call started, earliest first; those without a start time are not in it. */
  callsByHour: z.array(z.strictObject({ hour: z.string(), called: count, connected: count })),
  redials: z.strictObject({ calls: count, ringTypes: z.array(shareSchema), labels: z.array(shareSchema) }),
};
export const callNumbersSchema = z.strictObject(callNumbersShape);

/** `task report --json`. */
export const taskReportJsonSchema = z.strictObject({
  task: z.strictObject({
    TaskID: z.string(),
    TaskName: z.string(),
    Status: z.string(),
    ScheduleStartTime: z.string(),
    ScheduleEndTime: z.string(),
  }),
  ...callNumbersShape,
});
export type TaskReportJson = z.infer<typeof taskReportJsonSchema>;

/** A plan's round in `plan report --json`. */
export const roundReportSchema = z.strictObject({
  Rounds: z.string(),
  TaskName: z.string(),
  TaskID: z.string(),
  Status: z.string(),
  totals: totalsSchema,
  rates: ratesSchema,
});

/** `plan report --json`: the rounds, then every round's calls together. */
export const planReportJsonSchema = z.strictObject({
  plan: z.strictObject({ PlanName: z.string() }),
  rounds: z.array(roundReportSchema),
  ...callNumbersShape,
});
export type PlanReportJson = z.infer<typeof planReportJsonSchema>;

/** `workflow report --json`. */
export const workflowReportJsonSchema = z.strictObject({
  task: z.strictObject({
    task_id: z.string(),
    task_name: z.string(),
    status: z.string(),
    workflow_id: z.string(),
    workflow_name: z.string(),
    nodetask_id: z.string(),
    nodetask_name: z.string(),
  }),
  ...callNumbersShape,
  /** Information-check calls only (their question_answer records). */
  questions: z.array(questionStatsSchema).optional(),
});
export type WorkflowReportJson = z.infer<typeof workflowReportJsonSchema>;
