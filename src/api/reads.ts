/**
 * The spec's cloud endpoints that only read, whatever their method: `callctl api` sends them
 * without asking and retries them like any read. Every GET is a read; of the POSTs, the workflow
 * task detail and the data-push check are (the spec's own list update, push and template send
 * reach people). One list, kept here, for the commands that must tell.
 */
export const READ_ENDPOINTS: ReadonlySet<string> = new Set([
  'GET /service/cloud/robot',
  'GET /service/cloud/detail',
  'GET /service/cloud/planstatus',
  'GET /service/cloud/plandetail',
  'GET /service/cloud/workflow/instancelist',
  'POST /service/cloud/workflow/taskdetail',
  'POST /service/cloud/workflow/apinoticeinfo',
]);

/** Whether a request of the cloud endpoints only reads: any GET, or a POST of READ_ENDPOINTS. */
export function isRead(method: string, path: string): boolean {
  return method === 'GET' || READ_ENDPOINTS.has(`${method} ${path.replace(/\/+$/, '')}`);
}

/** The one list the service pages (`page`, `size`, `count`), walked by `api --paginate`. */
export const PAGED_ENDPOINT = 'GET /service/cloud/workflow/instancelist';
