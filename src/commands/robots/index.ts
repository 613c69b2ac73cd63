import type { Command } from '../commander.js';
import type { Deps } from '../action.js';
import { JSON_SHAPES } from '../../help/json-shapes.js';

export function register(parent: Command, { run }: Deps): void {
  parent
    .command('robots')
    .description('list the robots of the account (GET /service/cloud/robot)')
    .addHelpText(
      'after',
      `
Columns: ID, NAME, METHOD, VOICE, TONE, DESCRIPTION (tab-separated, no header, when piped).

Examples:
  callctl robots
  callctl robots --json | jq -r '.[].RobotID'

JSON (--json): the envelope's data, the robots as the service sends them:
${JSON_SHAPES.robots}`,
    )
    .action(run(() => import('./list.js').then((m) => m.runRobots)));
}
