import { robotListSchema } from '../schemas/robot.js';
import { callRecordSchema, callingTaskSchema, type CallRecord } from '../schemas/task.js';
import { streamArray, type RecordSink } from './stream.js';
import { planDetailDataSchema, planStatusDataSchema } from '../schemas/plan.js';
import {
  updateDetailsDataSchema,
  workflowListDataSchema,
  workflowCallDetailSchema,
  workflowTaskDetailSchema,
  type ListEntry,
  type WorkflowCallDetail,
  type VerifyPushRequest,
  type WorkflowListQuery,
} from '../schemas/workflow.js';
import { verifyPushDataSchema } from '../schemas/api-push.js';
import type { CloudClient } from './client.js';

/** One function per cloud endpoint of the spec. */

/** GET /service/cloud/robot */
export const listRobots = (c: CloudClient) =>
  c.call({ method: 'GET', path: '/service/cloud/robot', data: robotListSchema });

/** GET /service/cloud/detail?TaskID= */
export const getTask = (c: CloudClient, taskId: string) =>
  c.call({ method: 'GET', path: '/service/cloud/detail', query: { TaskID: taskId }, data: callingTaskSchema });

/** GET /service/cloud/planstatus?PlanName= */
export const getPlanStatus = (c: CloudClient, planName: string) =>
  c.call({ method: 'GET', path: '/service/cloud/planstatus', query: { PlanName: planName }, data: planStatusDataSchema });

/** GET /service/cloud/plandetail?PlanName= */
export const getPlanDetail = (c: CloudClient, planName: string) =>
  c.call({ method: 'GET', path: '/service/cloud/plandetail', query: { PlanName: planName }, data: planDetailDataSchema });

/** GET /service/cloud/workflow/instancelist */
export const listWorkflows = (c: CloudClient, query: WorkflowListQuery) =>
  c.call({ method: 'GET', path: '/service/cloud/workflow/instancelist', query, data: workflowListDataSchema });

/** POST /service/cloud/workflow/updatedetails: one batch; retried only when the service took nothing (its contacts get called). */
export const updateDetails = (c: CloudClient, workflowId: string, details: ListEntry[]) =>
  c.call({
    retry: 'answered',
    method: 'POST',
    path: '/service/cloud/workflow/updatedetails',
    body: { workflow_id: workflowId, details },
    data: updateDetailsDataSchema,
  });

/**
 * The same request with `details` given as a JSON array's text: an upload spools its batches as
 * JSON and sends them as they are, instead of parsing and serializing 10,000 objects per batch.
 */
export const updateDetailsJson = (c: CloudClient, workflowId: string, detailsJson: Buffer) =>
  c.call({
    // Retried only when the service took nothing (no connection, 429, 5xx): its contacts get called.
    retry: 'answered',
    method: 'POST',
    path: '/service/cloud/workflow/updatedetails',
    jsonBody: Buffer.concat([Buffer.from(`{"workflow_id":${JSON.stringify(workflowId)},"details":`), detailsJson, Buffer.from('}')]),
    data: updateDetailsDataSchema,
  });

/** POST /service/cloud/workflow/apinoticeinfo */
export const verifyPush = (c: CloudClient, body: VerifyPushRequest) =>
  c.call({ method: 'POST', path: '/service/cloud/workflow/apinoticeinfo', body, data: verifyPushDataSchema });

/** POST /service/cloud/workflow/taskdetail */
export const getWorkflowTask = (c: CloudClient, taskId: string) =>
  c.call({ method: 'POST', path: '/service/cloud/workflow/taskdetail', body: { task_id: taskId }, data: workflowTaskDetailSchema });


/**
 * GET /service/cloud/detail?TaskID=, its call records handed to `sink` as they arrive (a task of
 * 100,000 records is never held whole). Returns the task with `detail` empty.
 */
export const streamTask = (c: CloudClient, taskId: string, sink: RecordSink<CallRecord>) =>
  c.call({
    method: 'GET',
    path: '/service/cloud/detail',
    query: { TaskID: taskId },
    data: callingTaskSchema,
    consume: streamArray('GET /service/cloud/detail', ['data', 'detail'], callRecordSchema, sink, (m) => c.warn(m)),
  });

/** POST /service/cloud/workflow/taskdetail, its `details` handed to `sink` as they arrive. Returns the task with `details` empty. */
export const streamWorkflowTask = (c: CloudClient, taskId: string, sink: RecordSink<WorkflowCallDetail>) =>
  c.call({
    method: 'POST',
    path: '/service/cloud/workflow/taskdetail',
    body: { task_id: taskId },
    data: workflowTaskDetailSchema,
    consume: streamArray('POST /service/cloud/workflow/taskdetail', ['data', 'details'], workflowCallDetailSchema, sink, (m) => c.warn(m)),
  });
