import type { Context } from '../../context.js';
import { UsageError } from '../../errors.js';
import type { WorkflowReportJson } from '../../schemas/report-output.js';
import { workflowReport } from '../../report/reports.js';
import { renderReport, reportCsv, reportRows } from '../../report/render.js';

export interface WorkflowReportOptions {
  taskId: string;
  csv?: boolean;
}

/** Runs `workflow report`. */
export async function runWorkflowReport(ctx: Context, opts: WorkflowReportOptions): Promise<number> {
  if (!opts.taskId.trim()) throw new UsageError('--task-id is empty');
  const report = await workflowReport(await ctx.client(), opts.taskId);
  const out = await ctx.output();
  if (out.json) out.writeJson(report satisfies WorkflowReportJson);
  else if (opts.csv) ctx.io.stdout.write(reportCsv(reportRows(report)));
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
