import { Option } from '../commander.js';

/**
 * `--store` and `--store-file`, declared here once for every command that uses the store
 * (events, journals, ledgers, locks): `.addOption(storeOption()).addOption(storeFileOption())`.
 * The run resolves them once (src/store/resolve.ts, through Context.store()).
 */
export const storeOption = () =>
  new Option(
    '--store <url>',
    "the store: postgres://user@host/db without a password, or an NDJSON event log (else --store-file, CALLCTL_STORE, CALLCTL_STORE_FILE, the profile's store)",
  );

export const storeFileOption = () =>
  new Option('--store-file <file>', 'a file whose first line is the store (a URL with its password stays out of ps)');

/** The end of the help of the store's verbs that need a database (`store migrate`, `store status`). */
export const STORE_FLAGS_HELP = `
The store: --store URL, else --store-file FILE (its first line), else CALLCTL_STORE, else
CALLCTL_STORE_FILE, else the profile's \`store\`. A URL holding a password is refused as a
flag value (other users see command lines in ps): give it in the environment or a file.`;
