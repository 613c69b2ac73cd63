import { z } from 'zod';

/** Decimal text, as the spec's amounts are given (`"1500000"`, `"99.50"`). */
export const DECIMAL_TEXT_RE = /^-?\d+(\.\d+)?$/;

/**
 * `variables` of a direct call push: an object of strings. The spec names one key, `debt_amount`
 * (optional, decimal text); further keys are the ones agreed with the service.
 */
export const pushVariablesSchema = z.record(z.string(), z.string()).superRefine((vars, ctx) => {
  const amount = vars.debt_amount;
  if (amount !== undefined && !DECIMAL_TEXT_RE.test(amount)) {
    ctx.addIssue({ code: 'custom', path: ['debt_amount'], message: `debt_amount must be decimal text such as 1500000 or 99.50, not ${JSON.stringify(amount)}` });
  }
});
export type PushVariables = z.infer<typeof pushVariablesSchema>;

/** Body of POST {flex_route_url}/api/push/<push_token> (spec endpoint 10). */
export const pushRequestSchema = z.strictObject({
  caller_id: z.string().trim().min(1, 'caller_id is required'),
  client_name: z.string().optional(),
  variables: pushVariablesSchema,
});
export type PushRequest = z.infer<typeof pushRequestSchema>;

/** The answer of the push endpoint. `body` is an object the spec does not describe. */
export const pushResponseSchema = z.looseObject({
  code: z.number().int(),
  message: z.string(),
  show_err: z.boolean(),
  timestamp: z.number().int(),
  body: z.record(z.string(), z.unknown()),
  trace_id: z.string(),
});
export type PushResponse = z.infer<typeof pushResponseSchema>;
