import { AuthError } from '../../errors.js';
import type { Context } from '../../context.js';
import type { AuthTokenJson } from '../../schemas/local-output.js';

/** `auth token` takes no options of its own. */
export type TokenOptions = Record<string, never>;

/** Prints the token in use, so other tools can use it; the only command that prints one. */
export async function runAuthToken(ctx: Context, _opts: TokenOptions): Promise<number> {
  const token = (await ctx.settings()).get('token');
  if (!token) throw new AuthError(`no token for profile ${ctx.profile}: run \`callctl auth login\``);
  const out = await ctx.output();
  // Written past Output, which redacts every known secret: printing it is this command's purpose.
  if (out.json) ctx.io.stdout.write(`${JSON.stringify({ token } satisfies AuthTokenJson, null, 2)}\n`);
  else ctx.io.stdout.write(`${token}\n`);
  return 0;
}
