import type { Command } from '../commander.js';
import type { Deps } from '../action.js';
import { SETTINGS } from '../../config/keys.js';
import { JSON_SHAPES } from '../../help/json-shapes.js';

const keyHelp = Object.entries(SETTINGS)
  .filter(([, s]) => !('internal' in s && s.internal))
  .map(
    ([k, s]) =>
      `  ${k.padEnd(16)} ${s.description}${'env' in s ? ` (env ${s.env})` : ''}${'secret' in s && s.secret ? ' [secret]' : ''}`,
  )
  .join('\n');

export function register(parent: Command, { run }: Deps): void {
  const config = parent.command('config').description('read and change profile settings');
  config
    .command('get <key>')
    .description('print the value a setting resolves to (flag, environment, profile)')
    .option('--reveal', 'print a secret setting in clear instead of masked')
    .addHelpText(
      'after',
      `\nKeys:\n${keyHelp}\n\nExit 1 when the setting has no value.\n\nExamples:\n  callctl config get base-url\n  callctl -p prod config get push-token --reveal\n\nJSON (--json):\n${JSON_SHAPES.configGet}`,
    )
    .action(run(() => import('./get.js').then((m) => m.runConfigGet)));
  config
    .command('set <key> [value]')
    .description(
      'store a setting in the profile; secret settings are read from stdin or a masked prompt, never the command line',
    )
    .option('--stdin', 'read the value from stdin')
    .addHelpText(
      'after',
      `\nKeys:\n${keyHelp}\n\nExamples:\n  callctl config set base-url https://service.example\n  callctl -p test config set flex-url https://flex.example\n  printf %s "$PUSH_TOKEN" | callctl config set push-token --stdin\n\nJSON (--json):\n${JSON_SHAPES.configSet}`,
    )
    .action(run(() => import('./set.js').then((m) => m.runConfigSet)));
  config
    .command('unset <key>')
    .description('remove a setting from the profile')
    .addHelpText(
      'after',
      `\nExamples:\n  callctl config unset flex-test-url\n  callctl -p test config unset push-token\n\nJSON (--json):\n${JSON_SHAPES.configUnset}`,
    )
    .action(run(() => import('./unset.js').then((m) => m.runConfigUnset)));
  config
    .command('list')
    .description("list the profile's settings with their sources; secrets masked")
    .addHelpText(
      'after',
      `\nExamples:\n  callctl config list\n  callctl -p prod config list --json | jq .profiles\n\nJSON (--json):\n${JSON_SHAPES.configList}`,
    )
    .action(run(() => import('./list.js').then((m) => m.runConfigList)));
  config
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
    )
    .action(run(() => import('./profiles.js').then((m) => m.runConfigProfiles)));
  config
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
    )
    .action(run(() => import('./use.js').then((m) => m.runConfigUse)));
}
