import type { Command } from '../commander.js';
import type { Deps } from '../action.js';
import { storeFileOption, storeOption } from '../flags/store.js';
import { runStoreList } from './list.js';

/**
 * `callctl state` and `callctl state list`: the old spelling of `store list`, kept for the cron
 * scripts that call it; help does not list it.
 */
export function register(parent: Command, { start }: Deps): void {
  parent
    .command('state', { hidden: true })
    .description('the old spelling of `store list`')
    .command('list', { isDefault: true })
    .description('the old spelling of `store list`')
    .addOption(storeOption())
    .addOption(storeFileOption())
    .action((flags, command) => start(command, runStoreList, flags));
}
