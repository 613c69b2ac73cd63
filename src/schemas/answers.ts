import type { z } from 'zod';

/**
 * The schema of each cloud answer's `data` that callctl reads, loaded only when needed. Most answers are vouched for by their check, generated from
 * the schema at build time (scripts/validators.mjs): then zod is never loaded, which is most of a
 * read command's start-up. zod reads (and words the problems of) the others.
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

/**
 * True when zod would accept the value (parsed JSON) AND hand it out unchanged, so that it can be
 * used without loading zod; false means only "ask zod", which decides and words the problem.
 */
export type AnswerCheck = (value: unknown) => boolean;

/** An answer's schema, and the check that spares loading it. */
export interface AnswerSchema<S extends z.ZodType> {
  readonly name: AnswerName;
  readonly check: () => Promise<AnswerCheck>;
  readonly schema: () => Promise<S>;
}

type SchemaOf<N extends AnswerName> = Awaited<ReturnType<(typeof ANSWER_SCHEMAS)[N]>>;

export function answerSchema<N extends AnswerName>(name: N): AnswerSchema<SchemaOf<N>> {
  return {
    name,
    check: () => answerCheck(name),
    schema: ANSWER_SCHEMAS[name] as () => Promise<SchemaOf<N>>,
  };
}

/**
 * The check of the answer named `name`, generated at build time from its schema by ajv
 * (scripts/validators.mjs writes generated/, which `npm run build` bundles like any module);
 * loaded with the answer, not with every command, and without the schemas.
 */
export async function answerCheck(name: AnswerName): Promise<AnswerCheck> {
  return ((await import(`../../generated/answer-checks/${name}.js`)) as { check: AnswerCheck }).check;
}
