import type { Command } from '../commander.js';
import type { Deps } from '../action.js';
import * as get from './get.js';
import * as set from './set.js';
import * as unset from './unset.js';
import * as list from './list.js';
import * as profiles from './profiles.js';
import * as use from './use.js';

export function register(parent: Command, deps: Deps): void {
  const config = parent.command('config').description('read and change profile settings');
  for (const verb of [get, set, unset, list, profiles, use]) verb.register(config, deps);
}
