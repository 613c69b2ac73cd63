import type { Context } from '../../context.js';
import { getTask } from '../../api/cloud.js';
import { UsageError } from '../../errors.js';
import type { ExportFlags } from '../../report/run-export.js';
import type { CallingTask } from '../../schemas/task.js';
import type { TaskWatchJson } from '../../schemas/local-output.js';
import { runWatch, type WatchFlags } from '../watch-options.js';

/** `task detail <TaskID>`. */
export interface TaskDetailOptions extends ExportFlags, WatchFlags {
  taskId: string;
}

/** Runs `task detail`. */
export async function runTaskDetail(ctx: Context, opts: TaskDetailOptions): Promise<number> {
  const { taskId } = opts;
  if (!taskId.trim()) throw new UsageError('TaskID is empty');
  if (opts.watch || opts.exitStatus) {
    if (opts.format !== undefined || opts.output !== undefined)
      throw new UsageError('--watch shows the task summary; it does not go with --format or --output');
    const client = await ctx.client();
    const { finalState } = await import('../../output/watch.js');
    return runWatch(
      ctx,
      {
        title: `callctl task detail ${taskId}`,
        fetch: () => getTask(client, taskId),
        screen: (task, out) => out.record(Object.entries(summary(task))),
        lines: (task) => [
          Object.entries(summary(task))
            .map(([k, v]) => `${k}=${v}`)
            .join('\t'),
        ],
        json: (task) => summary(task) satisfies TaskWatchJson,
        final: (task) => finalState(task.Status),
      },
      opts,
    );
  }
  const { exportFormat, exportRecords } = await import('../../report/run-export.js');
  const format = exportFormat(opts);
  if (format) {
    const { streamTask } = await import('../../api/cloud.js');
    const { TASK_RECORD_COLUMNS } = await import('../../report/export.js');
    const client = await ctx.client();
    const count = await exportRecords(format, opts, TASK_RECORD_COLUMNS, ctx.io.stdout, (sink) =>
      streamTask(client, taskId, sink),
    );
    if (opts.output !== undefined && opts.output !== '-')
      (await ctx.output()).success(`${count} call record${count === 1 ? '' : 's'} written to ${opts.output}`);
    return 0;
  }
  const out = await ctx.output();
  if (out.json) {
    const [{ streamTask }, { JsonStream }, { answerSchema }] = await Promise.all([
      import('../../api/cloud.js'),
      import('../../output/json-stream.js'),
      import('../../schemas/answers.js'),
    ]);
    const json = new JsonStream(ctx.io.stdout, 'detail', await answerSchema('callingTask').check());
    await json.finish(await streamTask(await ctx.client(), taskId, json));
    return 0;
  }
  const task = await getTask(await ctx.client(), taskId);
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
  await out.list(
    task.detail,
    [
      { header: 'CALLEE', value: (c) => c.CalleeNumber, kind: 'id' },
      { header: 'START', value: (c) => c.CallStartTime, kind: 'id' },
      { header: 'STATUS', value: (c) => c.Status },
      { header: 'INTENTION', value: (c) => c.Intention, kind: 'text' },
      { header: 'RING', value: (c) => c.RingType, hide: 1 },
      { header: 'HANGUP', value: (c) => c.HangupType },
      { header: 'TALK ROUNDS', value: (c) => c.TalkRound, hide: 2 },
    ],
    { section: 'Calls' },
  );
  return 0;
}

/**
 * What `--watch` shows of a task: its status and how far its calls are (the records' own Status:
 * answered or not), not the records themselves.
 */
function summary(task: CallingTask): TaskWatchJson {
  const answered = task.detail.filter((c) => c.Status === 'answered').length;
  return {
    TaskID: task.TaskID,
    TaskName: task.TaskName,
    Status: task.Status,
    Calls: task.detail.length,
    Answered: answered,
    Unanswered: task.detail.length - answered,
  };
}
