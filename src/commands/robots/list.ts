import type { Context } from '../../context.js';
import { listRobots } from '../../api/cloud.js';

/** `robots` takes no options of its own. */
export type RobotsOptions = Record<string, never>;

/** Runs `robots`. */
export async function runRobots(ctx: Context, _opts: RobotsOptions): Promise<number> {
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
