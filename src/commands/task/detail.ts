import type { Context } from '../../context.js';
import { getTask } from '../../api/cloud.js';
import { UsageError } from '../../errors.js';
import type { ExportFlags } from '../../report/run-export.js';

export async function run(ctx: Context, opts: ExportFlags, taskId: string): Promise<number> {
  if (!taskId.trim()) throw new UsageError('TaskID is empty');
  const { exportFormat, exportRecords } = await import('../../report/run-export.js');
  const format = exportFormat(opts);
  if (format) {
    const { streamTask } = await import('../../api/cloud.js');
    const { TASK_RECORD_COLUMNS } = await import('../../report/export.js');
    const client = await ctx.client();
    const count = await exportRecords(format, opts, TASK_RECORD_COLUMNS, ctx.io.stdout, (sink) => streamTask(client, taskId, sink));
    if (opts.output !== undefined && opts.output !== '-') (await ctx.output()).success(`${count} call record${count === 1 ? '' : 's'} written to ${opts.output}`);
    return 0;
  }
  const task = await getTask(await ctx.client(), taskId);
  const out = await ctx.output();
  if (out.json) {
    out.writeJson(task);
    return 0;
  }
  out.record(
    [
      ['TaskID', task.TaskID],
      ['TaskName', task.TaskName],
      ['Status', task.Status],
      ['Robot', `${task.RobotID} (${task.RobotMethod})`],
      ['SIPLine', task.SIPLine],
      ['Schedule', `${task.ScheduleStartTime} - ${task.ScheduleEndTime}`],
      ['Repeat', `${task.RepeatNumber} x every ${task.RepeatInterval}`],
      ['Calls', task.detail.length],
    ],
    `Task ${task.TaskID}`,
  );
  await out.list(task.detail, [
    { header: 'CALLEE', value: (c) => c.CalleeNumber, kind: 'id' },
    { header: 'START', value: (c) => c.CallStartTime, kind: 'id' },
    { header: 'STATUS', value: (c) => c.Status },
    { header: 'INTENTION', value: (c) => c.Intention, kind: 'text' },
    { header: 'RING', value: (c) => c.RingType, hide: 1 },
    { header: 'HANGUP', value: (c) => c.HangupType },
    { header: 'TALK ROUNDS', value: (c) => c.TalkRound, hide: 2 },
  ], { section: 'Calls' });
  return 0;
}
