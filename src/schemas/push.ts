import { z } from 'zod';

/**
 * `variables` of a direct call push: an object of strings. The spec names one key, `debt_amount`
 * (a string, optional) and gives it no format, so callctl sends what it is given ("1.500.000",
 * "Rp 1,5 jt"): checking it as a decimal would be stricter than the spec. Further keys are the ones
 * agreed with the service.
 */
export const pushVariablesSchema = z.record(z.string(), z.string());

/** Body of POST {flex_route_url}/api/push/<push_token> (spec endpoint 10). */
export const pushRequestSchema = z.strictObject({
  caller_id: z.string().trim().min(1, 'caller_id is required'),
  client_name: z.string().optional(),
  variables: pushVariablesSchema,
});
export type PushRequest = z.infer<typeof pushRequestSchema>;

/**
 * The answer of the push endpoint as the spec gives it. `body` is an object the spec does not
 * describe. A success answer that does not fit is still a success (src/api/deliver.ts).
 */
export const pushResponseSchema = z.looseObject({
  code: z.number().int(),
  message: z.string(),
  show_err: z.boolean(),
  timestamp: z.number().int(),
  body: z.record(z.string(), z.unknown()),
  trace_id: z.string(),
});
