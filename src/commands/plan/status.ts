import type { Context } from '../../context.js';
import { getPlanStatus } from '../../api/cloud.js';
import { runWatch, type WatchFlags } from '../watch-options.js';

/** `plan status <PlanName>`. */
export interface PlanStatusOptions extends WatchFlags {
  planName: string;
}

/** Runs `plan status`. */
export async function runPlanStatus(ctx: Context, opts: PlanStatusOptions): Promise<number> {
  const { planName } = opts;
  const client = await ctx.client();
  if (opts.watch || opts.exitStatus) {
    const { finalState } = await import('../../output/watch.js');
    return runWatch(
      ctx,
      {
        title: `callctl plan status ${planName}`,
        fetch: () => getPlanStatus(client, planName),
        screen: (plan, out) =>
          out.record([
            ['PlanName', plan.PlanName],
            ['PlanStatus', plan.PlanStatus],
          ]),
        lines: (plan) => [`${plan.PlanName}\t${plan.PlanStatus}`],
        json: (plan) => plan,
        final: (plan) => finalState(plan.PlanStatus),
      },
      opts,
    );
  }
  const plan = await getPlanStatus(client, planName);
  const out = await ctx.output();
  if (out.json) out.writeJson(plan);
  else
    out.record([
      ['PlanName', plan.PlanName],
      ['PlanStatus', plan.PlanStatus],
    ]);
  return 0;
}
