import type { Command, FlagsOf } from '../commander.js';
import type { Deps } from '../action.js';
import type { Context } from '../../context.js';
import { UsageError } from '../../errors.js';
import type { TaskReportJson } from '../../schemas/report-output.js';
import { emitReport, REPORT_HELP, reportFlags } from '../flags/report.js';
import { JSON_SHAPES } from '../../help/json-shapes.js';
import { said } from '../../said.js';

function declare(task: Command) {
  return reportFlags(
    task
      .command('report <TaskID>')
      .description("a task's campaign numbers: rates, intentions, ring and hangup types, durations, redials"),
  ).addHelpText(
    'after',
    `
${REPORT_HELP}
Examples:
  callctl task report T-20261122-001
  callctl task report T-20261122-001 --json | jq .rates.connected
  callctl task report T-20261122-001 --format csv > numbers.csv
  callctl task report T-20261122-001 --format html -o report.html   # charts, to mail or open on a phone

JSON (--json): rates are fractions or null, shares of the distribution's total or null:
${JSON_SHAPES.taskReport}`,
  );
}

export type TaskReportOptions = FlagsOf<typeof declare> & { taskId: string };

export function register(task: Command, { start }: Deps): void {
  declare(task).action((taskId, flags, command) => start(command, runTaskReport, { ...flags, taskId }));
}

export async function runTaskReport(ctx: Context, opts: TaskReportOptions): Promise<number> {
  const { taskId } = opts;
  if (!taskId.trim()) throw new UsageError(said`TaskID is empty`);
  const { taskReport } = await import('../../report/reports.js');
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
