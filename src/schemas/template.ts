import { z } from 'zod';

/** `variable` of a template message: `date` and `name` are required strings; other keys pass. */
export const templateVariableSchema = z.record(z.string(), z.string()).superRefine((v, ctx) => {
  for (const key of ['date', 'name'] as const) {
    if (v[key] === undefined || v[key] === '')
      ctx.addIssue({ code: 'custom', path: [key], message: `variable ${key} is required (--var ${key}=...)` });
  }
});

/** Body of POST /api/v1/template/unitcast (spec endpoint 11). Key order is the order sent. */
export const templateRequestSchema = z.strictObject({
  template_id: z.number().int().nonnegative(),
  timestamp: z.number().int().nonnegative(),
  channel: z.string().min(1, 'channel is required'),
  channel_id: z.string().min(1, 'channel_id is required'),
  user_id: z.string(),
  variable: templateVariableSchema,
  custom: z.string(),
});
export type TemplateRequest = z.infer<typeof templateRequestSchema>;

/** The answer of the unitcast endpoint; all four fields are required by the spec. */
export const templateResponseSchema = z.looseObject({
  request_id: z.string(),
  code: z.number().int(),
  message: z.string(),
  data: z.looseObject({ task_id: z.string() }),
});
