import { z } from 'zod';
import { HANGUP_TYPES, RING_TYPES, known, stringMap } from './common.js';
import { asrEntrySchema } from './task.js';

export const apiPushCalleeSchema = z.looseObject({
  case_id: z.string().nullish(),
  callee_name: z.string().nullish(),
  callee_gender: z.string().nullish(),
  callee_number: z.string().nullish(),
  platform_name: z.string().nullish(),
  extra_a: z.string().nullish(),
  extra_b: z.string().nullish(),
  extra_c: z.string().nullish(),
  comments: z.string().nullish(),
  borrowed_date: z.string().nullish(),
  due_date: z.string().nullish(),
  borrowed_amount: z.string().nullish(),
  total_owing_amount: z.string().nullish(),
  currency_unit: z.string().nullish(),
  extra: z.array(z.looseObject({ Content: z.string(), Question: z.string() })).nullish(),
  extend: z.looseObject({ variables: stringMap.nullish() }).nullish(),
  location: z.string().nullish(),
});

/** `call`: task_id and call_id carry no required mark in the spec, so they may be absent. */
export const apiPushCallSchema = z.looseObject({
  task_id: z.string().nullish(),
  call_id: z.string().nullish(),
  call_start_time: z.string().nullish(),
  call_end_time: z.string().nullish(),
  call_times: z.number().int().nullish(),
  ring_type: known(RING_TYPES).nullish(),
  hangup_type: known(HANGUP_TYPES).nullish(),
  // The spec marks it required and gives no type: any JSON value is shown as it comes (a letter
  // in the sample; a number, an object or null are read, not refused).
  intention: z.json(),
  slots: z.string().nullish(),
  multi_label: z.record(z.string(), z.unknown()).nullish(),
  asr_ptp: z.string().nullish(),
  asr_result: z.array(asrEntrySchema).nullish(),
});

/** Body of the custom API node data push (workflow) notification. */
export const apiPushSchema = z.looseObject({
  workflow_id: z.string(),
  workflow_name: z.string(),
  node_id: z.string(),
  node_name: z.string(),
  callee: apiPushCalleeSchema,
  custom_attribute: stringMap,
  call: apiPushCallSchema,
});

/** `data` of POST /service/cloud/workflow/apinoticeinfo: the push body, `call` with `robot_id`. */
export const verifyPushDataSchema = apiPushSchema.extend({
  call: apiPushCallSchema.extend({ robot_id: z.string().nullish() }),
});
export type VerifyPushData = z.infer<typeof verifyPushDataSchema>;
