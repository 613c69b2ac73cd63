import type { Command, FlagsOf } from '../commander.js';
import type { Deps } from '../action.js';
import type { Context } from '../../context.js';
import { UsageError } from '../../errors.js';
import type { CallingTask } from '../../schemas/task.js';
import type { TaskWatchJson } from '../../schemas/local-output.js';
import { exitStatusOption, intervalOption, runWatch, watchOption } from '../flags/watch.js';
import { bomOption, excelOption, exportFormatOption, exportOutputOption } from '../flags/export.js';
import { JSON_SHAPES } from '../../help/json-shapes.js';
import { said } from '../../said.js';

function declare(task: Command) {
  return task
    .command('detail <TaskID>')
    .description('show a calling task and its call records, or export them (GET /service/cloud/detail)')
    .addOption(exportFormatOption())
    .addOption(exportOutputOption())
    .addOption(bomOption())
    .addOption(excelOption())
    .addOption(watchOption('the task summary (status and calls so far)'))
    .addOption(intervalOption())
    .addOption(exitStatusOption())
    .addHelpText(
      'after',
      `
Prints the task summary, then one row per call: CALLEE, START, STATUS, INTENTION, RING, HANGUP,
TALK ROUNDS. Piped, the summary is key<TAB>value lines, then a blank line, then the call rows.


Exports (--format or --output): every call record, streamed (a task of 100,000 records is never
held in memory). CSV: a header of the spec's named fields in its order, then "extra" (any other
fields, as a JSON object); nested values (AsrResult, RedailCall, EventLabel, NerSlots) as their JSON text; UTF-8, CRLF line ends, values
exactly as the service gave them (phone numbers quoted); --bom for Excel, --excel for a file meant
for spreadsheets only (see docs/reports.md, "Exports"). ndjson: one record a line. json: an array.

Examples:
  callctl task detail T-20261122-001
  callctl task detail T-20261122-001 --format csv --output calls.csv
  callctl task detail T-20261122-001 --format ndjson | jq -r 'select(.RingType=="busy") | .CalleeNumber'
  callctl task detail T-20261122-001 --json | jq '.detail[] | {CalleeNumber, Intention}'

Watch (--watch, --exit-status): the summary only (TaskID, TaskName, Status, Calls, Answered,
Unanswered), redrawn every --interval seconds; piped, a timestamped line each time it changes.
--exit-status ends at a final status: exit 0 finished, 1 canceled.
  callctl task detail T-DEBT-0002 --watch --interval 10
  callctl task detail T-DEBT-0002 --exit-status > progress.log && echo done

JSON (--json): the envelope's data, the task with every field of every call record:
${JSON_SHAPES.taskDetail}
With --watch, one line of JSON per change:
${JSON_SHAPES.taskWatch}`,
    );
}

export type TaskDetailOptions = FlagsOf<typeof declare> & { taskId: string };

export function register(task: Command, { start }: Deps): void {
  declare(task).action((taskId, flags, command) => start(command, runTaskDetail, { ...flags, taskId }));
}

export async function runTaskDetail(ctx: Context, opts: TaskDetailOptions): Promise<number> {
  const { taskId } = opts;
  if (!taskId.trim()) throw new UsageError(said`TaskID is empty`);
  if (opts.watch || opts.exitStatus) {
    if (opts.format !== undefined || opts.output !== undefined)
      throw new UsageError(said`--watch shows the task summary; it does not go with --format or --output`);
    const client = await ctx.client();
    const [{ finalState }, { getTask }] = await Promise.all([
      import('../../output/watch.js'),
      import('../../api/cloud.js'),
    ]);
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
      (await ctx.output()).success(said`${count} call record${count === 1 ? '' : 's'} written to ${opts.output}`);
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
  const { getTask } = await import('../../api/cloud.js');
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
