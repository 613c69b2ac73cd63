import type { Command, FlagsOf } from '../commander.js';
import type { Deps } from '../action.js';
import { UsageError } from '../../errors.js';
import type { Context } from '../../context.js';
import { SETTINGS, isSettingKey } from '../../config/keys.js';
import { readAll } from '../../io-read.js';
import { httpUrl } from '../../config/http-url.js';
import type { ConfigSetJson } from '../../schemas/local-output.js';
import { JSON_SHAPES } from '../../help/json-shapes.js';
import { KEYS_HELP } from './get.js';
import { said } from '../../said.js';

function declare(config: Command) {
  return config
    .command('set <key> [value]')
    .description(
      'store a setting in the profile; secret settings are read from stdin or a masked prompt, never the command line',
    )
    .option('--stdin', 'read the value from stdin')
    .addHelpText(
      'after',
      `\nKeys:\n${KEYS_HELP}\n\nExamples:\n  callctl config set base-url https://service.example\n  callctl -p test config set flex-url https://flex.example\n  printf %s "$PUSH_TOKEN" | callctl config set push-token --stdin\n\nJSON (--json):\n${JSON_SHAPES.configSet}`,
    );
}

export type ConfigSetOptions = FlagsOf<typeof declare> & { key: string; value?: string };

export function register(config: Command, { start }: Deps): void {
  declare(config).action((key, value, flags, command) => start(command, runConfigSet, { ...flags, key, value }));
}

export async function runConfigSet(ctx: Context, opts: ConfigSetOptions): Promise<number> {
  const { key } = opts;
  let { value } = opts;
  if (!isSettingKey(key)) throw new UsageError(said`unknown setting ${key}; see \`callctl config set --help\``);
  const spec = SETTINGS[key];
  if ('internal' in spec && spec.internal)
    throw new UsageError(said`${key} is set by \`callctl auth login\`, not by config set`);
  const secret = 'secret' in spec && spec.secret;
  if (secret && value !== undefined) {
    throw new UsageError(
      said`${key} is a secret: give it on stdin (--stdin) or at the prompt, not on the command line`,
    );
  }
  if (opts.stdin) value = (await readAll(ctx.io.stdin)).toString('utf8').replace(/\r?\n$/, '');
  else if (value === undefined && ctx.canPrompt()) {
    value = secret ? await ctx.io.prompter.password(key) : await ctx.io.prompter.input(key);
  }
  if (value === undefined || value === '')
    throw new UsageError(said`missing value for ${key}${secret ? ' (use --stdin)' : ''}`);
  if (key === 'base-url' || key === 'flex-url' || key === 'flex-test-url') httpUrl(value, key);
  const values: readonly string[] | undefined = 'values' in spec ? spec.values : undefined;
  if (values && !values.includes(value))
    throw new UsageError(said`${key} is ${values.join(' or ')}, not ${JSON.stringify(value)}`);
  ctx.addSecret(secret ? value : undefined);
  const { updateProfile } = await import('../../config/config-file.js');
  // A push token belongs to the flex-route address it is set for (flag, environment or profile
  // now): push sends the profile's token to that address only.
  const boundKey =
    key === 'push-token' ? 'push-token-flex-url' : key === 'push-test-token' ? 'push-test-token-flex-url' : undefined;
  const boundUrl = boundKey
    ? (await ctx.settings()).get(key === 'push-token' ? 'flex-url' : 'flex-test-url')
    : undefined;
  await updateProfile(await ctx.configDir(), ctx.profile, (p) => {
    const next: Record<string, string | undefined> = { ...p, [key]: value };
    if (boundKey) next[boundKey] = boundUrl;
    return next;
  });
  const out = await ctx.output();
  if (out.json) out.writeJson({ profile: ctx.profile, key, set: true } satisfies ConfigSetJson);
  else out.success(said`${key} set in profile ${ctx.profile}`);
  return 0;
}
