import type { Command, FlagsOf } from '../commander.js';
import type { Deps } from '../action.js';
import type { Context } from '../../context.js';
import { UsageError } from '../../errors.js';
import type { WorkflowReportJson } from '../../schemas/report-output.js';
import { emitReport, REPORT_HELP, reportFlags } from '../flags/report.js';
import { JSON_SHAPES } from '../../help/json-shapes.js';
import { said } from '../../said.js';

function declare(workflow: Command) {
  return reportFlags(
    workflow
      .command('report <task_id>')
      .description(
        "an information-check task's numbers: rates, results, ring and hangup types, durations, and per question the answers and verification (POST /service/cloud/workflow/taskdetail)",
      ),
  ).addHelpText(
    'after',
    `
${REPORT_HELP}
For a workflow call, "status" is its result, "intention" its intention_description, "label" its
result_label, and the duration its own "duration" field (read as seconds).

Examples:
  callctl workflow report WT-IC-0001
  callctl workflow report WT-IC-0001 --json | jq '.questions[] | {question, verification}'

JSON (--json): rates are fractions or null, shares of the distribution's total or null;
"questions" only for information-check calls:
${JSON_SHAPES.workflowReport}`,
  );
}

export type WorkflowReportOptions = FlagsOf<typeof declare> & { taskId: string };

export function register(workflow: Command, { start }: Deps): void {
  declare(workflow).action((taskId, flags, command) => start(command, runWorkflowReport, { ...flags, taskId }));
}

export async function runWorkflowReport(ctx: Context, opts: WorkflowReportOptions): Promise<number> {
  if (!opts.taskId.trim()) throw new UsageError(said`task_id is empty`);
  const { workflowReport } = await import('../../report/reports.js');
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
