import type { Command } from '../commander.js';
import { UsageError } from '../../errors.js';
import { closest } from '../suggest.js';
import type { Deps } from '../action.js';
import { JSON_SHAPES } from '../../help/json-shapes.js';

export function register(parent: Command, { run }: Deps): void {
  const auth = parent.command('auth').description('log in to the service and manage the stored token');
  // Bare `auth` is `auth login` (the default command), so commander hands any other word to login
  // as an argument ("too many arguments for 'login'"): a word that is no command of auth is named
  // as unknown, with the closest one, as in every other group.
  auth.hook('preSubcommand', (group, command) => {
    const word = group.args[0];
    if (command.name() !== 'login' || word === undefined || word === 'login' || word.startsWith('-')) return;
    const near = closest(
      word,
      group.commands.map((c) => c.name()),
    );
    throw new UsageError(`unknown command '${word}'${near ? ` (did you mean ${near}?)` : ''}`);
  });
  auth
    .command('login', { isDefault: true })
    .description('exchange APPKey and APPSecret for a token and store it in the profile')
    .option('--app-key <key>', 'APPKey (env CALLCTL_APP_KEY; prompted on a TTY)')
    .option(
      '--app-secret-stdin',
      'read the APPSecret from stdin (else CALLCTL_APP_SECRET, CALLCTL_APP_SECRET_FILE, or a masked prompt)',
    )
    .addHelpText(
      'after',
      `
The APPSecret is never stored and never a flag value; the token is stored in the profile.

Examples:
  callctl auth login --base-url https://service.example
  printf %s "$SECRET" | callctl auth login --app-key KEY --app-secret-stdin --no-input
  callctl -p test auth login

JSON (--json):
${JSON_SHAPES.authLogin}`,
    )
    .action(run(() => import('./login.js').then((m) => m.runLogin)));
  auth
    .command('status')
    .description('show the token in use and ask the service whether it works (exit 4 when not)')
    .option('--offline', 'answer from the local files only, without asking the service')
    .option(
      '--all',
      'check every stored profile, one row each (exit 4 when any has no usable token, else 5 when the service could not answer)',
    )
    .addHelpText(
      'after',
      `
Asks the service with one cheap request (GET /service/cloud/robot) whether the token works.
Exit 0 when it does, 4 when there is no token, the service rejects it, or the profile's token
belongs to another base URL; 5 when the service cannot answer (run again). With --offline: 0
when a token is at hand (CALLCTL_TOKEN, the profile's, or credentials in the environment).

Examples:
  callctl auth status
  callctl auth status --offline
  callctl auth status --all
  callctl -p prod auth status --json | jq .accepted

JSON (--json); with --all, an array of them, each with "problem" (null, or the reason it is not usable):
${JSON_SHAPES.authStatus}`,
    )
    .action(run(() => import('./status.js').then((m) => m.runAuthStatus)));
  auth
    .command('logout')
    .description("forget the profile's stored token")
    .addHelpText(
      'after',
      `\nExamples:\n  callctl auth logout\n  callctl -p test auth logout\n\nJSON (--json):\n${JSON_SHAPES.authLogout}`,
    )
    .action(run(() => import('./logout.js').then((m) => m.runLogout)));
  auth
    .command('token')
    .description('print the token in use, for other tools')
    .addHelpText(
      'after',
      `\nThe one command that prints a secret, because you asked for it.\n\nExamples:\n  curl -H "Authorization: Token $(callctl auth token)" "$BASE/service/cloud/robot"\n  callctl -p prod auth token --json\n\nJSON (--json):\n${JSON_SHAPES.authToken}`,
    )
    .action(run(() => import('./token.js').then((m) => m.runAuthToken)));
}
