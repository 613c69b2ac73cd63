import type { Context } from '../../context.js';
import { UsageError } from '../../errors.js';
import { taskReport } from '../../report/reports.js';
import { renderReport, reportCsv, reportRows } from '../../report/render.js';

export interface ReportOptions {
  csv?: boolean;
}

export async function run(ctx: Context, opts: ReportOptions, taskId: string): Promise<number> {
  if (!taskId.trim()) throw new UsageError('TaskID is empty');
  const report = await taskReport(await ctx.client(), taskId);
  const out = await ctx.output();
  if (out.json) out.writeJson(report);
  else if (opts.csv) ctx.io.stdout.write(reportCsv(reportRows(report)));
  else {
    const t = report.task;
    await renderReport(
      out,
      `Task ${t.TaskID}`,
      [
        ['TaskName', t.TaskName],
        ['Status', t.Status],
        ['Schedule', `${t.ScheduleStartTime} - ${t.ScheduleEndTime}`],
      ],
      report,
    );
  }
  return 0;
}
