import { AuthError } from '../../errors.js';
import type { Context } from '../../context.js';

/** Prints the token in use, so other tools can use it; the only command that prints one. */
export async function run(ctx: Context): Promise<number> {
  const token = (await ctx.settings()).get('token');
  if (!token) throw new AuthError(`no token for profile ${ctx.profile}: run \`callctl auth login\``);
  const out = await ctx.output();
  if (out.json) out.writeJson({ token });
  else ctx.io.stdout.write(`${token}\n`);
  return 0;
}
