import type { Command } from '../commander.js';
import { UsageError } from '../../errors.js';
import { closest } from '../suggest.js';
import type { Deps } from '../action.js';
import * as login from './login.js';
import * as status from './status.js';
import * as logout from './logout.js';
import * as token from './token.js';
import { said } from '../../said.js';

export function register(parent: Command, deps: Deps): void {
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
    throw new UsageError(said`unknown command '${word}'${near ? ` (did you mean ${near}?)` : ''}`);
  });
  for (const verb of [login, status, logout, token]) verb.register(auth, deps);
}
