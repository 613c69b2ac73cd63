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
