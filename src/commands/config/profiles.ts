import type { Command, FlagsOf } from '../commander.js';
import type { Deps } from '../action.js';
import type { Context } from '../../context.js';
import { readConfigFile, type Profile } from '../../config/config-file.js';
import type { ConfigProfilesJson, ProfileRow } from '../../schemas/local-output.js';
import { JSON_SHAPES } from '../../help/json-shapes.js';
import { said } from '../../said.js';

function declare(config: Command) {
  return config
    .command('profiles')
    .description('list the stored profiles with their base URL and token state (local only)')
    .addHelpText(
      'after',
      `
Columns: CURRENT (* for the profile in use), NAME, BASE URL, TOKEN (stored, with when it was
obtained, or none). No secret is shown. The profile in use is -p, else CALLCTL_PROFILE, else the
one \`config use\` chose, else default.

Examples:
  callctl config profiles
  callctl config profiles --json | jq -r '.profiles[] | select(.token == "none") | .name'

JSON (--json):
${JSON_SHAPES.configProfiles}`,
    );
}

export type ConfigProfilesOptions = FlagsOf<typeof declare>;

export function register(config: Command, { start }: Deps): void {
  declare(config).action((flags, command) => start(command, runConfigProfiles, flags));
}

/** One stored profile as `config profiles` shows it; no secret, only whether there is a token. */
function profileRow(name: string, profile: Profile, current: string): ProfileRow {
  return {
    name,
    current: name === current,
    baseUrl: profile['base-url'] ?? null,
    token: profile.token ? 'stored' : 'none',
    tokenObtainedAt: profile.token ? (profile['token-obtained-at'] ?? null) : null,
  };
}

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
      said`in use: ${ctx.profile} (from ${ctx.profileSource === 'flag' ? '-p' : ctx.profileSource === 'env' ? 'CALLCTL_PROFILE' : '`config use`'})`,
    );
  return 0;
}
