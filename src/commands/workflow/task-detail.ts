import type { Context } from '../../context.js';
import { getWorkflowTask } from '../../api/cloud.js';
import type { Column } from '../../output/table.js';
import type { QuestionAnswer, WorkflowCallDetail } from '../../schemas/workflow.js';

type Answer = QuestionAnswer & { callee: string };

import type { ExportFlags } from '../../report/run-export.js';

/** `workflow task-detail <task_id>`. */
export interface WorkflowTaskDetailOptions extends ExportFlags {
  taskId: string;
}

/** Runs `workflow task-detail`. */
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
      (await ctx.output()).success(`${count} call record${count === 1 ? '' : 's'} written to ${opts.output}`);
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
