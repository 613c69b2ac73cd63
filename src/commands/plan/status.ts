import type { Context } from '../../context.js';
import { getPlanStatus } from '../../api/cloud.js';

export async function run(ctx: Context, _opts: unknown, planName: string): Promise<number> {
  const plan = await getPlanStatus(await ctx.client(), planName);
  const out = await ctx.output();
  if (out.json) out.writeJson(plan);
  else
    out.record([
      ['PlanName', plan.PlanName],
      ['PlanStatus', plan.PlanStatus],
    ]);
  return 0;
}
