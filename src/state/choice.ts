import { readFileSync } from 'node:fs';
import { UsageError } from '../errors.js';
import { addSecret } from '../redact.js';

/** `--store` and `--store-file`, as every command that takes them declares them (src/commands/store-option.ts). */
export interface StoreFlags {
  store?: string;
  storeFile?: string;
}

/**
 * Where this run's shared state is: nowhere named (the state folder's files only), an NDJSON
 * event log named as the store, or a PostgreSQL database that holds events, dedup, journals,
 * ledgers and locks for every host using it. `from` says where the choice came from, for messages.
 */
export type StoreChoice =
  { kind: 'files' } | { kind: 'ndjson'; path: string; from: string } | { kind: 'postgres'; url: string; from: string };

/** Whether a store value names a PostgreSQL database (else it is an NDJSON file path). */
export function isPostgresUrl(value: string): boolean {
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
 * The one resolver of the store setting, called once per run: `--store`, else `--store-file` (a
 * file whose first line is the URL), else CALLCTL_STORE, else CALLCTL_STORE_FILE, else the
 * profile's `store`. A PostgreSQL URL's password becomes a secret of the run (redacted from every
 * output and file); `--store` refuses a URL holding one, since other users see a command line in
 * ps. Anything that looks like a URL of another kind is refused rather than taken as a file name.
 */
export function resolveStore(
  flags: StoreFlags,
  env: Record<string, string | undefined>,
  profileStore: string | undefined,
): StoreChoice {
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
  if (value === '') throw new UsageError(`${found.from}: empty store`);
  const password = storePassword(value);
  addSecret(password);
  if (found.from === '--store' && password) {
    throw new UsageError(
      '--store: the URL holds a password, which other users would see in ps: give it in CALLCTL_STORE or a file (--store-file, CALLCTL_STORE_FILE)',
    );
  }
  if (isPostgresUrl(value)) {
    try {
      new URL(value);
    } catch {
      throw new UsageError(`${found.from}: not a valid postgres:// URL`);
    }
    return { kind: 'postgres', url: value, from: found.from };
  }
  // Taken as a file, a mysql:// or mistyped postgress:// URL listed nothing and exited 0. The value
  // is not echoed: it may hold a password no redaction knows of.
  if ((/^[a-z][a-z0-9+.-]*:\/\//i.test(value) || /^postgres(?:ql)?:/i.test(value)) && !/^file:/i.test(value))
    throw new UsageError(`${found.from}: not a store: give a postgres:// URL or an NDJSON file's path`);
  return { kind: 'ndjson', path: value.replace(/^file:(\/\/)?/, ''), from: found.from };
}

function readUrlFile(path: string, what: string): string {
  try {
    return readFileSync(path, 'utf8').split(/\r?\n/)[0]!;
  } catch (error) {
    throw new UsageError(`${what}: cannot read ${path}: ${(error as NodeJS.ErrnoException).code ?? 'error'}`);
  }
}
