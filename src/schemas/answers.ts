import type { z } from 'zod';
import { ANSWER_PLANS } from './answer-plans.js';
import { checkOf, type QuickCheck } from './quick-check.js';
import type { Plan } from './quick-plan.js';

/**
 * The schema of each cloud answer's `data` that callctl reads, loaded only when needed. Most
 * answers are vouched for by their quick check, whose plan was read from the schema at build time
 * (src/schemas/answer-plans.ts, kept current by test/schemas/answer-plans.test.ts): then zod is
 * never loaded, which is most of a read command's start-up. zod reads (and words the problems of)
 * the others.
 */
export const ANSWER_SCHEMAS = {
  token: async () => (await import('./auth.js')).tokenDataSchema,
  robotList: async () => (await import('./robot.js')).robotListSchema,
  callingTask: async () => (await import('./task.js')).callingTaskSchema,
  planStatus: async () => (await import('./plan.js')).planStatusDataSchema,
  planDetail: async () => (await import('./plan.js')).planDetailDataSchema,
  workflowList: async () => (await import('./workflow.js')).workflowListDataSchema,
  updateDetails: async () => (await import('./workflow.js')).updateDetailsDataSchema,
  verifyPush: async () => (await import('./api-push.js')).verifyPushDataSchema,
  workflowTaskDetail: async () => (await import('./workflow.js')).workflowTaskDetailSchema,
  /** `callctl api`: any data. */
  unknown: async () => (await import('zod')).z.unknown(),
};

export type AnswerName = keyof typeof ANSWER_SCHEMAS;

/** Every answer has its plan (a name missing from the generated file fails here). */
const plans: Record<AnswerName, Plan> = ANSWER_PLANS;

/** An answer's schema, and the check that spares loading it. */
export interface AnswerSchema<S extends z.ZodType> {
  readonly name: AnswerName;
  readonly check: QuickCheck;
  readonly schema: () => Promise<S>;
}

type SchemaOf<N extends AnswerName> = Awaited<ReturnType<(typeof ANSWER_SCHEMAS)[N]>>;

const checks = new Map<AnswerName, QuickCheck>();

/** The schema of the answer named `name`, with its quick check. */
export function answerSchema<N extends AnswerName>(name: N): AnswerSchema<SchemaOf<N>> {
  let check = checks.get(name);
  if (!check) checks.set(name, (check = checkOf(plans[name])));
  return { name, check, schema: ANSWER_SCHEMAS[name] as () => Promise<SchemaOf<N>> };
}
