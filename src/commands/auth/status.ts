import { AuthError } from '../../errors.js';
import type { Context } from '../../context.js';

/** Local only: reports the token this profile would use. Exit 4 when there is none. */
export async function run(ctx: Context): Promise<number> {
  const settings = await ctx.settings();
  const token = settings.resolve('token');
  const baseUrl = settings.get('base-url');
  const obtainedAt = token.source === 'profile' ? settings.stored()['token-obtained-at'] : undefined;
  const credentials = await ctx.envCredentials();
  const loggedIn = token.value !== undefined || credentials !== undefined;
  const out = await ctx.output();
  const status = {
    profile: ctx.profile,
    baseUrl: baseUrl ?? null,
    tokenSource: token.source === 'env' ? 'CALLCTL_TOKEN' : token.source === 'profile' ? 'profile' : credentials ? 'credentials in the environment' : null,
    tokenObtainedAt: obtainedAt ?? null,
    loggedIn,
  };
  if (out.json) out.writeJson(status);
  else
    out.record([
      ['profile', status.profile],
      ['base URL', status.baseUrl ?? '(not set)'],
      ['token', status.tokenSource ?? '(none)'],
      ['obtained', status.tokenObtainedAt ?? ''],
    ]);
  if (!loggedIn) throw new AuthError(`no token for profile ${ctx.profile}: run \`callctl auth login\``);
  return 0;
}
