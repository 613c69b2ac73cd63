import type { Command, FlagsOf } from '../commander.js';
import type { Deps } from '../action.js';
import type { Context } from '../../context.js';
import { JSON_SHAPES } from '../../help/json-shapes.js';

function declare(plan: Command) {
  return plan
    .command('detail <PlanName>')
    .description("show a plan's rounds and their tasks (GET /service/cloud/plandetail)")
    .addHelpText(
      'after',
      `
Columns: ROUND, TASK NAME, TASK ID, STATUS.

Examples:
  callctl plan detail SPRING-PLAN
  callctl plan detail SPRING-PLAN | cut -f3 | xargs -n1 callctl task detail

JSON (--json): the envelope's data:
${JSON_SHAPES.planDetail}`,
    );
}

export type PlanDetailOptions = FlagsOf<typeof declare> & { planName: string };

export function register(plan: Command, { start }: Deps): void {
  declare(plan).action((planName, flags, command) => start(command, runPlanDetail, { ...flags, planName }));
}

export async function runPlanDetail(ctx: Context, opts: PlanDetailOptions): Promise<number> {
  const { getPlanDetail } = await import('../../api/cloud.js');
  const plan = await getPlanDetail(await ctx.client(), opts.planName);
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
