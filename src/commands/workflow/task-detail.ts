import type { Context } from '../../context.js';
import { getWorkflowTask } from '../../api/cloud.js';

export async function run(ctx: Context, _opts: unknown, taskId: string): Promise<number> {
  const task = await getWorkflowTask(await ctx.client(), taskId);
  const out = await ctx.output();
  if (out.json) {
    out.writeJson(task);
    return 0;
  }
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
  out.heading('Calls');
  if (!out.tty) ctx.io.stdout.write('\n');
  await out.list(task.details, [
    { header: 'CALLEE', value: (d) => d.callee },
    { header: 'CASE', value: (d) => d.case_id },
    { header: 'RESULT', value: (d) => d.result },
    { header: 'LABEL', value: (d) => d.result_label },
    { header: 'DURATION', value: (d) => d.duration },
    { header: 'RING', value: (d) => d.ring_type },
    { header: 'HANGUP', value: (d) => d.hangup_type },
    { header: 'START', value: (d) => d.call_start_time },
  ]);
  const answers = task.details.flatMap((d) => (d.question_answer ?? []).map((qa) => ({ callee: d.callee, ...qa })));
  out.heading('Answers');
  if (!out.tty) ctx.io.stdout.write('\n');
  await out.list(answers, [
    { header: 'CALLEE', value: (a) => a.callee },
    { header: 'QUESTION', value: (a) => a.question_name },
    { header: 'TYPE', value: (a) => a.question_type },
    { header: 'ANSWER', value: (a) => a.answer_text ?? a.answer },
    { header: 'STATUS', value: (a) => a.status },
    { header: 'WHETHER', value: (a) => a.whether_answer },
  ]);
  return 0;
}
