import type { Context } from '../../context.js';
import { getPlanDetail } from '../../api/cloud.js';

export async function run(ctx: Context, _opts: unknown, planName: string): Promise<number> {
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
