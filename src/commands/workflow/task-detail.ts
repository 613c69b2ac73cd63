import type { Command, FlagsOf } from '../commander.js';
import type { Deps } from '../action.js';
import type { Context } from '../../context.js';
import type { Column } from '../../output/table.js';
import type { QuestionAnswer, WorkflowCallDetail } from '../../schemas/workflow.js';
import { bomOption, excelOption, exportFormatOption, exportOutputOption } from '../flags/export.js';
import { JSON_SHAPES } from '../../help/json-shapes.js';
import { said } from '../../said.js';

type Answer = QuestionAnswer & { callee: string };

function declare(workflow: Command) {
  return workflow
    .command('task-detail <task_id>')
    .description(
      'show an outbound task of a workflow with its calls and answers, or export them (POST /service/cloud/workflow/taskdetail)',
    )
    .addOption(exportFormatOption())
    .addOption(exportOutputOption())
    .addOption(bomOption())
    .addOption(excelOption())
    .addHelpText(
      'after',
      `
Prints the task summary, the calls (CALLEE, CASE, RESULT, LABEL, DURATION, RING, HANGUP, START),
then the question-answer records (CALLEE, QUESTION, TYPE, ANSWER, STATUS, WHETHER).


Exports (--format or --output): every call record, streamed (a task of 100,000 records is never
held in memory). CSV: a header of the spec's named fields in its order, then "extra" (any other
fields, as a JSON object); nested values (question_answer, NerSlots, redail_call, EventLabel) as their JSON text; UTF-8, CRLF line ends, values
exactly as the service gave them (phone numbers quoted); --bom for Excel, --excel for a file meant
for spreadsheets only (see docs/reports.md, "Exports"). ndjson: one record a line. json: an array.

Examples:
  callctl workflow task-detail WT-3001
  callctl workflow task-detail WT-3001 --format csv --bom --output kyc.csv
  callctl workflow task-detail WT-3001 --json | jq '.details[].question_answer'

JSON (--json): the envelope's data, every field:
${JSON_SHAPES.workflowTaskDetail}`,
    );
}

export type WorkflowTaskDetailOptions = FlagsOf<typeof declare> & { taskId: string };

export function register(workflow: Command, { start }: Deps): void {
  declare(workflow).action((taskId, flags, command) => start(command, runWorkflowTaskDetail, { ...flags, taskId }));
}

export async function runWorkflowTaskDetail(ctx: Context, opts: WorkflowTaskDetailOptions): Promise<number> {
  const { taskId } = opts;
  const { exportFormat, exportRecords } = await import('../../report/run-export.js');
  const format = exportFormat(opts);
  if (format) {
    const { streamWorkflowTask } = await import('../../api/cloud.js');
    const { WORKFLOW_CALL_COLUMNS } = await import('../../report/export.js');
    const client = await ctx.client();
    const count = await exportRecords(format, opts, WORKFLOW_CALL_COLUMNS, ctx.io.stdout, (sink) =>
      streamWorkflowTask(client, taskId, sink),
    );
    if (opts.output !== undefined && opts.output !== '-')
      (await ctx.output()).success(said`${count} call record${count === 1 ? '' : 's'} written to ${opts.output}`);
    return 0;
  }
  const out = await ctx.output();
  if (out.json) {
    const [{ streamWorkflowTask }, { JsonStream }, { answerSchema }] = await Promise.all([
      import('../../api/cloud.js'),
      import('../../output/json-stream.js'),
      import('../../schemas/answers.js'),
    ]);
    const json = new JsonStream(ctx.io.stdout, 'details', await answerSchema('workflowTaskDetail').check());
    await json.finish(await streamWorkflowTask(await ctx.client(), taskId, json));
    return 0;
  }
  const { getWorkflowTask } = await import('../../api/cloud.js');
  const task = await getWorkflowTask(await ctx.client(), taskId);
  out.record(
    [
      ['task_id', task.task_id],
      ['task_name', task.task_name],
      ['status', task.status],
      ['workflow', `${task.workflow_id} (${task.workflow_name})`],
      ['node task', `${task.nodetask_id} (${task.nodetask_name})`],
      ['robot', `${task.robot_hash ?? ''} (${task.robot_method ?? ''})`],
      ['sip_line', task.sip_line],
      ['schedule', `${task.schedule_start_time ?? ''} - ${task.schedule_end_time ?? ''}`],
      ['calls', task.details.length],
    ],
    `Workflow task ${task.task_id}`,
  );
  await out.list(task.details, CALL_COLUMNS, { section: 'Calls', others: ANSWER_COLUMNS.map((c) => c.header) });
  const answers = task.details.flatMap((d) => (d.question_answer ?? []).map((qa) => ({ callee: d.callee, ...qa })));
  await out.list(answers, ANSWER_COLUMNS, { section: 'Answers', others: CALL_COLUMNS.map((c) => c.header) });
  return 0;
}

const CALL_COLUMNS: Column<WorkflowCallDetail>[] = [
  { header: 'CALLEE', value: (d) => d.callee, kind: 'id' },
  { header: 'CASE', value: (d) => d.case_id, kind: 'id' },
  { header: 'RESULT', value: (d) => d.result },
  { header: 'LABEL', value: (d) => d.result_label, kind: 'text' },
  { header: 'DURATION', value: (d) => d.duration, hide: 3 },
  { header: 'RING', value: (d) => d.ring_type, hide: 1 },
  { header: 'HANGUP', value: (d) => d.hangup_type, hide: 2 },
  { header: 'START', value: (d) => d.call_start_time, kind: 'id' },
];

const ANSWER_COLUMNS: Column<Answer>[] = [
  { header: 'CALLEE', value: (a) => a.callee, kind: 'id' },
  { header: 'QUESTION', value: (a) => a.question_name, kind: 'text' },
  { header: 'TYPE', value: (a) => a.question_type, hide: 1 },
  { header: 'ANSWER', value: (a) => a.answer_text ?? a.answer, kind: 'text' },
  { header: 'STATUS', value: (a) => a.status },
  { header: 'WHETHER', value: (a) => a.whether_answer, hide: 2 },
];
