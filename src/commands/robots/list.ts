import type { Command, FlagsOf } from '../commander.js';
import type { Deps } from '../action.js';
import type { Context } from '../../context.js';
import { JSON_SHAPES } from '../../help/json-shapes.js';

function declare(parent: Command) {
  return parent
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
    );
}

export type RobotsOptions = FlagsOf<typeof declare>;

export function register(parent: Command, { start }: Deps): void {
  declare(parent).action((flags, command) => start(command, runRobots, flags));
}

export async function runRobots(ctx: Context, _opts: RobotsOptions): Promise<number> {
  const { listRobots } = await import('../../api/cloud.js');
  const robots = await listRobots(await ctx.client());
  const out = await ctx.output();
  await out.list(robots, [
    { header: 'ID', value: (r) => r.RobotID, kind: 'id' },
    { header: 'NAME', value: (r) => r.RobotName, kind: 'text' },
    { header: 'METHOD', value: (r) => r.RobotMethod },
    { header: 'VOICE', value: (r) => r.Voice },
    { header: 'TONE', value: (r) => r.Tone },
    { header: 'DESCRIPTION', value: (r) => r.RobotDescription, kind: 'text' },
  ]);
  return 0;
}
