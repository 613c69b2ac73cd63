import type { Context } from '../../context.js';
import { UsageError } from '../../errors.js';
import type { PlanReportJson } from '../../schemas/report-output.js';
import { planReport } from '../../report/reports.js';
import { renderReport, reportCsv, reportRows } from '../../report/render.js';
import { reportFormat, type ReportOptions } from '../report-options.js';

/** `plan report <PlanName>`. */
export interface PlanReportOptions extends ReportOptions {
  planName: string;
}

/** Runs `plan report`. */
export async function runPlanReport(ctx: Context, opts: PlanReportOptions): Promise<number> {
  const { planName } = opts;
  if (!planName.trim()) throw new UsageError('PlanName is empty');
  const format = await reportFormat(ctx, opts);
  const report = await planReport(await ctx.client(), planName);
  const out = await ctx.output();
  if (out.json) out.writeJson(report satisfies PlanReportJson);
  else if (format === 'csv') ctx.io.stdout.write(reportCsv(reportRows(report, report.rounds)));
  else
    await renderReport(out, `Plan ${report.plan.PlanName}`, [['Rounds', report.rounds.length]], report, report.rounds);
  return 0;
}
