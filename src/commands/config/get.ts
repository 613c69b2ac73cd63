import type { Command, FlagsOf } from '../commander.js';
import type { Deps } from '../action.js';
import { UsageError } from '../../errors.js';
import type { Context } from '../../context.js';
import { SETTINGS, isSettingKey } from '../../config/keys.js';
import { mask } from '../../config/mask.js';
import type { ConfigGetJson } from '../../schemas/local-output.js';
import { JSON_SHAPES } from '../../help/json-shapes.js';
import { said } from '../../said.js';

/** The settings, as `config get --help` and `config set --help` list them. */
export const KEYS_HELP = Object.entries(SETTINGS)
  .filter(([, s]) => !('internal' in s && s.internal))
  .map(
    ([k, s]) =>
      `  ${k.padEnd(16)} ${s.description}${'env' in s ? ` (env ${s.env})` : ''}${'secret' in s && s.secret ? ' [secret]' : ''}`,
  )
  .join('\n');

function declare(config: Command) {
  return config
    .command('get <key>')
    .description('print the value a setting resolves to (flag, environment, profile)')
    .option('--reveal', 'print a secret setting in clear instead of masked')
    .addHelpText(
      'after',
      `\nKeys:\n${KEYS_HELP}\n\nExit 1 when the setting has no value.\n\nExamples:\n  callctl config get base-url\n  callctl -p prod config get push-token --reveal\n\nJSON (--json):\n${JSON_SHAPES.configGet}`,
    );
}

export type ConfigGetOptions = FlagsOf<typeof declare> & { key: string };

export function register(config: Command, { start }: Deps): void {
  declare(config).action((key, flags, command) => start(command, runConfigGet, { ...flags, key }));
}

export async function runConfigGet(ctx: Context, opts: ConfigGetOptions): Promise<number> {
  const { key } = opts;
  if (!isSettingKey(key)) throw new UsageError(said`unknown setting ${key}; see \`callctl config list\``);
  const { value, source } = (await ctx.settings()).resolve(key);
  const secret = 'secret' in SETTINGS[key] && SETTINGS[key].secret;
  const shown = secret && !opts.reveal ? mask(value) : value;
  const out = await ctx.output();
  if (out.json) out.writeJson({ key, value: shown ?? null, source: source ?? null } satisfies ConfigGetJson);
  else if (value !== undefined) ctx.io.stdout.write(`${shown}\n`);
  return value === undefined ? 1 : 0;
}
