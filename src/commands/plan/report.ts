import type { Context } from '../../context.js';
import { UsageError } from '../../errors.js';
import type { PlanReportJson } from '../../schemas/report-output.js';
import { planReport } from '../../report/reports.js';
import { emitReport, type ReportOptions } from '../report-options.js';

/** `plan report <PlanName>`. */
export interface PlanReportOptions extends ReportOptions {
  planName: string;
}

/** Runs `plan report`. */
export async function runPlanReport(ctx: Context, opts: PlanReportOptions): Promise<number> {
  const { planName } = opts;
  if (!planName.trim()) throw new UsageError('PlanName is empty');
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
