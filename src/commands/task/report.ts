import type { Context } from '../../context.js';
import { UsageError } from '../../errors.js';
import type { TaskReportJson } from '../../schemas/report-output.js';
import { taskReport } from '../../report/reports.js';
import { renderReport, reportCsv, reportRows } from '../../report/render.js';
import { reportFormat, type ReportOptions } from '../report-options.js';

/** `task report <TaskID>`. */
export interface TaskReportOptions extends ReportOptions {
  taskId: string;
}

/** Runs `task report`. */
export async function runTaskReport(ctx: Context, opts: TaskReportOptions): Promise<number> {
  const { taskId } = opts;
  if (!taskId.trim()) throw new UsageError('TaskID is empty');
  const format = await reportFormat(ctx, opts);
  const report = await taskReport(await ctx.client(), taskId);
  const out = await ctx.output();
  if (out.json) out.writeJson(report satisfies TaskReportJson);
  else if (format === 'csv') ctx.io.stdout.write(reportCsv(reportRows(report)));
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
