import { UsageError } from '../../errors.js';
import type { Context } from '../../context.js';
import { isSettingKey } from '../../config/keys.js';
import type { ConfigUnsetJson } from '../../schemas/local-output.js';

/** `config unset <key>`. */
export interface ConfigUnsetOptions {
  key: string;
}

/** Runs `config unset`. */
export async function runConfigUnset(ctx: Context, opts: ConfigUnsetOptions): Promise<number> {
  const { key } = opts;
  if (!isSettingKey(key)) throw new UsageError(`unknown setting ${key}`);
  const { updateProfile } = await import('../../config/config-file.js');
  await updateProfile(await ctx.configDir(), ctx.profile, (p) => {
    const { [key]: _removed, ...rest } = p;
    return rest;
  });
  const out = await ctx.output();
  if (out.json) out.writeJson({ profile: ctx.profile, key, removed: true } satisfies ConfigUnsetJson);
  else out.success(`${key} removed from profile ${ctx.profile}`);
  return 0;
}
