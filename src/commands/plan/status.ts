import type { Command, FlagsOf } from '../commander.js';
import type { Deps } from '../action.js';
import type { Context } from '../../context.js';
import { exitStatusOption, intervalOption, runWatch, watchOption } from '../flags/watch.js';
import { JSON_SHAPES } from '../../help/json-shapes.js';

function declare(plan: Command) {
  return plan
    .command('status <PlanName>')
    .description("show a plan's status (GET /service/cloud/planstatus)")
    .addOption(watchOption('the status'))
    .addOption(intervalOption())
    .addOption(exitStatusOption())
    .addHelpText(
      'after',
      `
Examples:
  callctl plan status SPRING-PLAN
  callctl plan status SPRING-PLAN --json | jq -r .PlanStatus
  callctl plan status SPRING-PLAN --watch
  callctl plan status SPRING-PLAN --exit-status --interval 30 && echo "finished"

Watch: --watch redraws the status every --interval seconds on a terminal; piped, it prints a
timestamped line each time the status changes. --exit-status watches until a final status and
exits 0 when finished, 1 when canceled (Ctrl-C: 130). While the service cannot answer (network,
5xx) the error is shown and the wait doubles, up to 60 s; any other error ends the watch.

JSON (--json): the envelope's data; with --watch, one such line per change:
${JSON_SHAPES.planStatus}`,
    );
}

export type PlanStatusOptions = FlagsOf<typeof declare> & { planName: string };

export function register(plan: Command, { start }: Deps): void {
  declare(plan).action((planName, flags, command) => start(command, runPlanStatus, { ...flags, planName }));
}

export async function runPlanStatus(ctx: Context, opts: PlanStatusOptions): Promise<number> {
  const { planName } = opts;
  const { getPlanStatus } = await import('../../api/cloud.js');
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
