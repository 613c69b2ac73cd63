import type { Command, FlagsOf } from '../commander.js';
import type { Deps } from '../action.js';
import type { Context } from '../../context.js';
import { SETTINGS, SETTING_KEYS } from '../../config/keys.js';
import { mask } from '../../config/mask.js';
import { readConfigFile } from '../../config/config-file.js';
import type { ConfigListJson } from '../../schemas/local-output.js';
import { JSON_SHAPES } from '../../help/json-shapes.js';

function declare(config: Command) {
  return config
    .command('list')
    .description("list the profile's settings with their sources; secrets masked")
    .addHelpText(
      'after',
      `\nExamples:\n  callctl config list\n  callctl -p prod config list --json | jq .profiles\n\nJSON (--json):\n${JSON_SHAPES.configList}`,
    );
}

export type ConfigListOptions = FlagsOf<typeof declare>;

export function register(config: Command, { start }: Deps): void {
  declare(config).action((flags, command) => start(command, runConfigList, flags));
}

export async function runConfigList(ctx: Context, _opts: ConfigListOptions): Promise<number> {
  const settings = await ctx.settings();
  const rows = SETTING_KEYS.map((key) => {
    const { value, source } = settings.resolve(key);
    const secret = 'secret' in SETTINGS[key] && SETTINGS[key].secret;
    return { key, value: secret ? mask(value) : value, source };
  });
  const out = await ctx.output();
  if (out.json) {
    out.writeJson({
      profile: ctx.profile,
      settings: Object.fromEntries(rows.map((r) => [r.key, { value: r.value ?? null, source: r.source ?? null }])),
      profiles: Object.keys(readConfigFile(settings.dir).profiles ?? {}),
    } satisfies ConfigListJson);
    return 0;
  }
  await out.list(rows, [
    { header: 'KEY', value: (r) => r.key, kind: 'id' },
    { header: 'VALUE', value: (r) => r.value ?? '', kind: 'text' },
    { header: 'SOURCE', value: (r) => r.source ?? '' },
  ]);
  return 0;
}
