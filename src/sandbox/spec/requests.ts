import { z } from 'zod';
import { CALLEE_RE, PLATFORM_MAX_LENGTH } from './limits.js';

/**
 * What the sandbox accepts from a client, written from the spec's request tables. Strict where
 * the spec is firm (required fields, types, the limits), and no stricter.
 */

/** Token endpoint body: APPKey and APPSecret, strings, required. */
export const authRequest = z.object({ APPKey: z.string().min(1), APPSecret: z.string().min(1) });

/** A list entry: the spec's five fields, no others (an unknown one is a column meant for `variables`). */
export const listEntry = z.strictObject({
  callee: z.string().regex(CALLEE_RE, 'callee must be + then 7 to 15 digits (international format)'),
  platform: z
    .string()
    .min(1, 'platform is empty')
    .max(PLATFORM_MAX_LENGTH, `platform is longer than ${PLATFORM_MAX_LENGTH} characters`),
  caseid: z.string().optional(),
  variables: z.record(z.string(), z.string()),
  pds_variables: z.union([z.record(z.string(), z.unknown()), z.string()]).optional(),
});

/** Verify custom API data push body. */
export const verifyPushRequest = z.object({
  workflow_id: z.string().min(1),
  node_id: z.string().min(1),
  callee: z.string().min(1),
  case_id: z.string().optional(),
});

/** Workflow outbound task details body. */
export const workflowTaskDetailRequest = z.object({ task_id: z.string().min(1) });

/** Send single template message body. */
export const unitcastRequest = z.looseObject({
  template_id: z.number().int(),
  timestamp: z.number().int(),
  channel: z.string().min(1),
  channel_id: z.string().min(1),
  user_id: z.string(),
  variable: z.looseObject({ date: z.string(), name: z.string() }),
  custom: z.string(),
});

/** The JSON text of the template's `custom`: it holds `reply_url`. */
export const unitcastCustom = z.looseObject({ reply_url: z.string().min(1) });
