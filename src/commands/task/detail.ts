import type { Context } from '../../context.js';
import { getTask } from '../../api/cloud.js';
import { UsageError } from '../../errors.js';

export async function run(ctx: Context, _opts: unknown, taskId: string): Promise<number> {
  if (!taskId.trim()) throw new UsageError('TaskID is empty');
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
  out.heading('Calls');
  if (!out.tty) ctx.io.stdout.write('\n');
  await out.list(task.detail, [
    { header: 'CALLEE', value: (c) => c.CalleeNumber },
    { header: 'START', value: (c) => c.CallStartTime },
    { header: 'STATUS', value: (c) => c.Status },
    { header: 'INTENTION', value: (c) => c.Intention },
    { header: 'RING', value: (c) => c.RingType },
    { header: 'HANGUP', value: (c) => c.HangupType },
    { header: 'TALK ROUNDS', value: (c) => c.TalkRound },
  ]);
  return 0;
}
