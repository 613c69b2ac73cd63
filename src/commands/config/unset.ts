import type { Command, FlagsOf } from '../commander.js';
import type { Deps } from '../action.js';
import { UsageError } from '../../errors.js';
import type { Context } from '../../context.js';
import { isSettingKey } from '../../config/keys.js';
import type { ConfigUnsetJson } from '../../schemas/local-output.js';
import { JSON_SHAPES } from '../../help/json-shapes.js';
import { said } from '../../said.js';

function declare(config: Command) {
  return config
    .command('unset <key>')
    .description('remove a setting from the profile')
    .addHelpText(
      'after',
      `\nExamples:\n  callctl config unset flex-test-url\n  callctl -p test config unset push-token\n\nJSON (--json):\n${JSON_SHAPES.configUnset}`,
    );
}

export type ConfigUnsetOptions = FlagsOf<typeof declare> & { key: string };

export function register(config: Command, { start }: Deps): void {
  declare(config).action((key, flags, command) => start(command, runConfigUnset, { ...flags, key }));
}

export async function runConfigUnset(ctx: Context, opts: ConfigUnsetOptions): Promise<number> {
  const { key } = opts;
  if (!isSettingKey(key)) throw new UsageError(said`unknown setting ${key}`);
  const { updateProfile } = await import('../../config/config-file.js');
  await updateProfile(await ctx.configDir(), ctx.profile, (p) => {
    const { [key]: _removed, ...rest } = p;
    return rest;
  });
  const out = await ctx.output();
  if (out.json) out.writeJson({ profile: ctx.profile, key, removed: true } satisfies ConfigUnsetJson);
  else out.success(said`${key} removed from profile ${ctx.profile}`);
  return 0;
}
