import type { z } from 'zod';
import { answerSchema } from '../schemas/answers.js';
import type { CallRecord } from '../schemas/task.js';
import type { WorkflowCallDetail, VerifyPushRequest, WorkflowListQuery } from '../schemas/workflow.js';
import type { RecordSink } from './stream.js';
import type { CloudCall, CloudClient } from './client.js';

/**
 * One function per cloud endpoint of the spec. Each names the schema of its own answer, loaded
 * only if its check cannot vouch for the answer (src/schemas/answers.ts): building zod schemas
 * costs start-up time, more than a read command's own work.
 */
const task = () => import('../schemas/task.js');
const workflow = () => import('../schemas/workflow.js');

export const listRobots = async (c: CloudClient) =>
  c.call({ method: 'GET', path: '/service/cloud/robot', data: answerSchema('robotList') });

export const getTask = async (c: CloudClient, taskId: string) =>
  c.call({
    method: 'GET',
    path: '/service/cloud/detail',
    query: { TaskID: taskId },
    data: answerSchema('callingTask'),
  });

export const getPlanStatus = async (c: CloudClient, planName: string) =>
  c.call({
    method: 'GET',
    path: '/service/cloud/planstatus',
    query: { PlanName: planName },
    data: answerSchema('planStatus'),
  });

export const getPlanDetail = async (c: CloudClient, planName: string) =>
  c.call({
    method: 'GET',
    path: '/service/cloud/plandetail',
    query: { PlanName: planName },
    data: answerSchema('planDetail'),
  });

export const listWorkflows = async (c: CloudClient, query: WorkflowListQuery) =>
  c.call({
    method: 'GET',
    path: '/service/cloud/workflow/instancelist',
    query,
    data: answerSchema('workflowList'),
  });

/**
 * POST /service/cloud/workflow/updatedetails: one batch, with `details` given as a JSON array's
 * text: an upload spools its batches as JSON and sends them as they are, instead of parsing and
 * serializing 10,000 objects per batch.
 */
export const updateDetailsJson = async (c: CloudClient, workflowId: string, detailsJson: Buffer) =>
  c.call({
    // Retried only when the service took nothing (no connection, 429, 5xx): its contacts get called.
    retry: 'answered',
    method: 'POST',
    path: '/service/cloud/workflow/updatedetails',
    jsonBody: Buffer.concat([
      Buffer.from(`{"workflow_id":${JSON.stringify(workflowId)},"details":`),
      detailsJson,
      Buffer.from('}'),
    ]),
    data: answerSchema('updateDetails'),
  });

export const verifyPush = async (c: CloudClient, body: VerifyPushRequest) =>
  c.call({
    method: 'POST',
    path: '/service/cloud/workflow/apinoticeinfo',
    body,
    data: answerSchema('verifyPush'),
  });

export const getWorkflowTask = async (c: CloudClient, taskId: string) =>
  c.call({
    method: 'POST',
    path: '/service/cloud/workflow/taskdetail',
    body: { task_id: taskId },
    data: answerSchema('workflowTaskDetail'),
  });

/**
 * GET /service/cloud/detail?TaskID=, its call records handed to `sink` as they arrive (a task of
 * 100,000 records is never held whole). Returns the task with `detail` empty.
 */
export const streamTask = async (c: CloudClient, taskId: string, sink: RecordSink<CallRecord>) =>
  streamed(
    c,
    { method: 'GET', path: '/service/cloud/detail', query: { TaskID: taskId }, data: answerSchema('callingTask') },
    'detail',
    async () => (await task()).callRecordSchema,
    sink,
  );

/** POST /service/cloud/workflow/taskdetail, its `details` handed to `sink` as they arrive. Returns the task with `details` empty. */
export const streamWorkflowTask = async (c: CloudClient, taskId: string, sink: RecordSink<WorkflowCallDetail>) =>
  streamed(
    c,
    {
      method: 'POST',
      path: '/service/cloud/workflow/taskdetail',
      body: { task_id: taskId },
      data: answerSchema('workflowTaskDetail'),
    },
    'details',
    async () => (await workflow()).workflowCallDetailSchema,
    sink,
  );

/**
 * A call whose `data.<key>` array goes to `sink` as it arrives (src/api/stream.ts); its errors say
 * how many records were already shown. Returns `data` with that array empty.
 */
async function streamed<T extends z.ZodType, R>(
  c: CloudClient,
  call: CloudCall<T>,
  key: string,
  item: () => Promise<z.ZodType>,
  sink: RecordSink<R>,
): Promise<z.infer<T>> {
  const stream = (await import('./stream.js')).streamArray(
    `${call.method} ${call.path}`,
    ['data', key],
    call.data,
    item,
    sink,
    (m) => c.warn(m),
  );
  const data = await c
    .call({ ...call, consume: stream.consume, restartable: stream.restartable })
    .catch((error: unknown) => Promise.reject(stream.told(error)));
  stream.finish();
  return data;
}
