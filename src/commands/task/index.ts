import type { Command } from '../commander.js';
import type { Deps } from '../action.js';
import { watchOptions } from '../watch-options.js';
import { reportOptions } from '../report-options.js';
import { exportOptions } from '../export-options.js';
import { JSON_SHAPES } from '../../help/json-shapes.js';

export function register(parent: Command, { run }: Deps): void {
  const task = parent.command('task').description('calling tasks');
  watchOptions(
    exportOptions(
      task
        .command('detail <TaskID>')
        .description('show a calling task and its call records, or export them (GET /service/cloud/detail)'),
    ),
    'the task summary (status and calls so far)',
    true,
  )
    .addHelpText(
      'after',
      `
Prints the task summary, then one row per call: CALLEE, START, STATUS, INTENTION, RING, HANGUP,
TALK ROUNDS. Piped, the summary is key<TAB>value lines, then a blank line, then the call rows.


Exports (--format or --output): every call record, streamed (a task of 100,000 records is never
held in memory). CSV: a header of the spec's named fields in its order, then "extra" (any other
fields, as a JSON object); nested values (AsrResult, RedailCall, EventLabel, NerSlots) as their JSON text; UTF-8, CRLF line ends, values
exactly as the service gave them (phone numbers quoted); --bom for Excel, --excel for a file meant
for spreadsheets only (see the README, "Exports"). ndjson: one record a line. json: an array.

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
    )
    .action(run(() => import('./detail.js').then((m) => m.runTaskDetail)));
  reportOptions(
    task
      .command('report <TaskID>')
      .description("a task's campaign numbers: rates, intentions, ring and hangup types, durations, redials"),
  )
    .addHelpText(
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
    )
    .action(run(() => import('./report.js').then((m) => m.runTaskReport)));
}

/** How a report reads the fields, for every report's --help (the README says more). */
export const REPORT_HELP = `Reads the records as they stream in (any size). called: a call start time or CallTimes > 0;
connected: ring type "normal" or at least one talk round; no answer: called, not connected;
busy: ring type "busy"; finished: connected and hung up by the robot (ByRobot). Rates are of
calls made ("called" is of records). Talk rounds and durations (end - start, seconds) are of
connected calls: median, p90 (nearest rank) and max. Unknown values count as themselves,
empty ones as (empty), missing ones as (none). On a terminal: tables with bars; piped: lines of
section<TAB>value<TAB>count<TAB>share<TAB>detail.`;
