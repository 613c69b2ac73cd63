import type { Command } from '../commander.js';
import type { Deps } from '../action.js';
import { storeFileOption, storeOption } from '../flags/store.js';

/**
 * `callctl state` and `callctl state list`: the old spelling of `store list`, kept for the cron
 * scripts that call it; help does not list it.
 */
export function register(parent: Command, { run }: Deps): void {
  parent
    .command('state', { hidden: true })
    .description('the old spelling of `store list`')
    .command('list', { isDefault: true })
    .description('the old spelling of `store list`')
    .addOption(storeOption())
    .addOption(storeFileOption())
    .action(run(() => import('./list.js').then((m) => m.runStoreList)));
}
