import { InvalidArgumentError, Option, type Command } from '../commander.js';
import { nonNegativeInt, positiveInt, type Deps } from '../action.js';
import { timeText } from '../time-flags.js';
import { MAX_ENTRIES_PER_UPDATE } from '../../limits.js';
import { REPORT_HELP } from '../task/index.js';
import { watchOptions } from '../watch-options.js';
import { reportOptions } from '../report-options.js';
import { exportOptions } from '../export-options.js';
import { delimiter } from '../delimiter.js';
import { JSON_SHAPES } from '../../help/json-shapes.js';
import { claimOldStateOption, ignoreOldStateOption, storeFileOption, storeOption } from '../store-option.js';

function batchSize(value: string): number {
  const n = positiveInt(value);
  if (n > MAX_ENTRIES_PER_UPDATE)
    throw new InvalidArgumentError(`at most ${MAX_ENTRIES_PER_UPDATE}, the service's limit per request`);
  return n;
}

export function register(parent: Command, deps: Deps): void {
  const { run } = deps;
  const workflow = parent
    .command('workflow')
    .description('workflow tasks: list, contact upload, data-push checks, outbound task details');
  watchOptions(
    workflow
      .command('list')
      .description('list workflow instances (GET /service/cloud/workflow/instancelist)')
      .option('--page <n>', 'page number (from 1)', positiveInt)
      .option('--size <n>', 'instances per page', positiveInt)
      .option(
        '--from <time>',
        'created from (start_time): a time (2026-11-01T09:00:00+07:00), a date (00:00 UTC) or a duration ago (2h, 3d)',
        timeText,
      )
      .option('--to <time>', 'created until (end_time): a time, a date or a duration ago; after --from', timeText)
      .option('--all', 'walk every page, using the count the service gives'),
    'the list',
    false,
  )
    .addHelpText(
      'after',
      `
Columns: ID, NAME, TEMPLATE, STATUS, TOTAL, START, END, CREATED.

Examples:
  callctl workflow list --page 2 --size 20
  callctl workflow list --all --from 2026-11-01 --to 2026-11-08 --json | jq '.lists | length'
  callctl workflow list --from 3d
  callctl workflow list --watch --interval 30

Watch: --watch redraws the table every --interval seconds on a terminal; piped, it prints a
timestamped row for each instance that is new or changed since the last refresh.

JSON (--json): the envelope's data; with --all, every page's lists in one:
${JSON_SHAPES.workflowList}`,
    )
    .action(run(() => import('./list.js').then((m) => m.runWorkflowList)));
  workflow
    .command('update')
    .description(
      'upload contacts from a CSV file into a running workflow, in batches (POST /service/cloud/workflow/updatedetails)',
    )
    .requiredOption('--workflow-id <id>', 'workflow id')
    .requiredOption('--csv <file>', 'contacts CSV (UTF-8, with a header row)')
    .option('--delimiter <char>', 'field delimiter, one character; "tab" for a tab', delimiter, ',')
    .option('--keep-empty', 'send empty cells as empty variables (default: left out)')
    .option(
      '--max-invalid <n>',
      'skip up to n invalid rows and send the rest (0: any invalid row stops the upload)',
      nonNegativeInt,
      0,
    )
    .option('--rejects <file>', 'write every rejected row, as read, with its line and reason, to this CSV')
    .option(
      '--batch-size <n>',
      `entries per request, at most ${MAX_ENTRIES_PER_UPDATE}`,
      batchSize,
      MAX_ENTRIES_PER_UPDATE,
    )
    .option('--dry-run', 'check the file and list the batches it would send; send nothing')
    .option('--restart', "ignore an earlier run's journal: send every batch again")
    .option('-q, --quiet', 'print errors only (no progress, warnings or summary; --json still prints the summary)')
    .option(
      '--resend-uncertain',
      'send again the batches an earlier run left uncertain (sent, no answer) whose rows lack caseid',
    )
    .option('-y, --yes', 'do not ask for confirmation (required without a terminal)')
    .addOption(claimOldStateOption())
    .addOption(ignoreOldStateOption())
    .addOption(storeOption())
    .addOption(storeFileOption())
    .addHelpText(
      'after',
      `
The CSV: a header row; callee (+ then 7 to 15 digits) and platform (1 to 40 characters) are
required; caseid and pds_variables (a JSON object's text, or a plain string) are optional; every
other column becomes a key of variables. UTF-8 with or without BOM, quoted fields with commas and
line breaks, CRLF. Columns rejected_line and rejected_reason are ignored (see --rejects).

Every row is checked before anything is sent: a bad callee, platform or pds_variables, a row
repeating an earlier row's callee and caseid, a row with too few or too many fields. Problems are
listed with their line and column, and nothing is sent (exit 3) unless --max-invalid allows
skipping them. --rejects writes the rejected rows, as read, after their line and reason: fix them
and upload that file as it is.

Valid rows go in batches of at most ${MAX_ENTRIES_PER_UPDATE} (--batch-size), one request at a time. A batch
is retried when the connection could not be made and on 429 and 5xx answers (the service took
nothing). The file is read twice and never held in memory: the check spools the batches' JSON
beside the journal (about twice the CSV's size, removed when the run ends).

A journal (uploads/<workflow>-<content hash>.journal, in the state folder; in the store with a
PostgreSQL one, shared by every host) records each batch before it is sent and its answer after. After a failure, Ctrl-C or a kill, run the same command
again: it continues after the accepted batches. A batch whose body may have reached the service
with no answer (connection lost after sending, timeout, the process killed) is uncertain: when
every entry carries caseid it is sent again (caseid keeps the service from duplicating it), and
the run says so; otherwise it is NOT sent again, the run stops naming its lines (exit 5), a re-run
sends only the rest, and --resend-uncertain sends those lines too. An answer with status OK and
code 200 means accepted; the service's count is shown per batch and summed, and a count other
than the entries sent is a warning, never a failure.

Once an upload completed, the same content to the same workflow has nothing left to send;
--restart sends everything again. A file at the same path with new content (the next night's
export) is a new upload and goes ahead, with a warning naming the earlier upload that stopped and
how far it got. Two runs of the same upload at once: the second refuses (exit 2), naming the
first one's pid.

Without a terminal (cron), --yes is required; progress is one line per batch on stderr.

Exit codes: 0 done; 1 the service refused a batch (named, with its lines: fix what it says, running
again alone will not help); 2 usage, or the same upload already running; 3 invalid rows or file,
nothing sent; 4 authentication; 5 network, timeout, 429 or 5xx after retries (run again), or
uncertain batches left unsent (see above); 130 Ctrl-C (after journaling the batch in flight) or
confirmation declined.

Examples:
  callctl workflow update --workflow-id wf-20001 --csv contacts.csv --dry-run
  callctl workflow update --workflow-id wf-20001 --csv contacts.csv --rejects rejects.csv --max-invalid 50
  callctl workflow update --workflow-id wf-20001 --csv contacts.csv --yes --json | jq .entriesAcknowledged

Without a terminal every progress, warning and error line on stderr starts with an ISO-8601 time.

JSON (--json), ONE line on stdout once the file is checked (also when the run fails or stops):
${JSON_SHAPES.workflowUpdate}
"sent": entries accepted in this run; "serviceCount": the service's count, summed; "uncertain":
batches that may have reached the service; "earlierUpload": null, or a stopped upload of the same
path this one replaced; "problems": the first 20; "batches": --dry-run only.`,
    )
    .action(run(() => import('./update.js').then((m) => m.runWorkflowUpdate)));
  workflow
    .command('verify-push')
    .description(
      'check the data a custom API node pushed, last three months (POST /service/cloud/workflow/apinoticeinfo)',
    )
    .requiredOption('--workflow-id <id>', 'workflow id')
    .requiredOption('--node-id <id>', 'API node id')
    .requiredOption('--callee <number>', "the list entry's phone number")
    .option('--case-id <id>', "the list entry's case id")
    .addHelpText(
      'after',
      `
Examples:
  callctl workflow verify-push --workflow-id WF-1001 --node-id N-API-1 --callee +6281234567001
  callctl workflow verify-push --workflow-id WF-1001 --node-id N-API-1 --callee +6281234567001 --json | jq .call

JSON (--json): the envelope's data, the push body:
${JSON_SHAPES.verifyPush}`,
    )
    .action(run(() => import('./verify-push.js').then((m) => m.runVerifyPush)));
  exportOptions(
    workflow
      .command('task-detail <task_id>')
      .description(
        'show an outbound task of a workflow with its calls and answers, or export them (POST /service/cloud/workflow/taskdetail)',
      ),
  )
    .addHelpText(
      'after',
      `
Prints the task summary, the calls (CALLEE, CASE, RESULT, LABEL, DURATION, RING, HANGUP, START),
then the question-answer records (CALLEE, QUESTION, TYPE, ANSWER, STATUS, WHETHER).


Exports (--format or --output): every call record, streamed (a task of 100,000 records is never
held in memory). CSV: a header of the spec's named fields in its order, then "extra" (any other
fields, as a JSON object); nested values (question_answer, NerSlots, redail_call, EventLabel) as their JSON text; UTF-8, CRLF line ends, values
exactly as the service gave them (phone numbers quoted); --bom for Excel, --excel for a file meant
for spreadsheets only (see the README, "Exports"). ndjson: one record a line. json: an array.

Examples:
  callctl workflow task-detail WT-3001
  callctl workflow task-detail WT-3001 --format csv --bom --output kyc.csv
  callctl workflow task-detail WT-3001 --json | jq '.details[].question_answer'

JSON (--json): the envelope's data, every field:
${JSON_SHAPES.workflowTaskDetail}`,
    )
    .action(run(() => import('./task-detail.js').then((m) => m.runWorkflowTaskDetail)));
  reportOptions(
    workflow
      .command('report [task_id]')
      .usage('[options] <task_id>')
      .description(
        "an information-check task's numbers: rates, results, ring and hangup types, durations, and per question the answers and verification (POST /service/cloud/workflow/taskdetail)",
      )
      // The old spelling, before the ID became positional as in `task report ID`.
      .addOption(new Option('--task-id <id>', 'the outbound task of a workflow node').hideHelp()),
  )
    .addHelpText(
      'after',
      `
${REPORT_HELP}
For a workflow call, "status" is its result, "intention" its intention_description, "label" its
result_label, and the duration its own "duration" field (read as seconds).

Examples:
  callctl workflow report WT-IC-0001
  callctl workflow report WT-IC-0001 --json | jq '.questions[] | {question, verification}'

JSON (--json): rates are fractions or null, shares of the distribution's total or null;
"questions" only for information-check calls:
${JSON_SHAPES.workflowReport}`,
    )
    .action(run(() => import('./report.js').then((m) => m.runWorkflowReport)));
}
