import type { Command } from '../commander.js';
import type { Deps } from '../action.js';
import { JSON_SHAPES } from '../../help/json-shapes.js';
import { storeFileOption, storeOption } from '../flags/store.js';

const STORE_FLAGS_HELP = `
The store: --store URL, else --store-file FILE (its first line), else CALLCTL_STORE, else
CALLCTL_STORE_FILE, else the profile's \`store\`. A URL holding a password is refused as a
flag value (other users see command lines in ps): give it in the environment or a file.`;

export function register(parent: Command, { run }: Deps): void {
  const store = parent
    .command('store')
    .description("the store: what it keeps by destination; a PostgreSQL store's tables");
  store
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
is new work there. Records an earlier callctl wrote without a destination are listed with
"(none: written by an earlier callctl)": a run that meets one stops (exit 1) until
--claim-old-state or --ignore-old-state says what it was.

Where: the state folder ($XDG_STATE_HOME/callctl, else ~/.local/state/callctl), or the shared
store (--store, --store-file, CALLCTL_STORE, CALLCTL_STORE_FILE, the profile's store).
\`callctl state\`, its old spelling, still works.

Examples:
  callctl store list
  CALLCTL_STORE_FILE=/etc/callctl/store-url callctl store list --json | jq '.uploads[] | select(.status != "done")'

JSON (--json):
${JSON_SHAPES.storeList}`,
    )
    .action(run(() => import('./list.js').then((m) => m.runStoreList)));
  store
    .command('migrate')
    .description("create or upgrade callctl's tables in the store (serve-hooks also does it at start)")
    .addOption(storeOption())
    .addOption(storeFileOption())
    .option('--grant-to <role>', 'the role the printed GRANTs are for', 'callctl_receiver')
    .addHelpText(
      'after',
      `${STORE_FLAGS_HELP}

Each step is applied once, in one transaction, under an advisory lock: several callctl starting
at once take turns. A database newer than this callctl is left alone (exit 2).

Then it prints on stdout the GRANTs that let another role (--grant-to, a receiver's or a cron
host's) run callctl on these tables without owning them: read and write rights on each table,
USAGE on the sequences, no CREATE on the schema. Run them as the tables' owner.

Exit: 0 up to date (or brought up to date), 2 no store or a newer schema, 4 credentials refused,
5 unreachable, 6 a right missing.

Examples:
  CALLCTL_STORE_FILE=/etc/callctl/store-url callctl store migrate
  callctl store migrate --grant-to hooks | psql "$OWNER_URL"
  callctl store migrate --json

JSON (--json): "applied": the versions applied by this run, in order:
${JSON_SHAPES.storeMigrate}`,
    )
    .action(run(() => import('./migrate.js').then((m) => m.runStoreMigrate)));
  store
    .command('status')
    .description('what is in the store: schema version, server version, events kept')
    .addOption(storeOption())
    .addOption(storeFileOption())
    .addHelpText(
      'after',
      `${STORE_FLAGS_HELP}

Exit: 0 when the schema is this callctl's, 1 when it is missing, older or newer (run
\`callctl store migrate\` or upgrade callctl), 4 credentials refused, 5 unreachable.

Examples:
  callctl store status
  callctl store status --json | jq .version

JSON (--json):
${JSON_SHAPES.storeStatus}`,
    )
    .action(run(() => import('./status.js').then((m) => m.runStoreStatus)));
}
