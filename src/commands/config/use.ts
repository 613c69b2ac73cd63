import type { Command, FlagsOf } from '../commander.js';
import type { Deps } from '../action.js';
import { UsageError } from '../../errors.js';
import type { Context } from '../../context.js';
import { checkProfileName, readConfigFile, setCurrent } from '../../config/config-file.js';
import type { ConfigUseJson } from '../../schemas/local-output.js';
import { JSON_SHAPES } from '../../help/json-shapes.js';
import { said } from '../../said.js';

function declare(config: Command) {
  return config
    .command('use <name>')
    .description('make a stored profile the default (used when neither -p nor CALLCTL_PROFILE names one)')
    .addHelpText(
      'after',
      `
NAME must be a stored profile; \`config use default\` goes back to the default one.

Examples:
  callctl config use prod
  callctl config use default

JSON (--json):
${JSON_SHAPES.configUse}`,
    );
}

export type ConfigUseOptions = FlagsOf<typeof declare> & { name: string };

export function register(config: Command, { start }: Deps): void {
  declare(config).action((name, flags, command) => start(command, runConfigUse, { ...flags, name }));
}

/**
 * Makes NAME the default profile: used when neither `-p` nor CALLCTL_PROFILE names one. NAME must
 * be a stored profile (a typo would otherwise leave every command without a token); `default`
 * is always allowed and goes back to the default.
 */
export async function runConfigUse(ctx: Context, opts: ConfigUseOptions): Promise<number> {
  const name = checkProfileName(opts.name, 'config use');
  const dir = await ctx.configDir();
  const names = Object.keys(readConfigFile(dir).profiles ?? {});
  if (name !== 'default' && !names.includes(name)) {
    const known = names.length > 0 ? `; profiles: ${names.sort().join(', ')}` : '; no profile is stored yet';
    throw new UsageError(
      said`no profile "${name}"${known} (create one with \`callctl -p ${name} auth login\` or \`config set\`)`,
    );
  }
  await setCurrent(dir, name === 'default' ? undefined : name);
  const out = await ctx.output();
  if (out.json) out.writeJson({ current: name } satisfies ConfigUseJson);
  else {
    out.success(said`profile ${name} is now the default`);
    if (ctx.io.env.CALLCTL_PROFILE && ctx.io.env.CALLCTL_PROFILE !== name)
      out.warn(said`CALLCTL_PROFILE=${ctx.io.env.CALLCTL_PROFILE} is set and still wins in this shell`);
  }
  return 0;
}
