import { badRequest, notFound, ok, type Handler } from '../http.js';
import { planView } from '../state.js';
import { served } from '../variant-data.js';

/** A required query parameter, or undefined when absent or empty. */
const param = (query: URLSearchParams, name: string) => query.get(name)?.trim() || undefined;

/** GET /service/cloud/robot */
export const robotsHandler: Handler = (ctx) => ok(served(ctx.engine.variants, 'robots', ctx.engine.state.robots));

/** GET /service/cloud/detail?TaskID= */
export const taskDetailHandler: Handler = (ctx) => {
  const id = param(ctx.query, 'TaskID');
  if (!id) return badRequest('TaskID is required');
  const model = ctx.engine.state.tasks.get(id);
  return model ? ok(served(ctx.engine.variants, 'task', model.task)) : notFound(`task not found: ${id}`);
};

/** GET /service/cloud/planstatus?PlanName= */
export const planStatusHandler: Handler = (ctx) => {
  const name = param(ctx.query, 'PlanName');
  if (!name) return badRequest('PlanName is required');
  const plan = ctx.engine.state.plans.get(name);
  return plan
    ? ok(served(ctx.engine.variants, 'plan-status', { PlanName: plan.PlanName, PlanStatus: plan.PlanStatus }))
    : notFound(`plan not found: ${name}`);
};

/** GET /service/cloud/plandetail?PlanName= (the spec does not flag it required; it is needed to answer). */
export const planDetailHandler: Handler = (ctx) => {
  const name = param(ctx.query, 'PlanName');
  if (!name) return badRequest('PlanName is required');
  const plan = ctx.engine.state.plans.get(name);
  if (!plan) return notFound(`plan not found: ${name}`);
  const { PlanName, PlanDetails } = planView(ctx.engine.state, plan);
  return ok(served(ctx.engine.variants, 'plan-detail', { PlanName, PlanDetails }));
};
