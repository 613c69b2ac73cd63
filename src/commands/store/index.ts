import type { Command } from '../commander.js';
import type { Deps } from '../action.js';
import * as list from './list.js';
import * as migrate from './migrate.js';
import * as status from './status.js';

export function register(parent: Command, deps: Deps): void {
  const store = parent
    .command('store')
    .description("the store: what it keeps by destination; a PostgreSQL store's tables");
  for (const verb of [list, migrate, status]) verb.register(store, deps);
}
