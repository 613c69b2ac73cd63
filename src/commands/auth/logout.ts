import type { Context } from '../../context.js';
import type { AuthLogoutJson } from '../../schemas/local-output.js';

/** `auth logout` takes no options of its own. */
export type LogoutOptions = Record<string, never>;

/** Runs `auth logout`. */
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
  else out.success(had ? `token of profile ${ctx.profile} removed` : `profile ${ctx.profile} had no stored token`);
  return 0;
}
