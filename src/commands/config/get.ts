import { UsageError } from '../../errors.js';
import type { Context } from '../../context.js';
import { SETTINGS, isSettingKey } from '../../config/keys.js';
import { mask } from '../../config/mask.js';
import type { ConfigGetJson } from '../../schemas/local-output.js';

/** `config get <key>`. */
export interface ConfigGetOptions {
  key: string;
  reveal?: boolean;
}

/** Runs `config get`. */
export async function runConfigGet(ctx: Context, opts: ConfigGetOptions): Promise<number> {
  const { key } = opts;
  if (!isSettingKey(key)) throw new UsageError(`unknown setting ${key}; see \`callctl config list\``);
  const { value, source } = (await ctx.settings()).resolve(key);
  const secret = 'secret' in SETTINGS[key] && SETTINGS[key].secret;
  const shown = secret && !opts.reveal ? mask(value) : value;
  const out = await ctx.output();
  if (out.json) out.writeJson({ key, value: shown ?? null, source: source ?? null } satisfies ConfigGetJson);
  else if (value !== undefined) ctx.io.stdout.write(`${shown}\n`);
  return value === undefined ? 1 : 0;
}
