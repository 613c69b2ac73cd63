import type { Context } from '../../context.js';
import { UsageError } from '../../errors.js';
import type { WorkflowReportJson } from '../../schemas/report-output.js';
import { workflowReport } from '../../report/reports.js';
import { renderReport, reportCsv, reportRows } from '../../report/render.js';
import { reportFormat, type ReportOptions } from '../report-options.js';

/** `workflow report <task_id>` (`--task-id`, its old spelling, is a hidden alias). */
export interface WorkflowReportOptions extends ReportOptions {
  taskId: string;
}

/** Runs `workflow report`. */
export async function runWorkflowReport(ctx: Context, opts: WorkflowReportOptions): Promise<number> {
  if (!opts.taskId.trim()) throw new UsageError('task_id is empty');
  const format = await reportFormat(ctx, opts);
  const report = await workflowReport(await ctx.client(), opts.taskId);
  const out = await ctx.output();
  if (out.json) out.writeJson(report satisfies WorkflowReportJson);
  else if (format === 'csv') ctx.io.stdout.write(reportCsv(reportRows(report)));
  else {
    const t = report.task;
    await renderReport(
      out,
      `Workflow task ${t.task_id}`,
      [
        ['task_name', t.task_name],
        ['status', t.status],
        ['workflow', `${t.workflow_id} (${t.workflow_name})`],
        ['node task', `${t.nodetask_id} (${t.nodetask_name})`],
      ],
      report,
    );
  }
  return 0;
}
