import type { Command, FlagsOf } from '../commander.js';
import type { Deps } from '../action.js';
import { AuthError } from '../../errors.js';
import type { Context } from '../../context.js';
import type { AuthTokenJson } from '../../schemas/local-output.js';
import { JSON_SHAPES } from '../../help/json-shapes.js';
import { said } from '../../said.js';

function declare(auth: Command) {
  return auth
    .command('token')
    .description('print the token in use, for other tools')
    .addHelpText(
      'after',
      `\nThe one command that prints a secret, because you asked for it.\n\nExamples:\n  curl -H "Authorization: Token $(callctl auth token)" "$BASE/service/cloud/robot"\n  callctl -p prod auth token --json\n\nJSON (--json):\n${JSON_SHAPES.authToken}`,
    );
}

export type TokenOptions = FlagsOf<typeof declare>;

export function register(auth: Command, { start }: Deps): void {
  declare(auth).action((flags, command) => start(command, runAuthToken, flags));
}

/**
 * Prints the token a run would use, so other tools can use it; the only command that prints one.
 * With an APPSecret in the environment that is a new token got with it (not stored), as a run gets.
 */
export async function runAuthToken(ctx: Context, _opts: TokenOptions): Promise<number> {
  const settings = await ctx.settings();
  let token = settings.get('token');
  if (settings.resolve('token').source !== 'env' && (await ctx.envCredentials()))
    token = await (await ctx.client()).authenticate();
  if (!token) throw new AuthError(said`no token for profile ${ctx.profile}: run \`callctl auth login\``);
  const out = await ctx.output();
  // Written past Output, which redacts every known secret: printing it is this command's purpose.
  if (out.json) ctx.io.stdout.write(`${JSON.stringify({ token } satisfies AuthTokenJson, null, 2)}\n`);
  else ctx.io.stdout.write(`${token}\n`);
  return 0;
}
