import type { Command, FlagsOf } from '../commander.js';
import type { Deps } from '../action.js';
import type { Context } from '../../context.js';
import { UsageError } from '../../errors.js';
import type { PlanReportJson } from '../../schemas/report-output.js';
import { emitReport, REPORT_HELP, reportFlags } from '../flags/report.js';
import { JSON_SHAPES } from '../../help/json-shapes.js';
import { said } from '../../said.js';

function declare(plan: Command) {
  return reportFlags(
    plan
      .command('report <PlanName>')
      .description(
        "a plan's campaign numbers: each round, then all rounds' calls together (plandetail, then each round's task detail)",
      ),
  ).addHelpText(
    'after',
    `
${REPORT_HELP}

Examples:
  callctl plan report SPRING-PLAN
  callctl plan report SPRING-PLAN --json | jq '.rounds[] | {Rounds, connected: .rates.connected}'
  callctl plan report SPRING-PLAN --format html -o spring.html

JSON (--json): rates are fractions or null, shares of the distribution's total or null:
${JSON_SHAPES.planReport}`,
  );
}

export type PlanReportOptions = FlagsOf<typeof declare> & { planName: string };

export function register(plan: Command, { start }: Deps): void {
  declare(plan).action((planName, flags, command) => start(command, runPlanReport, { ...flags, planName }));
}

export async function runPlanReport(ctx: Context, opts: PlanReportOptions): Promise<number> {
  const { planName } = opts;
  if (!planName.trim()) throw new UsageError(said`PlanName is empty`);
  const { planReport } = await import('../../report/reports.js');
  return emitReport(
    ctx,
    opts,
    async () => (await planReport(await ctx.client(), planName)) satisfies PlanReportJson,
    (report) => ({
      title: `Plan ${report.plan.PlanName}`,
      about: [['Rounds', report.rounds.length]],
      rounds: report.rounds,
    }),
  );
}
