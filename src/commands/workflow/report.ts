import type { Context } from '../../context.js';
import { UsageError } from '../../errors.js';
import type { WorkflowReportJson } from '../../schemas/report-output.js';
import { workflowReport } from '../../report/reports.js';
import { emitReport, type ReportOptions } from '../report-options.js';

/** `workflow report <task_id>` (`--task-id`, its old spelling, is a hidden alias). */
export interface WorkflowReportOptions extends ReportOptions {
  taskId: string;
}

/** Runs `workflow report`. */
export async function runWorkflowReport(ctx: Context, opts: WorkflowReportOptions): Promise<number> {
  if (!opts.taskId.trim()) throw new UsageError('task_id is empty');
  return emitReport(
    ctx,
    opts,
    async () => (await workflowReport(await ctx.client(), opts.taskId)) satisfies WorkflowReportJson,
    ({ task: t }) => ({
      title: `Workflow task ${t.task_id}`,
      about: [
        ['task_name', t.task_name],
        ['status', t.status],
        ['workflow', `${t.workflow_id} (${t.workflow_name})`],
        ['node task', `${t.nodetask_id} (${t.nodetask_name})`],
      ],
    }),
  );
}
