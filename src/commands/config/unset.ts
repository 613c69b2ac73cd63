import { UsageError } from '../../errors.js';
import type { Context } from '../../context.js';
import { isSettingKey } from '../../config/keys.js';

export async function run(ctx: Context, _opts: unknown, key: string): Promise<number> {
  if (!isSettingKey(key)) throw new UsageError(`unknown setting ${key}`);
  const { updateProfile } = await import('../../config/store.js');
  await updateProfile(await ctx.configDir(), ctx.profile, (p) => {
    const { [key]: _removed, ...rest } = p;
    return rest;
  });
  const out = await ctx.output();
  if (out.json) out.writeJson({ profile: ctx.profile, key, removed: true });
  else out.success(`${key} removed from profile ${ctx.profile}`);
  return 0;
}
