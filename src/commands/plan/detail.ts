import type { Context } from '../../context.js';
import { getPlanDetail } from '../../api/cloud.js';

/** `plan detail <PlanName>`. */
export interface PlanDetailOptions {
  planName: string;
}

/** Runs `plan detail`. */
export async function runPlanDetail(ctx: Context, opts: PlanDetailOptions): Promise<number> {
  const { planName } = opts;
  const plan = await getPlanDetail(await ctx.client(), planName);
  const out = await ctx.output();
  await out.list(
    plan.PlanDetails,
    [
      { header: 'ROUND', value: (r) => r.Rounds },
      { header: 'TASK NAME', value: (r) => r.TaskName, kind: 'text' },
      { header: 'TASK ID', value: (r) => r.TaskID, kind: 'id' },
      { header: 'STATUS', value: (r) => r.Status },
    ],
    { json: plan },
  );
  return 0;
}
