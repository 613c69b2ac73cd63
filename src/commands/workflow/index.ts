import { InvalidArgumentError, type Command } from '../commander.js';
import { positiveInt, type Deps } from '../action.js';
import { ISO_TIME_RE } from '../../schemas/formats.js';

function isoTime(value: string): string {
  if (!ISO_TIME_RE.test(value) || Number.isNaN(Date.parse(value))) {
    throw new InvalidArgumentError('expected a time as YYYY-MM-DDTHH:MM:SSZ, e.g. 2026-11-01T00:00:00Z');
  }
  return value;
}

export function register(parent: Command, deps: Deps): void {
  const { action } = deps;
  const workflow = parent.command('workflow').description('workflow tasks: list, contact upload, data-push checks, outbound task details');
  workflow
    .command('list')
    .description('list workflow instances (GET /service/cloud/workflow/instancelist)')
    .option('--page <n>', 'page number (from 1)', positiveInt)
    .option('--size <n>', 'instances per page', positiveInt)
    .option('--from <time>', 'created from, YYYY-MM-DDTHH:MM:SSZ (start_time)', isoTime)
    .option('--to <time>', 'created until, YYYY-MM-DDTHH:MM:SSZ (end_time)', isoTime)
    .option('--all', 'walk every page, using the count the service gives')
    .addHelpText(
      'after',
      `
Columns: ID, NAME, TEMPLATE, STATUS, TOTAL, START, END, CREATED.

Examples:
  callctl workflow list --page 2 --size 20
  callctl workflow list --all --from 2026-11-01T00:00:00Z --json | jq '.lists | length'

JSON (--json): the envelope's data, {"lists": [...], "count": n}; with --all, every page's lists in one.`,
    )
    .action(action(() => import('./list.js')));
  workflow
    .command('verify-push')
    .description('check the data a custom API node pushed, last three months (POST /service/cloud/workflow/apinoticeinfo)')
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

JSON (--json): the envelope's data: the push body ({workflow_id, node_id, callee, custom_attribute, call: {..., robot_id}}).`,
    )
    .action(action(() => import('./verify-push.js')));
  workflow
    .command('task-detail <task_id>')
    .description('show an outbound task of a workflow with its calls and answers (POST /service/cloud/workflow/taskdetail)')
    .addHelpText(
      'after',
      `
Prints the task summary, the calls (CALLEE, CASE, RESULT, LABEL, DURATION, RING, HANGUP, START),
then the question-answer records (CALLEE, QUESTION, TYPE, ANSWER, STATUS, WHETHER).

Examples:
  callctl workflow task-detail WT-3001
  callctl workflow task-detail WT-3001 --json | jq '.details[].question_answer'

JSON (--json): the envelope's data, every field.`,
    )
    .action(action(() => import('./task-detail.js')));
}
