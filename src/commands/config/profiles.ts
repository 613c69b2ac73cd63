import type { Context } from '../../context.js';
import { readConfigFile, type Profile } from '../../config/config-file.js';
import type { ConfigProfilesJson, ProfileRow } from '../../schemas/local-output.js';

/** One stored profile as `config profiles` shows it; no secret, only whether there is a token. */

export function profileRow(name: string, profile: Profile, current: string): ProfileRow {
  return {
    name,
    current: name === current,
    baseUrl: profile['base-url'] ?? null,
    token: profile.token ? 'stored' : 'none',
    tokenObtainedAt: profile.token ? (profile['token-obtained-at'] ?? null) : null,
  };
}

/** `config profiles` takes no options of its own. */
export type ConfigProfilesOptions = Record<string, never>;

/** Lists the stored profiles, with base URL and token state (local only). */
export async function runConfigProfiles(ctx: Context, _opts: ConfigProfilesOptions): Promise<number> {
  const store = readConfigFile(await ctx.configDir());
  const profiles = store.profiles ?? {};
  const names = Object.keys(profiles).sort();
  // The profile in use is listed even before anything is stored in it.
  if (!names.includes(ctx.profile)) names.unshift(ctx.profile);
  const rows = names.map((name) => profileRow(name, profiles[name] ?? {}, ctx.profile));
  const out = await ctx.output();
  await out.list(
    rows,
    [
      { header: 'CURRENT', value: (r) => (r.current ? '*' : '') },
      { header: 'NAME', value: (r) => r.name, kind: 'id' },
      { header: 'BASE URL', value: (r) => r.baseUrl ?? '', kind: 'id' },
      {
        header: 'TOKEN',
        value: (r) => (r.token === 'stored' ? `stored${r.tokenObtainedAt ? ` ${r.tokenObtainedAt}` : ''}` : 'none'),
      },
    ],
    { json: { current: ctx.profile, source: ctx.profileSource, profiles: rows } satisfies ConfigProfilesJson },
  );
  if (out.tty && ctx.profileSource !== 'default')
    out.info(
      `in use: ${ctx.profile} (from ${ctx.profileSource === 'flag' ? '-p' : ctx.profileSource === 'env' ? 'CALLCTL_PROFILE' : '`config use`'})`,
    );
  return 0;
}
