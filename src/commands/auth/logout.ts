import type { Command, FlagsOf } from '../commander.js';
import type { Deps } from '../action.js';
import type { Context } from '../../context.js';
import type { AuthLogoutJson } from '../../schemas/local-output.js';
import { JSON_SHAPES } from '../../help/json-shapes.js';
import { said } from '../../said.js';

function declare(auth: Command) {
  return auth
    .command('logout')
    .description("forget the profile's stored token")
    .addHelpText(
      'after',
      `\nExamples:\n  callctl auth logout\n  callctl -p test auth logout\n\nJSON (--json):\n${JSON_SHAPES.authLogout}`,
    );
}

export type LogoutOptions = FlagsOf<typeof declare>;

export function register(auth: Command, { start }: Deps): void {
  declare(auth).action((flags, command) => start(command, runLogout, flags));
}

export async function runLogout(ctx: Context, _opts: LogoutOptions): Promise<number> {
  const { updateProfile } = await import('../../config/config-file.js');
  let had = false;
  await updateProfile(await ctx.configDir(), ctx.profile, (p) => {
    had = p.token !== undefined;
    const { token: _t, 'token-obtained-at': _at, 'token-base-url': _url, ...rest } = p;
    return rest;
  });
  const out = await ctx.output();
  if (out.json) out.writeJson({ profile: ctx.profile, removed: had } satisfies AuthLogoutJson);
  else
    out.success(had ? said`token of profile ${ctx.profile} removed` : said`profile ${ctx.profile} had no stored token`);
  return 0;
}
