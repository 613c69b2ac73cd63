/** One generated call record as JSON text (about 800 bytes). */
export function recordJson(i: number): string;
/** The whole envelope of GET /service/cloud/detail for a task of `n` records. */
export function taskEnvelope(n: number, taskId?: string): Buffer;
/** The envelope of GET /service/cloud/detail for `n` records of about `bytes` of escaped text each. */
export function escapedTaskEnvelope(n: number, bytes: number, taskId?: string): Buffer;
/** One generated entry of a workflow call-task's details as JSON text. */
export function workflowCallJson(i: number): string;
/** The whole envelope of POST /service/cloud/workflow/taskdetail for a task of `n` calls. */
export function workflowTaskEnvelope(n: number, taskId?: string): Buffer;
