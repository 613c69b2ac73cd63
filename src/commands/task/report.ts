import type { Context } from '../../context.js';
import { UsageError } from '../../errors.js';
import type { TaskReportJson } from '../../schemas/report-output.js';
import { taskReport } from '../../report/reports.js';
import { emitReport, type ReportOptions } from '../report-options.js';

/** `task report <TaskID>`. */
export interface TaskReportOptions extends ReportOptions {
  taskId: string;
}

/** Runs `task report`. */
export async function runTaskReport(ctx: Context, opts: TaskReportOptions): Promise<number> {
  const { taskId } = opts;
  if (!taskId.trim()) throw new UsageError('TaskID is empty');
  return emitReport(
    ctx,
    opts,
    async () => (await taskReport(await ctx.client(), taskId)) satisfies TaskReportJson,
    ({ task: t }) => ({
      title: `Task ${t.TaskID}`,
      about: [
        ['TaskName', t.TaskName],
        ['Status', t.Status],
        ['Schedule', `${t.ScheduleStartTime} - ${t.ScheduleEndTime}`],
      ],
    }),
  );
}
