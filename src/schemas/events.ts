import { z } from 'zod';
import { apiPushSchema } from './api-push.js';
import { isoTime, stringMap } from './common.js';
import { planRoundSchema } from './plan.js';
import { snakeTaskFields, workflowCallDetailSchema } from './workflow.js';

import type { EventType } from './event-types.js';

export { EVENT_TYPES, type EventType } from './event-types.js';

/** The chatbot callbacks' `event` values. */
export const CHATBOT_EVENTS = { closed: 'session.closed', transfer: 'session.transfer' } as const;

/** Template message states, as the status callback carries them. */
export const TEMPLATE_STATUSES = ['wait', 'send', 'delivery', 'read', 'replied', 'failed'] as const;

/**
 * An entry of `details` in the plan-end variant that carries task-level fields: the fields the
 * spec lists there, those of a workflow call-task detail entry, all optional.
 */
export const planEndCallSchema = workflowCallDetailSchema
  .pick({
    id: true,
    callee: true,
    result: true,
    result_label: true,
    duration: true,
    hangup_type: true,
    ring_type: true,
    question_answer: true,
    robot_hash: true,
    call_id: true,
    call_times: true,
    call_start_time: true,
    call_end_time: true,
  })
  .partial();

/**
 * Plan end status notification. `Timestamp` is a string, or an integer in one variant; that
 * variant also carries the task-level fields (all optional here, since the plain form has none).
 */
export const planEndSchema = z.looseObject({
  PlanName: z.string(),
  Timestamp: z.union([z.string(), z.number().int()]),
  Sign: z.string(),
  PlanDetails: z.array(planRoundSchema),
  task_id: z.string().optional(),
  task_name: z.string().optional(),
  status: z.string().optional(),
  ...snakeTaskFields,
  details: z.array(planEndCallSchema).optional(),
});

export const taskEndSchema = z.looseObject({
  TaskID: z.string(),
  TaskName: z.string().optional(),
  Sign: z.string(),
  PlanName: z.string().optional(),
});

/** Custom API node data push (workflow): the shape lives with the verify-push endpoint's. */
export { apiPushSchema };

/** Template message status change (workflow): every field required. */
export const templateStatusSchema = z.looseObject({
  workflow_id: z.string(),
  workflow_name: z.string(),
  nodetask_id: z.string(),
  nodetask_name: z.string(),
  waba_task_id: z.string(),
  wfdetail_uuid: z.string(),
  timestamp: z.number().int(),
  status: z.enum(TEMPLATE_STATUSES),
  msg_id: z.string(),
  send_time: isoTime,
  waba_template_name: z.string(),
  waba_template_id: z.number().int(),
  channel_id: z.string(),
  callee: z.string(),
  variables: stringMap,
});

const chatUserSchema = z.looseObject({ id: z.string(), name: z.string().nullish() });

export const chatMessageSchema = z.looseObject({
  msg_id: z.string(),
  timestamp: z.number().int(),
  sender: z.enum(['robot', 'user']),
  content: z.looseObject({
    type: z.string(),
    text: z.string().nullish(),
    media: z.looseObject({ origin_url: z.string().nullish(), name: z.string().nullish() }).nullish(),
  }),
});

/** Chatbot session closed (labelled as in development by the spec). */
export const chatbotSessionClosedSchema = z.looseObject({
  event: z.literal(CHATBOT_EVENTS.closed),
  call_id: z.string().optional(),
  channel: z.string(),
  channel_id: z.string().optional(),
  user: chatUserSchema.optional(),
  messages: z.array(chatMessageSchema),
});

/** Chatbot transfer to agent request (labelled as in development by the spec): all required. */
export const chatbotTransferSchema = z.looseObject({
  event: z.literal(CHATBOT_EVENTS.transfer),
  channel: z.string(),
  channel_id: z.string(),
  user: chatUserSchema,
  call_id: z.string(),
  company: z.string(),
  conclusion: z.looseObject({ record_slots: z.record(z.string(), z.unknown()), output_label: z.string() }),
});

/** The schema of each known type; `unknown` has none. */
export const EVENT_SCHEMAS = {
  'plan.end': planEndSchema,
  'task.end': taskEndSchema,
  'workflow.api_push': apiPushSchema,
  'template.status': templateStatusSchema,
  'chatbot.session_closed': chatbotSessionClosedSchema,
  'chatbot.transfer': chatbotTransferSchema,
} as const satisfies Record<Exclude<EventType, 'unknown'>, z.ZodType>;
