import { z } from 'zod';

/*
 * The zod schemas of the `--json` of the report commands (task, plan and workflow report): the help
 * pages' shapes are drawn from them (test/help/shape-table.ts) and the tests parse each command's
 * output with them. The types the commands write, and what each field means, are in
 * src/schemas/report-output.ts; test/help/json-output-types.test-d.ts fails to compile if a schema
 * and its type differ.
 */

/** One value of a distribution: how many calls had it and their share of the distribution's total. */
const shareSchema = z.strictObject({
  value: z.string(),
  count: z.number().int(),
  share: z.number().nullable(),
});

/** An intention, with the descriptions seen with it, most frequent first. */
const intentionShareSchema = shareSchema.extend({ descriptions: z.array(z.string()) });

/** Median, 90th percentile and maximum (nearest rank: each is a value that occurred). */
const spreadSchema = z.strictObject({
  count: z.number().int(),
  median: z.number().nullable(),
  p90: z.number().nullable(),
  max: z.number().nullable(),
});

const count = z.number().int();
/** Calls counted, by what happened to them. */
const totalsSchema = z.strictObject({
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
const ratesSchema = z.strictObject({
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
const questionStatsSchema = z.strictObject({
  question: z.string(),
  type: z.string(),
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
  durations: spreadSchema,
  durationRanges: z.array(shareSchema),
  callsByHour: z.array(z.strictObject({ hour: z.string(), called: count, connected: count })),
  redials: z.strictObject({ calls: count, ringTypes: z.array(shareSchema), labels: z.array(shareSchema) }),
};

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

/** A plan's round in `plan report --json`. */
const roundReportSchema = z.strictObject({
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
  questions: z.array(questionStatsSchema).optional(),
});
