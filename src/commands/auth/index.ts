import type { Command } from '../commander.js';
import type { Deps } from '../action.js';

export function register(parent: Command, { action }: Deps): void {
  const auth = parent
    .command('auth')
    .description('log in to the service and manage the stored token');
  auth
    .command('login', { isDefault: true })
    .description('exchange APPKey and APPSecret for a token and store it in the profile')
    .option('--app-key <key>', 'APPKey (env CALLCTL_APP_KEY; prompted on a TTY)')
    .option('--app-secret-stdin', 'read the APPSecret from stdin (else CALLCTL_APP_SECRET, CALLCTL_APP_SECRET_FILE, or a masked prompt)')
    .addHelpText(
      'after',
      `
The APPSecret is never stored and never a flag value; the token is stored in the profile.

Examples:
  callctl auth login --base-url https://service.example
  printf %s "$SECRET" | callctl auth login --app-key KEY --app-secret-stdin --no-input
  callctl -p test auth login

JSON (--json): {"profile", "baseUrl", "tokenObtainedAt"}`,
    )
    .action(action(() => import('./login.js')));
  auth
    .command('status')
    .description('show whether a usable token is at hand (exit 4 when not); local only')
    .addHelpText('after', '\nJSON (--json): {"profile", "baseUrl", "tokenSource", "tokenObtainedAt", "loggedIn"}')
    .action(action(() => import('./status.js')));
  auth
    .command('logout')
    .description("forget the profile's stored token")
    .action(action(() => import('./logout.js')));
  auth
    .command('token')
    .description('print the token in use, for other tools (e.g. curl -H "Authorization: Token $(callctl auth token)")')
    .action(action(() => import('./token.js')));
}
