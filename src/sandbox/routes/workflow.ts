import { ISO_TIME_RE } from '../spec/shapes.js';
import {
  verifyPushRequest as verifyPushRequestSchema,
  workflowTaskDetailRequest as workflowTaskDetailRequestSchema,
} from '../spec/requests.js';
import { VERIFY_HISTORY_MONTHS } from '../spec/limits.js';
import { served } from '../variant-data.js';
import { servedPage } from '../variants.js';
import { badRequest, describeIssue, notFound, objectBody, ok, type Handler } from '../http.js';

/** The instance list's paging when the query gives none (the spec does not show its defaults). */
export const INSTANCE_LIST_PAGING = { page: 1, size: 10, maxSize: 100 } as const;

function positiveInt(
  query: URLSearchParams,
  name: string,
  fallback: number,
  max = Number.MAX_SAFE_INTEGER,
): number | string {
  const raw = query.get(name);
  if (raw === null || raw === '') return fallback;
  if (!/^\d+$/.test(raw) || Number(raw) < 1 || Number(raw) > max)
    return `${name} must be a whole number from 1 to ${max === Number.MAX_SAFE_INTEGER ? 'up' : max}, got "${raw}"`;
  return Number(raw);
}

/**
 * GET /service/cloud/workflow/instancelist: newest first; `start_time` / `end_time` filter on
 * `create_time` (inclusive); `count` is the filtered total; a page past the end is empty.
 */
export const instanceListHandler: Handler = (ctx) => {
  const q = ctx.query;
  const page = positiveInt(q, 'page', INSTANCE_LIST_PAGING.page);
  if (typeof page === 'string') return badRequest(page);
  const size = positiveInt(q, 'size', INSTANCE_LIST_PAGING.size, INSTANCE_LIST_PAGING.maxSize);
  if (typeof size === 'string') return badRequest(size);
  const from = q.get('start_time') || undefined;
  const to = q.get('end_time') || undefined;
  for (const [name, value] of [
    ['start_time', from],
    ['end_time', to],
  ] as const) {
    if (value !== undefined && !ISO_TIME_RE.test(value))
      return badRequest(`${name} must be YYYY-MM-DDTHH:MM:SSZ, got "${value}"`);
  }
  // Same-format UTC times compare correctly as text.
  const all = [...ctx.engine.state.workflows.values()]
    .map((w) => w.instance)
    .filter((w) => (!from || w.create_time >= from) && (!to || w.create_time <= to));
  // page-cap and page-ignored serve another page than the one asked for (variants.ts).
  const p = servedPage(ctx.engine.variants, { page, size });
  return ok(
    served(ctx.engine.variants, 'instances', {
      lists: all.slice((p.page - 1) * p.size, p.page * p.size),
      count: all.length,
    }),
  );
};

/** POST /service/cloud/workflow/taskdetail */
export const workflowTaskDetailHandler: Handler = (ctx) => {
  const parsed = workflowTaskDetailRequestSchema.safeParse(objectBody(ctx));
  if (!parsed.success) return badRequest(describeIssue(parsed.error.issues));
  const detail = ctx.engine.state.workflowTasks.get(parsed.data.task_id);
  return detail
    ? ok(served(ctx.engine.variants, 'workflow-task', detail))
    : notFound(`workflow task not found: ${parsed.data.task_id}`);
};

/**
 * POST /service/cloud/workflow/apinoticeinfo: the newest custom API push of the workflow's node
 * for the callee (and case_id, when given) within the last three months; otherwise the error
 * ("exception") variant with code 404.
 */
export const verifyPushHandler: Handler = (ctx) => {
  const parsed = verifyPushRequestSchema.safeParse(objectBody(ctx));
  if (!parsed.success) return badRequest(describeIssue(parsed.error.issues));
  const { workflow_id, node_id, callee, case_id } = parsed.data;
  const { state, clock } = ctx.engine;
  if (!state.workflows.has(workflow_id)) return notFound(`workflow not found: ${workflow_id}`);
  const since = new Date(clock.now());
  since.setUTCMonth(since.getUTCMonth() - VERIFY_HISTORY_MONTHS);
  let found: (typeof state.apiPushes)[number] | undefined;
  for (const p of state.apiPushes) {
    const d = p.data;
    if (d.workflow_id !== workflow_id || d.node_id !== node_id || d.callee.callee_number !== callee) continue;
    if (case_id !== undefined && d.callee.case_id !== case_id) continue;
    if (p.pushedAt < since.getTime()) continue;
    if (!found || p.pushedAt > found.pushedAt) found = p;
  }
  if (!found) {
    const who = case_id === undefined ? callee : `${callee} (case_id ${case_id})`;
    return notFound(
      `no custom API push found for workflow ${workflow_id}, node ${node_id}, callee ${who} in the last ${VERIFY_HISTORY_MONTHS} months`,
    );
  }
  return ok(served(ctx.engine.variants, 'verify-push', found.data));
};
