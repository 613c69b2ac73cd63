import { z } from 'zod';
import { CALLEE_RE, PLATFORM_MAX_LENGTH } from '../limits.js';
import { HANGUP_TYPES, RING_TYPES, known, stringMap } from './common.js';

/** Workflow instance: an item of `data.lists` of GET /service/cloud/workflow/instancelist. */
export const workflowInstanceSchema = z.looseObject({
  workflow_id: z.string(),
  name: z.string(),
  template_name: z.string(),
  start_time: z.string().nullable(),
  end_time: z.string().nullish(),
  total: z.number().int(),
  // Values seen: cancelled, finished; the full set is not shown.
  status: z.string(),
  create_time: z.string(),
});
export type WorkflowInstance = z.infer<typeof workflowInstanceSchema>;

export const workflowListDataSchema = z.looseObject({
  lists: z.array(workflowInstanceSchema),
  count: z.number().int(),
});
export type WorkflowListData = z.infer<typeof workflowListDataSchema>;

export const workflowListQuerySchema = z.object({
  page: z.number().int().positive().optional(),
  size: z.number().int().positive().optional(),
  start_time: z.string().optional(),
  end_time: z.string().optional(),
});
export type WorkflowListQuery = z.infer<typeof workflowListQuerySchema>;

/** A contact of a workflow list, as sent to POST /service/cloud/workflow/updatedetails. */
export const listEntrySchema = z.object({
  callee: z.string().regex(CALLEE_RE, 'callee must be + then 7 to 15 digits (E.164)'),
  platform: z
    .string()
    .min(1, 'platform is empty')
    .max(PLATFORM_MAX_LENGTH, `platform is longer than ${PLATFORM_MAX_LENGTH} characters`),
  caseid: z.string().optional(),
  variables: stringMap,
  pds_variables: z.union([z.record(z.string(), z.unknown()), z.string()]).optional(),
});
export type ListEntry = z.infer<typeof listEntrySchema>;

export const updateDetailsDataSchema = z.looseObject({
  workflow_id: z.string(),
  count: z.number().int(),
});

/** Question-answer record of information-check calls. All strings. */
export const questionAnswerSchema = z.looseObject({
  question_name: z.string().nullish(),
  answer: z.string().nullish(),
  answer_text: z.string().nullish(),
  status: z.string().nullish(), // seen: Completed, Skip
  answer_text_slot: z.string().nullish(),
  var: z.string().nullish(),
  verification_results: z.string().nullish(),
  question_content: z.string().nullish(),
  question_type: z.string().nullish(), // seen: whether, open
  whether_answer: z.string().nullish(), // seen: Answered, Skip, Invalid
});
export type QuestionAnswer = z.infer<typeof questionAnswerSchema>;

/** An entry of `details` of the workflow call-task detail (declared as 22 fields). */
export const workflowCallDetailSchema = z.looseObject({
  id: z.number().int(),
  callee: z.string(),
  result: z.string().nullish(),
  result_label: z.string().nullish(),
  duration: z.number().int().nullish(),
  hangup_type: known(HANGUP_TYPES).nullish(),
  ring_type: known(RING_TYPES).nullish(),
  question_answer: z.array(questionAnswerSchema).nullish(),
  NerSlots: stringMap.nullish(),
  robot_hash: z.string().nullish(),
  call_id: z.string().nullish(),
  call_times: z.number().int().nullish(),
  call_start_time: z.string().nullish(),
  call_end_time: z.string().nullish(), // YYYY-MM-DD HH:MM:SS
  ring_time: z.number().int().nullish(),
  talk_round: z.number().int().nullish(),
  redail_call: z.array(z.looseObject({})).nullish(),
  intention_description: z.string().nullish(),
  EventLabel: stringMap.nullish(),
  caller_number: z.string().nullish(),
  case_id: z.string().nullish(),
});
export type WorkflowCallDetail = z.infer<typeof workflowCallDetailSchema>;

/**
 * The calling task's fields in snake_case, as the workflow call-task detail and the plan-end
 * notification's variant carry them (besides task_id, task_name and status).
 */
export const snakeTaskFields = {
  created_at: z.string().nullish(),
  repeat_interval: z.number().int().nullish(),
  repeat_number: z.number().int().nullish(),
  robot_hash: z.string().nullish(),
  robot_method: z.string().nullish(),
  sip_line: z.string().nullish(),
  schedule_start_time: z.string().nullish(),
  schedule_end_time: z.string().nullish(),
};

/** `data` of POST /service/cloud/workflow/taskdetail. */
export const workflowTaskDetailSchema = z.looseObject({
  task_id: z.string(),
  task_name: z.string(),
  status: z.string(),
  ...snakeTaskFields,
  workflow_id: z.string(),
  workflow_name: z.string(),
  nodetask_id: z.string(),
  nodetask_name: z.string(),
  details: z.array(workflowCallDetailSchema),
});
export type WorkflowTaskDetail = z.infer<typeof workflowTaskDetailSchema>;

export const workflowTaskDetailRequestSchema = z.object({ task_id: z.string().min(1) });

/** Body of POST /service/cloud/workflow/apinoticeinfo. */
export const verifyPushRequestSchema = z.object({
  workflow_id: z.string().min(1),
  node_id: z.string().min(1),
  callee: z.string().min(1),
  case_id: z.string().optional(),
});
export type VerifyPushRequest = z.infer<typeof verifyPushRequestSchema>;
