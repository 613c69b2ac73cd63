import { readFileSync } from 'node:fs';
import { UsageError } from '../errors.js';
import { addSecret } from '../redact.js';
import type { Store } from './store.js';
import { said } from '../said.js';

/** `--store` and `--store-file`, as every command that takes them declares them (src/commands/flags/store.ts). */
export interface StoreFlags {
  store?: string;
  storeFile?: string;
  /**
   * The `--log FILE` of a command that reads events (hooks events, show, replay, ui): that NDJSON
   * file is the run's event log whatever the environment or the profile names; refused with
   * `--store` or `--store-file`. (serve-hooks' `--log` is not this: it goes to Store.events.)
   */
  log?: string;
}

/** What a run's store is made from: its flags, the environment, the profile's `store`, the state folder. */
export interface StoreSetting {
  flags: StoreFlags;
  env: Record<string, string | undefined>;
  profileStore: string | undefined;
  /** The state folder (src/files/state.ts). */
  dir: string;
  /** Told when a lock held in a shared store is lost under the run (expired, or taken by another run). */
  onLockLost?: (what: string, why: string) => void;
}

/**
 * Opens the run's store, once per run (Context.store): the files store in the state folder,
 * with the NDJSON event log the setting names if any, or the PostgreSQL store of a postgres://
 * URL. The one module that names a back end, each imported only when chosen (`pg` loads only for
 * a postgres:// store). No connection is made until the store is used.
 */
export async function openStore(setting: StoreSetting): Promise<Store> {
  const choice = chooseStore(setting.flags, setting.env, setting.profileStore);
  if (choice.kind === 'postgres') {
    const { PostgresStore } = await import('./postgres/store.js');
    return new PostgresStore({ url: choice.url, dir: setting.dir, onLockLost: setting.onLockLost });
  }
  const { FilesStore } = await import('./files/store.js');
  return new FilesStore({
    dir: setting.dir,
    ...(choice.kind === 'ndjson' ? { log: { path: choice.path, from: choice.from } } : {}),
  });
}

/** Where a run's store is: nowhere named (the files store alone), an NDJSON event log, or a database. */
type StoreChoice =
  { kind: 'files' } | { kind: 'ndjson'; path: string; from: string } | { kind: 'postgres'; url: string; from: string };

/** Whether a store value names a PostgreSQL database (else it is an NDJSON file path). */
function isPostgresUrl(value: string): boolean {
  return /^postgres(?:ql)?:\/\//i.test(value);
}

/** The password inside a store URL (a secret of the run). */
export function storePassword(value: string): string | undefined {
  if (!isPostgresUrl(value)) return undefined;
  try {
    const p = new URL(value).password;
    return p ? decodeURIComponent(p) : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The store setting: `--log` (a reading command's), else `--store`, else `--store-file` (a file
 * whose first line is the URL), else CALLCTL_STORE, else CALLCTL_STORE_FILE, else the profile's
 * `store`. A PostgreSQL URL's password becomes a secret of the run (redacted from every output and
 * file); `--store` refuses a URL holding one, since other users see a command line in ps.
 * Anything that looks like a URL of another kind is refused rather than taken as a file name.
 */
function chooseStore(
  flags: StoreFlags,
  env: Record<string, string | undefined>,
  profileStore: string | undefined,
): StoreChoice {
  if (flags.log !== undefined) {
    if (flags.store !== undefined || flags.storeFile !== undefined)
      throw new UsageError(said`give --log or --store, not both`);
    return { kind: 'ndjson', path: flags.log, from: '--log' };
  }
  let found: { value: string; from: string } | undefined;
  if (flags.store !== undefined) found = { value: flags.store, from: '--store' };
  else if (flags.storeFile !== undefined)
    found = { value: readUrlFile(flags.storeFile, '--store-file'), from: '--store-file' };
  else if (env.CALLCTL_STORE) found = { value: env.CALLCTL_STORE, from: 'CALLCTL_STORE' };
  else if (env.CALLCTL_STORE_FILE)
    found = { value: readUrlFile(env.CALLCTL_STORE_FILE, 'CALLCTL_STORE_FILE'), from: 'CALLCTL_STORE_FILE' };
  else if (profileStore) found = { value: profileStore, from: "the profile's store" };
  if (!found) return { kind: 'files' };
  const value = found.value.trim();
  if (value === '') throw new UsageError(said`${found.from}: empty store`);
  const password = storePassword(value);
  addSecret(password);
  if (found.from === '--store' && password) {
    throw new UsageError(
      said`--store: the URL holds a password, which other users would see in ps: give it in CALLCTL_STORE or a file (--store-file, CALLCTL_STORE_FILE)`,
    );
  }
  if (isPostgresUrl(value)) {
    try {
      new URL(value);
    } catch {
      throw new UsageError(said`${found.from}: not a valid postgres:// URL`);
    }
    return { kind: 'postgres', url: value, from: found.from };
  }
  // Taken as a file, a mysql:// or mistyped postgress:// URL listed nothing and exited 0. The value
  // is not echoed: it may hold a password no redaction knows of.
  if ((/^[a-z][a-z0-9+.-]*:\/\//i.test(value) || /^postgres(?:ql)?:/i.test(value)) && !/^file:/i.test(value))
    throw new UsageError(said`${found.from}: not a store: give a postgres:// URL or an NDJSON file's path`);
  return { kind: 'ndjson', path: value.replace(/^file:(\/\/)?/, ''), from: found.from };
}

function readUrlFile(path: string, what: string): string {
  try {
    return readFileSync(path, 'utf8').split(/\r?\n/)[0]!;
  } catch (error) {
    throw new UsageError(said`${what}: cannot read ${path}: ${(error as NodeJS.ErrnoException).code ?? 'error'}`);
  }
}
