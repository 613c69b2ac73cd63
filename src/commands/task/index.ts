import type { Command } from '../commander.js';
import type { Deps } from '../action.js';

export function register(parent: Command, { action }: Deps): void {
  const task = parent.command('task').description('calling tasks');
  task
    .command('detail <TaskID>')
    .description('show a calling task and its call records (GET /service/cloud/detail)')
    .addHelpText(
      'after',
      `
Prints the task summary, then one row per call: CALLEE, START, STATUS, INTENTION, RING, HANGUP,
TALK ROUNDS. Piped, the summary is key<TAB>value lines, then a blank line, then the call rows.

Examples:
  callctl task detail T-20261122-001
  callctl task detail T-20261122-001 --json | jq '.detail[] | {CalleeNumber, Intention}'

JSON (--json): the envelope's data: the task with every field of every call record.`,
    )
    .action(action(() => import('./detail.js')));
}
