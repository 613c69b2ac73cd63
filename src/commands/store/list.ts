import type { Command, FlagsOf } from '../commander.js';
import type { Deps } from '../action.js';
import type { Context } from '../../context.js';
import { JSON_SHAPES } from '../../help/json-shapes.js';
import { storeFileOption, storeOption } from '../flags/store.js';
import { said } from '../../said.js';

function declare(store: Command) {
  return store
    .command('list')
    .description('what the store keeps, by destination: upload journals, send journals, ledgers')
    .addOption(storeOption())
    .addOption(storeFileOption())
    .addHelpText(
      'after',
      `
Every record is kept for the destination it was written for: the service and account (base URL
and APPKey) for uploads, the flex route (and live or test) for pushes, the template endpoint, API
key and template for template messages. The same file sent to another service, account or route
is new work there.

Where: the state folder ($XDG_STATE_HOME/callctl, else ~/.local/state/callctl), or the shared
store (--store, --store-file, CALLCTL_STORE, CALLCTL_STORE_FILE, the profile's store).
\`callctl state\`, its old spelling, still works.

Examples:
  callctl store list
  CALLCTL_STORE_FILE=/etc/callctl/store-url callctl store list --json | jq '.uploads[] | select(.status != "done")'

JSON (--json):
${JSON_SHAPES.storeList}`,
    );
}

export type StoreListOptions = FlagsOf<typeof declare>;

export function register(store: Command, { start }: Deps): void {
  declare(store).action((flags, command) => start(command, runStoreList, flags));
}

/** Runs `store list` (and its old spelling `state`): what the store keeps, by destination. */
export async function runStoreList(ctx: Context, opts: StoreListOptions): Promise<number> {
  const { inventory } = await import('../../store/inventory.js');
  const found = await inventory(await ctx.store(opts));
  const out = await ctx.output();
  if (out.json) {
    out.writeJson(found);
    return 0;
  }
  out.info(said`kept in ${found.store}`);
  out.heading('Uploads');
  await out.list(found.uploads, [
    { header: 'DESTINATION', value: (u) => u.destination, kind: 'text' },
    { header: 'WORKFLOW', value: (u) => u.workflowId, kind: 'id' },
    { header: 'FILE', value: (u) => u.file, kind: 'text' },
    { header: 'STATUS', value: (u) => u.status },
    { header: 'BATCHES', value: (u) => u.batches },
    { header: 'ENTRIES', value: (u) => u.entries },
    { header: 'UNCERTAIN', value: (u) => u.uncertainBatches },
    { header: 'LAST', value: (u) => u.lastAt },
  ]);
  out.heading('Sends (push, template send --csv)');
  await out.list(found.sends, [
    { header: 'COMMAND', value: (s) => s.command },
    { header: 'DESTINATION', value: (s) => s.destination, kind: 'text' },
    { header: 'FILE', value: (s) => s.file, kind: 'text' },
    { header: 'SENT', value: (s) => s.sent },
    { header: 'FAILED', value: (s) => s.failed },
    { header: 'UNCERTAIN', value: (s) => s.uncertain },
    { header: 'LAST', value: (s) => s.lastAt },
  ]);
  out.heading('Never-twice ledgers');
  await out.list(found.ledgers, [
    { header: 'DESTINATION', value: (l) => l.destination, kind: 'text' },
    { header: 'PEOPLE', value: (l) => l.people },
    { header: 'LAST REACHED', value: (l) => l.lastAt },
  ]);
  return 0;
}
