import type { Command } from '../commander.js';
import type { Deps } from '../action.js';
import { JSON_SHAPES } from '../../help/json-shapes.js';
import { storeFileOption, storeOption } from '../store-option.js';

export function register(parent: Command, { run }: Deps): void {
  parent
    .command('state')
    .description('what callctl keeps about work done, by destination: upload journals, send journals, ledgers')
    .addOption(storeOption())
    .addOption(storeFileOption())
    .addHelpText(
      'after',
      `
Every record is kept for the destination it was written for: the service and account (base URL
and APPKey) for uploads, the flex route (and live or test) for pushes, the template endpoint, API
key and template for template messages. The same file sent to another service, account or route
is new work there. Records an earlier callctl wrote without a destination are listed with
"(none: written by an earlier callctl)": a run that meets one stops (exit 1) until
--claim-old-state or --ignore-old-state says what it was.

Where: the state folder ($XDG_STATE_HOME/callctl, else ~/.local/state/callctl), or the shared
store (--store, --store-file, CALLCTL_STORE, CALLCTL_STORE_FILE, the profile's store).

Examples:
  callctl state
  CALLCTL_STORE_FILE=/etc/callctl/store-url callctl state --json | jq '.uploads[] | select(.status != "done")'

JSON (--json):
${JSON_SHAPES.stateList}`,
    )
    .action(run(() => import('./list.js').then((m) => m.runState)));
}
